"""The fax `line_busy` interruption: a task that turns it on meets "Line busy - retrying" on
its first send (the carrier dials at once: a retry state with attempt count and next-retry
time, kept in the log), and the job goes through on the next look at it; without it, no job
ever retries."""
from __future__ import annotations

import pytest
import yaml

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.fax import create_app

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient
from .test_fax_support import send_fax, text


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    tasks = tmp_path_factory.mktemp("line-busy-tasks")
    for task_id, turned_on in (("busy-line", {"fax": ["line_busy"]}), ("quiet-line", {})):
        (tasks / f"{task_id}.yaml").write_text(yaml.safe_dump({"id": task_id, "interruptions": turned_on}))
    return create_app(AppConfig(data_dir=tmp_path_factory.mktemp("line-busy-data"), token=TOKEN, testing=True,
                                cache_dir=TEMPLATE_CACHE, tasks_dir=tasks))


def signed_in(app, task: str | None) -> FormClient:
    client = FormClient(app)
    body = {"task": task} if task else {}
    assert client.client.post("/_bench/reset", json=body, headers={"X-Bench-Token": TOKEN}).status_code == 200
    client.login()
    return client


def job_and_log(client, job_id: int) -> tuple[dict, list[dict]]:
    snapshot = client.snapshot()
    job = next(j for j in snapshot["outbound_faxes"] if j["id"] == job_id)
    return job, [e for e in snapshot["transmission_events"] if e["outbound_fax_id"] == job_id]


def test_the_first_send_meets_a_busy_line_then_goes_through_on_refresh(app):
    client = signed_in(app, "busy-line")
    job_id = send_fax(client)
    job, log = job_and_log(client, job_id)
    assert (job["status"], job["attempts"], job["completed_at"]) == ("Retrying", 1, None)
    assert [e["event"] for e in log] == ["Queued", "Dialing", "Line busy"]
    # The frozen clock is 2026-11-16 09:00: dialed at +12 s, busy at +32 s, retry 2 minutes later.
    assert job["next_attempt_at"] == "2026-11-16T09:02:32"
    assert "next retry at 11/16/2026 09:02:32" in log[-1]["detail"]
    # The sent draft's page and the drafts folder dial nothing: they show the job still retrying.
    draft_id = next(d["id"] for d in client.snapshot()["compose_drafts"] if d["outbound_fax_id"] == job_id)
    page = text(client.get(f"/drafts/{draft_id}"))
    assert "status <strong>Retrying</strong>" in page and "The line was busy" in page
    assert 'In progress <span class="count">1</span>' in text(client.get("/drafts"))

    page = text(client.get(f"/outbox/{job_id}"))
    job, log = job_and_log(client, job_id)
    assert (job["status"], job["attempts"], job["next_attempt_at"]) == ("Sent", 2, None)
    assert "Attempt 1 of 3 got a busy signal" in page  # the log keeps the busy signal
    assert [e["event"] for e in log] == ["Queued", "Dialing", "Line busy", "Dialing", "Sent"]
    assert log[3]["at"] == "2026-11-16T09:02:32" and log[3]["detail"].startswith("Attempt 2 of 3")
    assert "Line busy &mdash; retrying." not in page


def test_only_the_first_send_of_the_episode_is_busy(app):
    client = signed_in(app, "busy-line")
    first, second = send_fax(client), send_fax(client, recipient_name="Second Appeals Desk")
    snapshot = client.snapshot()
    status = {j["id"]: j["status"] for j in snapshot["outbound_faxes"]}
    assert (status[first], status[second]) == ("Retrying", "Sent")
    # Pages that dial nothing (the drafts folder) count it under Outbox > In progress.
    assert 'In progress <span class="count">1</span>' in text(client.get("/drafts"))
    client.get("/inbox")  # any look lets the retry go out
    assert job_and_log(client, first)[0]["status"] == "Sent"


@pytest.mark.parametrize("task", [None, "quiet-line"])
def test_without_the_interruption_no_send_ever_retries(app, task):
    client = signed_in(app, task)
    job_id = send_fax(client)
    page = text(client.get(f"/outbox/{job_id}"))
    job, log = job_and_log(client, job_id)
    assert (job["status"], job["attempts"]) == ("Sent", 1)
    assert [e["event"] for e in log] == ["Queued", "Dialing", "Sent"]
    assert "retrying" not in page.lower()


def test_a_reset_gives_the_busy_signal_again(app):
    client = signed_in(app, "busy-line")
    send_fax(client)
    client.get("/outbox")
    client = signed_in(app, "busy-line")
    job_id = send_fax(client)
    assert job_and_log(client, job_id)[0]["status"] == "Retrying"
