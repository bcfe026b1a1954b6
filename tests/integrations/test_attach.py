"""`Env(attach=...)` drives apps that `admindesk serve` started, and leaves them running."""
from __future__ import annotations

import pytest

from admindesk.harness.env.attach import AttachSpec
from admindesk.harness.env.environment import Env
from admindesk.harness.env.services import ServiceError, bench_call

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_an_env_attached_to_served_apps_runs_an_episode_and_leaves_them_running(served_apps):
    spec = AttachSpec(token=served_apps.token, ports=served_apps.ports, bench_ports=served_apps.bench_ports)
    with Env("axtree", attach=spec) as env:
        assert sorted(env.services.ports.items()) == sorted(served_apps.ports.items())
        obs, info = env.reset("pa-easy-09")
        assert info["apps"]["ehr_web"].endswith(f":{served_apps.ports['ehr_web']}/")
        assert "Sign in" not in (obs.axtree or "")  # the task starts signed in
        env.step({"type": "done", "answer": "nothing done"})
        record = env.record()
    assert record.task_id == "pa-easy-09"
    assert sorted(record.final_snapshots) == sorted(served_apps.ports)
    # The Env is closed; the apps it attached to are not its to stop.
    for port in served_apps.bench_ports.values():
        assert bench_call(port, served_apps.token, "GET", "/_bench/health")


def test_attaching_with_a_wrong_token_names_the_app_and_the_token(served_apps):
    with pytest.raises(ServiceError, match="token"):
        Env("axtree", attach=AttachSpec(token="not-the-token", ports=served_apps.ports,
                                        bench_ports=served_apps.bench_ports))


def test_an_attach_spec_refuses_unknown_apps_and_bad_ports():
    with pytest.raises(ValueError, match="unknown app"):
        AttachSpec(token="t", ports={"billing": 5000}, bench_ports={"billing": 5001})
    with pytest.raises(ValueError, match="1..65535"):
        AttachSpec(token="t", ports={"fax": 0}, bench_ports={"fax": 5001})
    with pytest.raises(ValueError, match="1..65535"):
        AttachSpec(token="t", ports={"fax": 5000}, bench_ports={"fax": 70000})
    with pytest.raises(ValueError, match="token"):
        AttachSpec(token="", ports={"fax": 5000}, bench_ports={"fax": 5001})
    with pytest.raises(ValueError, match="bench port"):
        AttachSpec(token="t", ports={"fax": 5000, "ehr_web": 5002}, bench_ports={"fax": 5001})


def test_an_attached_app_that_did_not_answer_its_reset_is_asked_again_not_restarted(served_apps):
    from concurrent.futures import Future

    from admindesk.harness.env.attach import attached_services
    from admindesk.harness.env.services import AppUnreachable

    services = attached_services(AttachSpec(token=served_apps.token, ports=served_apps.ports,
                                            bench_ports=served_apps.bench_ports))
    try:
        services.reset_futures()  # the reset request the retry repeats
        timed_out: Future = Future()
        timed_out.set_exception(AppUnreachable("POST /_bench/reset: timed out"))
        replies = services.await_resets({"fax": timed_out})
        assert replies["fax"]["ok"] is True
        assert services.processes["fax"].starts == 0  # nothing here starts or stops served apps
    finally:
        services.close()
