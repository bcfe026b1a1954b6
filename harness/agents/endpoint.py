"""A model agent's endpoint: the pre-flight check made before any app starts, and which
failed calls are the endpoint's fault rather than the agent's.

An endpoint that is down, refuses the key, does not know the model or keeps answering
429/5xx after the SDK's retries says nothing about the agent: such a call raises
`ModelEndpointError`, which runs treat as an infra error (the episode is retried, never
scored). A request the endpoint rejects as malformed (400, 422) stays the agent's
`AgentError`. Both SDKs (openai, anthropic) raise errors with the same shape: a
`status_code` when the server answered, none when it could not be reached.
"""
from __future__ import annotations

from admindesk.harness.agents.base import AgentError

# Statuses that are the endpoint's or the account's doing, whatever the request said.
ENDPOINT_STATUSES = (401, 403, 404, 408, 409, 429)
STATUS_MEANINGS = {401: "refused the API key", 403: "refused the API key for this model",
                   404: "has no such path or model", 429: "kept rate-limiting"}


class ModelEndpointError(AgentError):
    """The model endpoint failed (see the module docstring): an infra error of the run."""


class PreflightError(ValueError):
    """The pre-flight call found the endpoint unusable: nothing was started."""


def is_endpoint_failure(exc: BaseException) -> bool:
    """Whether a failed SDK call is the endpoint's fault (unreachable, key, model, 429, 5xx)."""
    status = getattr(exc, "status_code", None)
    return status is None or status >= 500 or status in ENDPOINT_STATUSES


def failure_reason(exc: BaseException) -> str:
    """What went wrong with a call, in words (the server's status and message, or why no
    answer came)."""
    status = getattr(exc, "status_code", None)
    if status is None:
        return f"cannot be reached ({type(exc).__name__}: {exc})"
    meaning = STATUS_MEANINGS.get(status, "answered with an error")
    return f"{meaning} (HTTP {status}: {getattr(exc, 'message', exc)})"
