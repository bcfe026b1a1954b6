"""Loopback HTTP servers that speak model providers' wire protocols, for tests only.

Model APIs cannot be reached from our machines, so the judge and the model agents are
tested against a real HTTP server on 127.0.0.1 that the official SDKs talk to as they
would to the provider. A test scripts what each path answers:

    with ProtocolServer() as server:
        server.script("/v1/chat/completions", rate_limited(), json_reply(chat_completion("...")))
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="test")

Each path has a queue of scripted replies, taken in order; when a path's queue is empty
its responder (a function of the recorded request) answers, if one is set, else the
server answers 599 with a message naming the path, so a missing script fails loudly.
Every request is recorded (path, headers, JSON body) for assertions.

Helpers build realistic bodies: OpenAI chat completions, Anthropic messages, and each
provider's error shapes, with `retry-after-ms` so the SDKs' retries do not slow tests.
"""
from __future__ import annotations

import json
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP answer: status, JSON (or raw text) body, headers, and a delay first."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def payload(self) -> bytes:
        if isinstance(self.body, (bytes, str)):
            return self.body.encode() if isinstance(self.body, str) else self.body
        return json.dumps(self.body).encode()


@dataclass(frozen=True)
class RecordedRequest:
    """A request the server received: method, path (no query string), headers and body."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


Responder = Callable[[RecordedRequest], Reply]


class ProtocolServer:
    """A threaded HTTP server on 127.0.0.1 (free port) answering from per-path scripts."""

    def __init__(self) -> None:
        self._scripts: dict[str, deque[Reply]] = defaultdict(deque)
        self._responders: dict[str, Responder] = {}
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The server's base URL, e.g. http://127.0.0.1:54321 (no trailing slash)."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, path: str, *replies: Reply) -> None:
        """Queue replies for `path`, answered in order, one per request."""
        with self._lock:
            self._scripts[path].extend(replies)

    def respond(self, path: str, responder: Responder) -> None:
        """Answer `path` with `responder(request)` whenever its script queue is empty."""
        with self._lock:
            self._responders[path] = responder

    def pending(self, path: str) -> int:
        """How many scripted replies for `path` have not been used yet."""
        with self._lock:
            return len(self._scripts[path])

    def requests_to(self, path: str) -> list[RecordedRequest]:
        """The recorded requests to `path`, oldest first."""
        with self._lock:
            return [request for request in self.requests if request.path == path]

    def start(self) -> "ProtocolServer":
        # A short poll interval makes stop() quick (shutdown waits for the next poll).
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="protocol-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "ProtocolServer":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def _answer(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            queue = self._scripts.get(request.path)
            if queue:
                return queue.popleft()
            responder = self._responders.get(request.path)
        if responder is not None:
            try:
                return responder(request)
            except Exception as exc:  # a broken responder is a test bug: say so in the answer
                return Reply(status=599, body={"error": {"message": f"responder failed: {exc!r}"}})
        return Reply(status=599, body={"error": {"message": f"no scripted reply for {request.path}"}})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                request = RecordedRequest(method=self.command, path=self.path.split("?", 1)[0],
                                          headers={k.lower(): v for k, v in self.headers.items()},
                                          body=body, raw=raw)
                reply = server._answer(request)
                if reply.delay:
                    time.sleep(reply.delay)
                payload = reply.payload()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.headers.get("content-type", "application/json"))
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        if name.lower() != "content-type":
                            self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up (its timeout): nothing left to answer.
                    pass

            do_POST = do_GET = _handle

            def log_message(self, *args) -> None:  # keep test output clean
                pass

        return Handler


# Fast retries: both SDKs honour retry-after-ms (under 60 s) over their own backoff.
FAST_RETRY = {"retry-after-ms": "5"}


def json_reply(body: Any, status: int = 200, **headers: str) -> Reply:
    """A JSON answer with optional extra headers."""
    return Reply(status=status, body=body, headers=dict(headers))


def chat_completion(content: str | None, *, model: str = "gpt-test-2026-01-01", tool_calls=None,
                    finish_reason: str = "stop", prompt_tokens: int = 120,
                    completion_tokens: int = 20) -> dict:
    """An OpenAI chat.completion body with one choice holding `content` (and tool calls)."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 1767225600, "model": model,
            "system_fingerprint": "fp_test",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def anthropic_message(text: str | None = None, *, model: str = "claude-test-20260101", content=None,
                      stop_reason: str = "end_turn", input_tokens: int = 120,
                      output_tokens: int = 20) -> dict:
    """An Anthropic message body: one text block (or the given content blocks)."""
    blocks = content if content is not None else [{"type": "text", "text": text or ""}]
    return {"id": "msg_test", "type": "message", "role": "assistant", "model": model, "content": blocks,
            "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


def openai_models(*model_ids: str) -> Reply:
    """An OpenAI-style model list (GET /v1/models), as vLLM and Ollama answer it too."""
    return json_reply({"object": "list", "data": [{"id": model_id, "object": "model", "created": 1767225600,
                                                   "owned_by": "test"} for model_id in model_ids]})


def anthropic_model(model_id: str) -> Reply:
    """An Anthropic model object (GET /v1/models/{model_id})."""
    return json_reply({"type": "model", "id": model_id, "display_name": model_id,
                       "created_at": "2026-01-01T00:00:00Z"})


def openai_error(status: int, message: str = "scripted error", *, fast_retry: bool = True) -> Reply:
    """An OpenAI-style error answer (429 rate limit, 5xx server error, 401 bad key...)."""
    kind = {429: "rate_limit_exceeded", 401: "invalid_api_key"}.get(status, "server_error")
    return Reply(status=status, body={"error": {"message": message, "type": kind, "param": None,
                                                "code": kind}},
                 headers=dict(FAST_RETRY) if fast_retry else {})


def anthropic_error(status: int, message: str = "scripted error", *, fast_retry: bool = True) -> Reply:
    """An Anthropic-style error answer (429 rate_limit_error, 529 overloaded_error, 500 api_error...)."""
    kind = {429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error",
            400: "invalid_request_error"}.get(status, "api_error")
    return Reply(status=status, body={"type": "error", "error": {"type": kind, "message": message}},
                 headers=dict(FAST_RETRY) if fast_retry else {})
