"""A model endpoint checked before a run starts anything, and one failing mid-run counted as
the harness's infra error, not the agent's failure; each provider spoken by a loopback HTTP
server (no browser, no apps)."""
from __future__ import annotations

import socket
import time
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from admindesk.harness.agents import make_agent
from admindesk.harness.agents.base import AgentError
from admindesk.harness.agents.endpoint import ModelEndpointError, PreflightError
from admindesk.harness.cli.main import main
from admindesk.harness.env.observation import Observation
from admindesk.harness.running.local import run_episode
from admindesk.harness.running.worker import EpisodeWorker
from admindesk.schema.task_model import Task
from tests.unit.fixtures.episodes import task_data
from tests.unit.protocol_servers import (
    ProtocolServer,
    anthropic_error,
    anthropic_model,
    chat_completion,
    json_reply,
    openai_error,
    openai_models,
)

CHAT = "/v1/chat/completions"


def observation(step: int = 0) -> Observation:
    return Observation(url="http://127.0.0.1:1/", tabs=[], active_tab=0, downloads=[], step=step)


def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture()
def server():
    with ProtocolServer() as running:
        yield running


def chat_agent(base_url: str, **options):
    return make_agent("openai-compatible", model="ui-tars-test", base_url=base_url, max_retries=1, timeout=5,
                      **options)


def test_preflight_passes_when_the_endpoint_serves_the_model(server):
    server.script("/v1/models", openai_models("other-model", "ui-tars-test"))
    chat_agent(server.url + "/v1").preflight()
    assert [r.method for r in server.requests_to("/v1/models")] == ["GET"]


def test_preflight_names_the_url_and_model_of_an_endpoint_that_is_down():
    url = closed_port_url()
    with pytest.raises(PreflightError) as caught:
        chat_agent(url).preflight()
    assert url in str(caught.value) and "'ui-tars-test'" in str(caught.value)
    assert "cannot be reached" in str(caught.value)


def test_preflight_says_the_key_was_refused_and_where_it_comes_from(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "wrong-key")
    server.script("/v1/models", openai_error(401, "Incorrect API key provided"))
    with pytest.raises(PreflightError, match=r"refused the API key \(HTTP 401.*\$OPENAI_API_KEY"):
        make_agent("openai-cua", model="computer-use-preview", base_url=server.url + "/v1").preflight()


def test_preflight_refuses_a_model_the_endpoint_does_not_serve(server):
    server.script("/v1/models", openai_models("Qwen2.5-VL-7B"))
    with pytest.raises(PreflightError, match=r"\(model 'ui-tars-test'\) does not know that model"):
        chat_agent(server.url + "/v1").preflight()


def test_preflight_asks_anthropic_for_the_model(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    server.script("/v1/models/claude-test", anthropic_model("claude-test"))
    server.script("/v1/models/claude-gone", anthropic_error(404, "model: claude-gone"))
    make_agent("anthropic-cu", model="claude-test", base_url=server.url).preflight()
    with pytest.raises(PreflightError, match="'claude-gone'.*does not know that model"):
        make_agent("anthropic-cu", model="claude-gone", base_url=server.url).preflight()


def test_an_endpoint_failing_mid_run_is_an_endpoint_error_naming_the_url(server):
    server.respond(CHAT, lambda request: openai_error(503, "overloaded"))
    agent = chat_agent(server.url + "/v1")
    agent.reset("Open the work queue")
    with pytest.raises(ModelEndpointError, match=rf"{server.url}/v1.*'ui-tars-test'.*HTTP 503"):
        agent.act(observation())
    assert len(server.requests_to(CHAT)) == 2  # the SDK's retry, then the error


def test_a_request_the_endpoint_rejects_stays_the_agents_error(server):
    server.script(CHAT, openai_error(400, "image too large"))
    agent = chat_agent(server.url + "/v1")
    agent.reset("Open the work queue")
    with pytest.raises(AgentError) as caught:
        agent.act(observation())
    assert not isinstance(caught.value, ModelEndpointError)


def test_temperature_and_seed_reach_the_request(server):
    server.script(CHAT, json_reply(chat_completion('{"thought": "t", "action": {"type": "wait", "seconds": 0}}')))
    agent = chat_agent(server.url + "/v1", temperature=0.7, seed=1234)
    agent.reset("Open the work queue")
    agent.act(observation())
    (request,) = server.requests_to(CHAT)
    assert request.body["temperature"] == 0.7 and request.body["seed"] == 1234


class _FakeEnv:
    """Just enough of an Env for an episode whose agent fails at its first call."""

    episode_over = False

    def reset(self, task):
        return observation(), {}


def test_an_endpoint_failure_ends_the_episode_as_an_infra_error_not_a_failure(server, tmp_path):
    server.respond(CHAT, lambda request: openai_error(502, "bad gateway"))
    task = Task.model_validate(task_data())
    outcome = run_episode(_FakeEnv(), chat_agent(server.url + "/v1"), task, tmp_path / "episode", 0)
    assert outcome.score is None and outcome.summary.result == "error"
    assert outcome.summary.error.startswith("ModelEndpointError:")
    # The worker tells the driver it is an infra error (retried on a fresh worker, never scored).
    healthy = SimpleNamespace(env=SimpleNamespace(services=SimpleNamespace(processes={}),
                                                  apps_restarted_since_reset=lambda: [],
                                                  browser=SimpleNamespace(chromium=SimpleNamespace(
                                                      is_connected=lambda: True))))
    infra = EpisodeWorker._infra_problem(healthy, outcome.summary.error)
    assert infra is not None and infra.startswith("ModelEndpointError") and server.url in infra


def test_run_refuses_a_down_endpoint_before_any_app_starts(tmp_path):
    url = closed_port_url()
    started = time.monotonic()
    result = CliRunner().invoke(main, ["run", "--agent", "openai-compatible", "--model", "ui-tars-test",
                                       "--base-url", url, "--tasks", "pa-easy-01", "--out", str(tmp_path / "run")])
    assert result.exit_code != 0 and url in result.output and "'ui-tars-test'" in result.output
    assert not (tmp_path / "run").exists() and time.monotonic() - started < 20
