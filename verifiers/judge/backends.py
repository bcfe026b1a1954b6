"""Model backends a judge sends its prompt to, through each provider's official SDK.

`OpenAIChatBackend` talks to OpenAI or any OpenAI-compatible chat-completions server
(vLLM, Ollama, llama.cpp server) by `base_url`, at temperature 0 in JSON mode;
`AnthropicBackend` to Anthropic's messages API with the verdict's JSON schema as
structured output. Both let the SDK retry rate limits (429) and server errors (5xx) with
exponential backoff (honouring Retry-After), bound each call by a timeout, and turn
every failure into a `JudgeError` that names the judge. Each SDK is imported when its
first backend is built: scoring without a judge (every scripted run) never loads them.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Protocol

from admindesk.verifiers.judge import JudgeError, JudgeSpecError
from admindesk.verifiers.judge.spec import KEY_VARIABLES, JudgeSettings, JudgeSpec

# Verdicts are one short JSON object; this bounds a rambling answer's cost.
MAX_OUTPUT_TOKENS = 400
# Sent when an openai-compatible server wants no key (the SDK insists on some value).
NO_KEY = "no-key"
# The verdict's JSON schema, for providers that enforce structured output.
VERDICT_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["verdict", "reason"],
                  "properties": {"verdict": {"type": "string", "enum": ["pass", "fail"]},
                                 "reason": {"type": "string"}}}


@dataclass(frozen=True)
class Completion:
    """A model's answer text and the model version the provider says answered."""

    text: str
    model: str


class ChatBackend(Protocol):
    """One model behind one API: a system and a user message in, an answer out."""

    spec: JudgeSpec
    # The base URL calls go to, as the SDK resolved it (spec, environment or default).
    endpoint: str

    def complete(self, system: str, user: str) -> Completion:
        """The model's answer (JudgeError when there is none)."""
        ...


def _api_key(spec: JudgeSpec, settings: JudgeSettings) -> str:
    variable = KEY_VARIABLES[spec.provider]
    key = settings.env.get(variable, "").strip()
    if key or spec.provider == "openai-compatible":
        return key or NO_KEY
    raise JudgeSpecError(f"judge {spec.label} needs an API key: set {variable} "
                         "(for a local OpenAI-compatible server use openai-compatible:URL#MODEL)")


class OpenAIChatBackend:
    """Chat completions through the `openai` SDK (OpenAI itself, or any compatible server)."""

    def __init__(self, spec: JudgeSpec, settings: JudgeSettings):
        self.spec = spec
        base_url = spec.base_url or settings.env.get("OPENAI_BASE_URL") or None
        self._sdk = openai = importlib.import_module("openai")
        self._client = openai.OpenAI(api_key=_api_key(spec, settings), base_url=base_url,
                                     timeout=settings.timeout, max_retries=settings.max_retries)
        self.endpoint = str(self._client.base_url).rstrip("/")
        self._timeout = settings.timeout

    def complete(self, system: str, user: str) -> Completion:
        try:
            response = self._client.chat.completions.create(
                model=self.spec.model, temperature=0,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                response_format={"type": "json_object"})
        except self._sdk.APITimeoutError as exc:
            raise JudgeError(f"judge {self.spec.label}: no answer within {self._timeout:g} s") from exc
        except self._sdk.APIConnectionError as exc:
            raise JudgeError(f"judge {self.spec.label}: cannot reach {self._client.base_url} ({exc})") from exc
        except self._sdk.APIStatusError as exc:
            raise JudgeError(f"judge {self.spec.label}: HTTP {exc.status_code} ({exc.message})") from exc
        if not response.choices or response.choices[0].message.content is None:
            reason = response.choices[0].finish_reason if response.choices else "no choices"
            raise JudgeError(f"judge {self.spec.label}: empty answer ({reason})")
        return Completion(text=response.choices[0].message.content, model=response.model or self.spec.model)


class AnthropicBackend:
    """Messages through the `anthropic` SDK.

    The messages API (SDK 2.x) takes no sampling temperature; the verdict's shape is held
    by structured output (a JSON schema) instead, and votes absorb the sampling spread.
    """

    def __init__(self, spec: JudgeSpec, settings: JudgeSettings):
        self.spec = spec
        base_url = settings.env.get("ANTHROPIC_BASE_URL") or None
        self._sdk = anthropic = importlib.import_module("anthropic")
        self._client = anthropic.Anthropic(api_key=_api_key(spec, settings), base_url=base_url,
                                           timeout=settings.timeout, max_retries=settings.max_retries)
        self.endpoint = str(self._client.base_url).rstrip("/")
        self._timeout = settings.timeout

    def complete(self, system: str, user: str) -> Completion:
        try:
            message = self._client.messages.create(
                model=self.spec.model, max_tokens=MAX_OUTPUT_TOKENS, system=system,
                messages=[{"role": "user", "content": user}],
                output_config={"format": {"type": "json_schema", "schema": VERDICT_SCHEMA}})
        except self._sdk.APITimeoutError as exc:
            raise JudgeError(f"judge {self.spec.label}: no answer within {self._timeout:g} s") from exc
        except self._sdk.APIConnectionError as exc:
            raise JudgeError(f"judge {self.spec.label}: cannot reach {self._client.base_url} ({exc})") from exc
        except self._sdk.APIStatusError as exc:
            raise JudgeError(f"judge {self.spec.label}: HTTP {exc.status_code} ({exc.message})") from exc
        text = "".join(block.text for block in message.content if block.type == "text")
        if not text.strip():
            raise JudgeError(f"judge {self.spec.label}: empty answer (stop reason {message.stop_reason})")
        return Completion(text=text, model=message.model or self.spec.model)


def make_backend(spec: JudgeSpec, settings: JudgeSettings) -> ChatBackend:
    """The backend for `spec` (JudgeSpecError, e.g. for a missing key, before any call is made)."""
    if spec.provider == "anthropic":
        return AnthropicBackend(spec, settings)
    return OpenAIChatBackend(spec, settings)
