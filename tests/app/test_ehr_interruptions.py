"""EHR interruptions: the best-practice advisory and the chart lock appear exactly when the
task turns them on, must be answered, and their answers are rows."""
from __future__ import annotations

import pytest
import yaml
from flask import Flask
from sqlalchemy import select

from admindesk.envs import ehr_web
from admindesk.envs.common.factory import AppConfig
from admindesk.envs.ehr_web.models import Order

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient, query

HEADERS = {"X-Bench-Token": TOKEN}
TASKS = {"bpa": {"ehr_web": ["best_practice_alert"]}, "lock": {"ehr_web": ["chart_lock"]},
         "both": {"ehr_web": ["best_practice_alert", "chart_lock"]}, "quiet": {},
         "fax-only": {"fax": ["line_busy"]}}
MRN = "E1000449"


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Flask:
    tasks = tmp_path_factory.mktemp("ehr-interruption-tasks")
    for task_id, turned_on in TASKS.items():
        (tasks / f"{task_id}.yaml").write_text(yaml.safe_dump({"id": task_id, "interruptions": turned_on}))
    return ehr_web.create_app(AppConfig(data_dir=tmp_path_factory.mktemp("ehr-interruption-data"), token=TOKEN,
                                        testing=True, cache_dir=TEMPLATE_CACHE, tasks_dir=tasks))


def signed_in(app: Flask, task: str | None) -> FormClient:
    client = FormClient(app)
    response = client.client.post("/_bench/reset", json={"task": task} if task else {}, headers=HEADERS)
    assert response.status_code == 200, response.get_data(as_text=True)
    client.login()
    return client


def page(client: FormClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.get_data(as_text=True)


@pytest.mark.parametrize("task,bpa,lock", [("bpa", True, False), ("lock", False, True), ("both", True, True),
                                           ("quiet", False, False), ("fax-only", False, False), (None, False, False)])
def test_each_interruption_appears_only_when_the_task_turns_it_on(app, task, bpa, lock):
    client = signed_in(app, task)
    order = query(app, select(Order).where(Order.mrn == MRN).limit(1))[0]
    for url in (f"/patients/{MRN}/summary", f"/patients/{MRN}/orders", f"/orders/{order.id}"):
        html = page(client, url)
        assert ("Best Practice Advisory" in html) is bpa, url
        assert ("Chart in use by another user" in html) is lock, url
    assert "Best Practice Advisory" not in page(client, "/") and "Chart in use" not in page(client, "/")


def test_an_advisory_is_dismissed_only_with_a_reason_and_then_stays_away(app):
    client = signed_in(app, "bpa")
    refused = client.post(f"/patients/{MRN}/bpa", {"action": "dismiss", "reason": ""}, follow_redirects=True)
    assert "choose a reason" in refused.get_data(as_text=True)
    assert client.snapshot()["bpa_responses"] == []
    client.post(f"/patients/{MRN}/bpa", {"action": "dismiss", "reason": "Already addressed"})
    [row] = client.snapshot()["bpa_responses"]
    assert (row["mrn"], row["action"], row["reason"], row["username"]) == (MRN, "Dismissed", "Already addressed",
                                                                           "coordinator")
    assert "Best Practice Advisory" not in page(client, f"/patients/{MRN}/summary")
    other = query(app, select(Order.mrn).where(Order.mrn != MRN).limit(1))[0]
    assert "Best Practice Advisory" in page(client, f"/patients/{other}/summary")
    client.post(f"/patients/{other}/bpa", {"action": "acknowledge"})
    assert [r["action"] for r in client.snapshot()["bpa_responses"]] == ["Dismissed", "Acknowledged"]


def test_a_locked_chart_refuses_edits_until_taken_over(app):
    client = signed_in(app, "lock")
    refused = client.post(f"/patients/{MRN}/notes", {"text": "Called the payer."}, follow_redirects=True)
    assert "This chart is read-only" in refused.get_data(as_text=True)
    assert client.snapshot()["notes"] == []
    client.post(f"/patients/{MRN}/chart-lock", {"action": "take_over"})
    [event] = client.snapshot()["chart_lock_events"]
    assert event["action"] == "Took over" and event["locked_by"] and event["locked_by"] != "Jordan Ellis"
    assert "Chart in use" not in page(client, f"/patients/{MRN}/summary")
    client.post(f"/patients/{MRN}/notes", {"text": "Called the payer again."})
    assert [n["text"] for n in client.snapshot()["notes"]] == ["Called the payer again."]


def test_waiting_for_the_other_user_also_releases_the_chart_and_a_bad_answer_writes_nothing(app):
    client = signed_in(app, "lock")
    client.post(f"/patients/{MRN}/chart-lock", {"action": "steal"})
    assert client.snapshot()["chart_lock_events"] == []
    client.post(f"/patients/{MRN}/chart-lock", {"action": "wait"})
    assert [e["action"] for e in client.snapshot()["chart_lock_events"]] == ["Waited"]
    assert "Chart in use" not in page(client, f"/patients/{MRN}/summary")
