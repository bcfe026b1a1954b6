"""Judge spec strings and the settings every model judge shares.

A spec names one model judge or, comma-separated, a jury:

    openai:gpt-5.4                                 OpenAI (OPENAI_API_KEY; OPENAI_BASE_URL optional)
    openai-compatible:http://host:8000/v1#qwen     any OpenAI-compatible server (vLLM, Ollama,
                                                   llama.cpp); OPENAI_COMPATIBLE_API_KEY if it wants one
    anthropic:claude-opus-4-6                      Anthropic (ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL optional)
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Mapping
from urllib.parse import urlparse

from admindesk.verifiers.judge import JudgeSpecError

Provider = Literal["openai", "openai-compatible", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "openai-compatible", "anthropic")
# The environment variable each provider's key is read from (openai-compatible: optional).
KEY_VARIABLES: dict[Provider, str] = {"openai": "OPENAI_API_KEY",
                                      "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
                                      "anthropic": "ANTHROPIC_API_KEY"}
CACHE_VARIABLE = "ADMINDESK_JUDGE_CACHE"


@dataclass(frozen=True)
class JudgeSpec:
    """One model judge: the provider, the model name, and the server (openai-compatible)."""

    provider: Provider
    model: str
    base_url: str | None = None

    @property
    def label(self) -> str:
        """The spec as written back (`openai-compatible:URL#MODEL`): names the judge everywhere."""
        if self.provider == "openai-compatible":
            return f"{self.provider}:{self.base_url}#{self.model}"
        return f"{self.provider}:{self.model}"


@dataclass(frozen=True)
class JudgeSettings:
    """How model judges are run: votes per judge, timeout and retries per call, the cache.

    `env` is where API keys and base URLs are read (the process environment by default).
    """

    votes: int = 3
    timeout: float = 60.0
    max_retries: int = 4
    cache_dir: Path | None = None
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def __post_init__(self) -> None:
        if self.votes < 1:
            raise JudgeSpecError(f"votes per judge must be at least 1, not {self.votes}")
        if self.timeout <= 0:
            raise JudgeSpecError(f"the judge timeout must be positive, not {self.timeout}")
        if self.max_retries < 0:
            raise JudgeSpecError(f"judge retries cannot be negative ({self.max_retries})")


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """$ADMINDESK_JUDGE_CACHE, else $XDG_CACHE_HOME/admindesk/judge, else ~/.cache/admindesk/judge."""
    env = os.environ if env is None else env
    if env.get(CACHE_VARIABLE):
        return Path(env[CACHE_VARIABLE])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "admindesk" / "judge"


def is_provider_spec(text: str) -> bool:
    """Whether `text` names model judges (every part starts with a provider) rather than module:attr."""
    parts = [part.strip() for part in text.split(",")]
    return any(part.partition(":")[0] in PROVIDERS for part in parts)


def parse_spec(text: str) -> JudgeSpec:
    """One judge from `provider:MODEL` or `openai-compatible:URL#MODEL`."""
    provider, _, rest = text.strip().partition(":")
    if provider not in PROVIDERS:
        raise JudgeSpecError(f"judge {text.strip()!r}: unknown provider {provider!r} "
                             f"(one of {', '.join(PROVIDERS)})")
    if provider == "openai-compatible":
        url, hash_sign, model = rest.rpartition("#")
        if not hash_sign or not model.strip():
            raise JudgeSpecError(f"judge {text.strip()!r}: write openai-compatible:URL#MODEL "
                                 "(e.g. openai-compatible:http://localhost:8000/v1#qwen)")
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise JudgeSpecError(f"judge {text.strip()!r}: {url!r} is not an http(s) URL")
        return JudgeSpec(provider=provider, model=model.strip(), base_url=url.rstrip("/"))
    if not rest.strip() or "#" in rest:
        raise JudgeSpecError(f"judge {text.strip()!r}: write {provider}:MODEL (e.g. "
                             f"{'anthropic:claude-opus-4-6' if provider == 'anthropic' else 'openai:gpt-5.4'})")
    return JudgeSpec(provider=provider, model=rest.strip())


def parse_specs(text: str) -> list[JudgeSpec]:
    """The judges of a comma-separated spec (a jury); each judge at most once."""
    parts = [part for part in text.split(",")]
    if any(not part.strip() for part in parts):
        raise JudgeSpecError(f"judge spec {text!r} has an empty entry between commas")
    specs = [parse_spec(part) for part in parts]
    labels = [spec.label for spec in specs]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise JudgeSpecError(f"judge spec {text!r} names {', '.join(repeated)} more than once "
                             "(raise --judge-votes for more votes from one judge)")
    return specs
