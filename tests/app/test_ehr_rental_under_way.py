"""EHR: a DME rental under way whose trial approval the desk recorded (a case's request on
file with `recorded: true`) reads Approved on the still-open order, with the trial's number
and dates, its Prior Auth item closed and its DME item open for the desk; the supplier's
adherence report is a chart document of the order."""
from __future__ import annotations

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.ehr_web import create_app
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_task_file

from .conftest import TEMPLATE_CACHE, TOKEN

TASK = load_task_file(TASKS_ROOT / "dme" / "dme-hard-04.yaml")


def test_a_recorded_trial_reads_approved_on_the_open_order(app_data_dir):
    app = create_app(AppConfig(data_dir=app_data_dir / "rental", token=TOKEN, testing=True, tasks_dir=TASKS_ROOT,
                               cache_dir=TEMPLATE_CACHE))
    client = app.test_client()
    headers = {"X-Bench-Token": TOKEN}
    assert client.post("/_bench/reset", json={"task": TASK.id, "now": TASK.now.isoformat()},
                       headers=headers).status_code == 200
    snapshot = client.get("/_bench/snapshot", headers=headers).get_json()
    ids = case_values(TASK)["ids"]
    order = ids["orders"]["svc"]
    [auth] = [a for a in snapshot["order_authorizations"] if a["order_id"] == order]
    assert (auth["status"], auth["start_date"], auth["end_date"]) == ("Approved", "2026-08-20", "2026-11-17")
    assert auth["auth_number"] and auth["reference_number"]
    items = {i["queue"]: i["status"] for i in snapshot["work_items"] if i["order_id"] == order}
    assert items == {"Prior Auth": "Auth Obtained", "DME": "New"}
    [report] = [d for d in snapshot["documents"] if d["id"] == ids["documents"]["adherence"]]
    assert (report["kind"], report["order_id"]) == ("PAP Adherence Report", order)
