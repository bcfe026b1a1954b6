"""`ApiEnv`: the API channel (`admindesk run --channel api`): the same four apps and the same
episode state as `Env`, reached through the apps' HTTP APIs instead of a browser.

    with ApiEnv() as env:
        obs, info = env.reset("pa-easy-01")
        obs, terminated, truncated, info = env.step(
            {"type": "api_request", "server": "ehr", "method": "GET", "path": "/fhir/Patient?identifier=E1"})
        record = env.record()

The agent names a server (`ehr`: the EHR's FHIR R4 API; `keystone`: Keystone Mutual's Da
Vinci PAS and coverage-requirements API) and a path under `/fhir`; the harness holds each
server's bearer token (issued at reset for the desk's staff account, as a configured
backend client would) and sends it. Each response, status and JSON body, is the next
observation. The record is the same `EpisodeRecord` the screens produce (snapshots of all
four apps, the answer, the trajectory), so the same checks score both channels.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from admindesk.harness.env.environment import DEFAULT_PASSWORD, DEFAULT_USERNAME, Env
from admindesk.harness.env.episode_apps import EpisodeApps
from admindesk.harness.env.recorder import TrajectoryWriter
from admindesk.harness.env.services import ServiceError, Services
from admindesk.schema.task_model import Task
from admindesk.verifiers.records import EpisodeRecord

# What the agent calls a server -> the app serving it.
API_SERVERS = {"ehr": "ehr_web", "keystone": "payer_portal_b"}
API_PREFIX = "/fhir"
# A search that returns many resources is cut here in the observation (the agent pages with _count).
MAX_RESPONSE_CHARS = 24_000
REQUEST_TIMEOUT_S = 30.0


class ApiRequest(BaseModel):
    """One HTTP call to an app's API."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["api_request"] = "api_request"
    server: Literal["ehr", "keystone"]
    method: Literal["GET", "POST", "PUT"]
    path: str = Field(min_length=1, max_length=4_000, description="under /fhir, query string included")
    body: dict[str, Any] | None = None

    @field_validator("path")
    @classmethod
    def _under_the_api(cls, path: str) -> str:
        if not (path == API_PREFIX or path.startswith(API_PREFIX + "/") or path.startswith(API_PREFIX + "?")):
            raise ValueError(f"the path must start with {API_PREFIX}/ (e.g. /fhir/Patient?identifier=...)")
        if ".." in path.split("?", 1)[0]:
            raise ValueError("the path may not climb out of the API with '..'")
        return path


class ApiDone(BaseModel):
    """The end of the episode, with the agent's answer."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["done"] = "done"
    answer: str | None = None


ApiAction = Annotated[ApiRequest | ApiDone, Field(discriminator="type")]
_API_ACTION = TypeAdapter(ApiAction)


def parse_api_action(raw: BaseModel | dict) -> ApiRequest | ApiDone:
    """The action `raw` describes (pydantic's ValidationError says what is wrong). Another
    model (the screens' `done` of an agent that works on both channels, e.g. noop) is read
    by its fields."""
    if isinstance(raw, (ApiRequest, ApiDone)):
        return raw
    return _API_ACTION.validate_python(raw.model_dump() if isinstance(raw, BaseModel) else raw)


class ApiObservation(BaseModel):
    """What the agent sees after a step: the last response, or the episode's opening text."""

    step: int
    text: str
    status: int | None = None
    last_action_error: str | None = None


class ApiEnv(EpisodeApps):
    """Four apps and their APIs, one episode at a time. Use as a context manager."""

    channel = "api"

    def __init__(self, *, record_dir: str | Path | None = None, services: Services | None = None,
                 tasks_dir: str | Path | None = None,
                 credentials: tuple[str, str] = (DEFAULT_USERNAME, DEFAULT_PASSWORD)) -> None:
        self.record_dir = Path(record_dir) if record_dir is not None else None
        self.tasks_dir = Path(tasks_dir).resolve() if tasks_dir is not None else None
        self.credentials = credentials
        self.services = services if services is not None else Services(tasks_dir=self.tasks_dir)
        self.browser = None  # no browser: the worker's crash checks look for one
        self.task: Task | None = None
        self._client = httpx.Client(timeout=REQUEST_TIMEOUT_S)
        self._tokens: dict[str, str] = {}
        self._writer: TrajectoryWriter | None = None
        self._episodes = 0
        self._trajectory: list[dict[str, Any]] = []
        self._initial_snapshots: dict[str, dict[str, Any]] = {}
        self._step, self._terminated, self._answer = 0, False, None
        try:
            if not self.services.processes:
                self.services.start()
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "ApiEnv":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- episode ------------------------------------------------------------------------
    def reset(self, task: Task | str, *, seed: int | None = None) -> tuple[ApiObservation, dict[str, Any]]:
        """Fresh app state for `task` (clock at its `now`), a bearer token per API server,
        and the opening observation naming the servers. `seed` changes nothing (as in Env)."""
        resolved, task_id = self._resolve_task(task)
        if "api" not in resolved.channels:
            raise ValueError(f"task {resolved.id} is not offered on the api channel (its channels: "
                             f"{', '.join(resolved.channels)})")
        started = time.perf_counter()
        self._end_episode()
        self.task, self._episodes = resolved, self._episodes + 1
        self.services.reset_all(resolved.now, task_id)
        self._note_app_starts()
        self._initial_snapshots = self.services.snapshot_all()
        self._tokens = {server: self._issue_token(app) for server, app in API_SERVERS.items()}
        self._step, self._terminated, self._answer = 0, False, None
        self._trajectory = []
        if self.record_dir is not None:
            self._writer = TrajectoryWriter(self.record_dir / f"{resolved.id}-{self._episodes:03d}")
        obs = ApiObservation(step=0, text=opening_text(resolved))
        reset_ms = round((time.perf_counter() - started) * 1000, 1)
        self._log({"step": 0, "action": None, "channel": self.channel, "goal": resolved.goal,
                   "apps": {name: self.services.url(name).rstrip("/") for name in self.services.processes},
                   "timing": {"total_ms": reset_ms}})
        return obs, {"reset_ms": reset_ms, "task_id": resolved.id}

    def step(self, action: BaseModel | dict) -> tuple[ApiObservation, bool, bool, dict[str, Any]]:
        """Send one request (or end the episode); returns (observation, terminated, truncated, info)."""
        if self.task is None:
            raise RuntimeError("call reset() before step()")
        if self.episode_over:
            raise RuntimeError("the episode is over: call reset()")
        self._step += 1
        started = time.perf_counter()
        try:
            parsed = parse_api_action(action)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'action'}: {e['msg']}" for e in exc.errors()[:3])
            obs = ApiObservation(step=self._step, text="", last_action_error=f"invalid action ({problems})")
            self._log({"step": self._step, "action": action if isinstance(action, dict) else str(action),
                       "error": obs.last_action_error})
            return obs, False, self._truncated(), {}
        if isinstance(parsed, ApiDone):
            self._terminated, self._answer = True, parsed.answer
            obs = ApiObservation(step=self._step, text="The episode is over.")
            self._log({"step": self._step, "action": parsed.model_dump(), "error": None})
            return obs, True, False, {}
        obs = self._send(parsed)
        self._log({"step": self._step, "action": parsed.model_dump(), "status": obs.status,
                   "error": obs.last_action_error, "response_chars": len(obs.text),
                   "timing": {"total_ms": round((time.perf_counter() - started) * 1000, 1)}})
        return obs, False, self._truncated(), {}

    @property
    def episode_over(self) -> bool:
        return self._terminated or self._truncated()

    def record(self) -> EpisodeRecord:
        """The episode so far, for the verifiers (every app's final snapshot, fetched now)."""
        if self.task is None:
            raise RuntimeError("call reset() before record()")
        final, errors = self._final_snapshots()
        return EpisodeRecord(task_id=self.task.id, initial_snapshots=self._initial_snapshots,
                             final_snapshots=final, snapshot_errors=errors, answer=self._answer,
                             trajectory=list(self._trajectory))

    @property
    def initial_snapshots(self) -> dict[str, dict[str, Any]]:
        return self._initial_snapshots

    def close(self) -> None:
        """End the episode and stop the apps (idempotent)."""
        self._end_episode()
        self._client.close()
        self.services.close()

    # ---- internals ----------------------------------------------------------------------
    def _issue_token(self, app: str) -> str:
        username, password = self.credentials
        response = self._client.post(self.services.url(app, "/oauth/token"),
                                     data={"grant_type": "password", "username": username, "password": password})
        if response.status_code != 200:
            raise ServiceError(f"{app}: POST /oauth/token answered HTTP {response.status_code}: {response.text[:200]}")
        return response.json()["access_token"]

    def _send(self, request: ApiRequest) -> ApiObservation:
        app = API_SERVERS[request.server]
        headers = {"Authorization": f"Bearer {self._tokens[request.server]}", "Accept": "application/fhir+json"}
        try:
            response = self._client.request(request.method, self.services.url(app, request.path), headers=headers,
                                             json=request.body if request.method != "GET" else None)
        except httpx.HTTPError as exc:
            # The app did not answer: the harness's fault (an infra error), not the agent's.
            raise ServiceError(f"{request.method} {request.path} on {app}: {exc!r}") from exc
        text = response.text
        if len(text) > MAX_RESPONSE_CHARS:
            text = text[:MAX_RESPONSE_CHARS] + f"\n... ({len(response.text) - MAX_RESPONSE_CHARS} more characters " \
                                               "cut: ask for fewer with _count, or read one resource by id)"
        error = None if response.status_code < 400 else f"HTTP {response.status_code}"
        return ApiObservation(step=self._step, text=f"HTTP {response.status_code}\n{text}",
                              status=response.status_code, last_action_error=error)

    def _truncated(self) -> bool:
        return self.task is not None and self._step >= self.task.max_steps and not self._terminated

    def _log(self, entry: dict[str, Any]) -> None:
        self._trajectory.append(entry)
        if self._writer is not None:
            self._writer.write(entry, None)

    def _end_episode(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def opening_text(task: Task) -> str:
    """The first observation: the work item and the servers the agent can call."""
    return "\n".join([
        f"Work item: {task.goal}",
        "",
        "You work through the desk's APIs; the harness sends your bearer token with each request.",
        "- server \"ehr\": the EHR's FHIR R4 API (GET /fhir/metadata lists its resources and searches;",
        "  notes are Communication resources, work items are Task resources).",
        "- server \"keystone\": Keystone Mutual's payer API (GET /fhir/metadata): eligibility",
        "  (POST /fhir/CoverageEligibilityRequest/$submit), coverage requirements",
        "  (POST /fhir/coverage-requirements), Da Vinci PAS (POST /fhir/Claim/$submit, /fhir/Claim/$inquire).",
        "Call done with your answer when the work item is finished.",
    ])


def make_env(channel: Literal["screens", "api"], observation: str = "screenshot", *,
             record_dir: Path | None = None, tasks_dir: Path | None = None,
             frame_size: tuple[int, int] = (1280, 800)) -> Env | ApiEnv:
    """The Env of a channel: `screens` (a browser, `Env`) or `api` (the apps' APIs, `ApiEnv`);
    both give the verifiers the same EpisodeRecord. The observation and frame size are the
    screens' own."""
    if channel == "api":
        return ApiEnv(record_dir=record_dir, tasks_dir=tasks_dir)
    if channel == "screens":
        return Env(observation, frame_size=frame_size, record_dir=record_dir, tasks_dir=tasks_dir)  # type: ignore[arg-type]
    raise ValueError(f"channel must be screens or api, not {channel!r}")
