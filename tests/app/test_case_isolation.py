"""Per-task cases on the real apps: a reset naming a task gives the world + that task's
case (and raw seed rows) and nothing of any other task; the apps agree on the case."""
from __future__ import annotations

import hashlib
import importlib
import json

import pytest

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.world import build_world
from admindesk.envs.world.cases import build_case
from admindesk.schema.task_model import load_tasks
from tests.cases.examples import EXAMPLE_TASK_IDS, TASKS_DIR

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient

APPS = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
HEADERS = {"X-Bench-Token": TOKEN}


@pytest.fixture(scope="module")
def clients(app_data_dir):
    def make(name):
        create_app = importlib.import_module(f"admindesk.envs.{name}").create_app
        return FormClient(create_app(AppConfig(data_dir=app_data_dir / f"cases-{name}", token=TOKEN, testing=True,
                                               cache_dir=TEMPLATE_CACHE, tasks_dir=TASKS_DIR)))
    return {name: make(name) for name in APPS}


@pytest.fixture(scope="module")
def cases():
    world = build_world()
    return {task.id: build_case(world, task.id, task.case) for task in load_tasks(TASKS_DIR)}


def reset(client, task=None, now=None):
    body = {key: value for key, value in (("task", task), ("now", now)) if value is not None}
    return client.client.post("/_bench/reset", json=body, headers=HEADERS)


def snapshot_bytes(client) -> bytes:
    return client.client.get("/_bench/snapshot", headers=HEADERS).data


def case_ids(records) -> set[str]:
    """Ids a case's rows carry, whichever app holds them."""
    ids = set()
    for view in (records.chart, records.payer):
        ids |= {p.mrn for p in view.patients} | {c.member_id for c in view.coverages}
        ids |= {o.id for o in view.orders} | {d.id for d in view.documents} | {f.id for f in view.faxes}
        ids |= {c.claim_number for c in view.claims} | {a.case_number for a in view.authorizations}
    return ids


def test_each_task_sees_its_own_case_and_no_other_tasks(clients, cases):
    for task_id in EXAMPLE_TASK_IDS:
        text = {}
        for name, client in clients.items():
            assert reset(client, task_id).status_code == 200
            text[name] = snapshot_bytes(client).decode()
        everything = "".join(text.values())
        assert all(value in everything for value in case_ids(cases[task_id])), task_id
        for other in EXAMPLE_TASK_IDS:
            if other != task_id:
                leaked = [value for value in case_ids(cases[other]) if value in everything]
                assert not leaked, (task_id, other, leaked)
    bare = "".join(snapshot_bytes(c).decode() for c in clients.values() if reset(c).status_code == 200)
    assert not [value for records in cases.values() for value in case_ids(records) if value in bare]


def test_the_same_task_reset_twice_gives_the_same_snapshot_bytes(clients):
    for name, client in clients.items():
        reset(client, "case-pa-duplicate", "2026-11-16T09:00:00")
        first = snapshot_bytes(client)
        reset(client, "case-lookalike")
        reset(client, "case-pa-duplicate", "2026-11-16T09:00:00")
        assert snapshot_bytes(client) == first, name


def snapshots_for(clients, task_id) -> dict[str, dict]:
    for client in clients.values():
        assert reset(client, task_id).status_code == 200
    return {name: client.snapshot() for name, client in clients.items()}


def test_member_id_name_and_dob_agree_in_the_ehr_and_both_portals(clients, cases):
    records = cases["case-coverage-termed"]
    patient = records.chart.patients[0]
    snaps = snapshots_for(clients, "case-coverage-termed")
    (ehr_patient,) = [p for p in snaps["ehr_web"]["patients"] if p["mrn"] == patient.mrn]
    ehr_coverages = {c["payer_id"]: c for c in snaps["ehr_web"]["coverages"] if c["mrn"] == patient.mrn}
    (member,) = [m for m in snaps["payer_portal_a"]["members"] if m["member_id"] == ehr_coverages["PYR-CSH"]["member_id"]]
    (subscriber,) = [s for s in snaps["payer_portal_b"]["subscribers"]
                     if s["subscriber_id"] == ehr_coverages["PYR-KMH"]["member_id"]]
    for row in (member, subscriber):
        assert (row["first_name"], row["last_name"], row["dob"]) == (ehr_patient["first_name"],
                                                                     ehr_patient["last_name"], ehr_patient["dob"])
    # Termed at the payer, still active in the EHR: the case's point.
    assert ehr_coverages["PYR-CSH"]["termination_date"] is None and member["termination"] == "2026-09-30"


def test_service_code_and_claim_agree_between_the_ehr_and_the_payer(clients, cases):
    snaps = snapshots_for(clients, "case-denial-auth-on-file")
    (claim,) = cases["case-denial-auth-on-file"].chart.claims
    ehr_lines = [l for l in snaps["ehr_web"]["claim_lines"] if l["claim_number"] == claim.claim_number]
    portal_lines = [l for l in snaps["payer_portal_a"]["claim_lines"] if l["claim_number"] == claim.claim_number]
    (order,) = [o for o in snaps["ehr_web"]["orders"] if o["id"] == claim.order_id]
    assert [l["code"] for l in ehr_lines] == [l["code"] for l in portal_lines] == [order["code"]] == ["72148"]
    (request,) = [r for r in snaps["payer_portal_a"]["pa_requests"] if r["member_id"] == claim.member_id]
    (portal_claim,) = [c for c in snaps["payer_portal_a"]["claims"] if c["claim_number"] == claim.claim_number]
    assert request["status"] == "Approved" and request["auth_number"] and portal_claim["auth_number"] is None

    snaps = snapshots_for(clients, "case-pa-duplicate")
    (order,) = cases["case-pa-duplicate"].chart.orders
    (ehr_order,) = [o for o in snaps["ehr_web"]["orders"] if o["id"] == order.id]
    (precert,) = [r for r in snaps["payer_portal_b"]["precert_requests"] if r["reference_number"].startswith("KM-P-")
                  and r["reference_number"][8] == "0"]  # a case's serial starts with 0, the world's never
    assert precert["service_code"] == ehr_order["code"] == "73721"
    (fax,) = [f for f in snaps["fax"]["inbound_faxes"] if f["id"] == cases["case-pa-duplicate"].chart.faxes[0].id]
    pages = [p["text"] for p in snaps["fax"]["inbound_fax_pages"] if p["fax_id"] == fax["id"]]
    assert any(f"Authorization number: {precert['authorization_number']}" in text for text in pages)


def test_document_hash_is_the_hash_of_the_pdf_the_ehr_serves(clients, cases):
    client = clients["ehr_web"]
    reset(client, "case-dme-cpap-stale")
    client.login()
    rows = {d["id"]: d for d in client.snapshot()["documents"]}
    for document in cases["case-dme-cpap-stale"].chart.documents:
        response = client.get(f"/documents/{document.id}/download")
        assert response.status_code == 200
        assert hashlib.sha256(response.data).hexdigest() == rows[document.id]["sha256"]
        assert b"%PDF" == response.data[:4]


def test_raw_seed_rows_exist_only_in_their_tasks_episodes(clients):
    client = clients["ehr_web"]
    marker = "Raw seed row of case-lookalike."
    reset(client, "case-lookalike")
    assert marker in [n["text"] for n in client.snapshot()["notes"]]
    for task in ("case-pa-shortfall", None):
        reset(client, task)
        assert marker not in json.dumps(client.snapshot()["notes"])


def test_a_task_that_does_not_touch_an_app_reuses_the_world_template(clients):
    kit = clients["fax"].app.extensions["admindesk"]
    assert kit.task_templates.template_for("case-pa-shortfall") == kit.template
    assert kit.task_templates.template_for("case-pa-duplicate") != kit.template


@pytest.mark.parametrize("body,message", [({"task": "no-such-task"}, "unknown task 'no-such-task'"),
                                          ({"task": 7}, "'task' must be a task id")])
def test_an_unknown_task_is_a_clear_400(clients, body, message):
    response = clients["fax"].client.post("/_bench/reset", json=body, headers=HEADERS)
    assert response.status_code == 400 and message in response.get_json()["error"]


@pytest.mark.parametrize("body,status", [({"task": "case-pa-shortfall"}, 200), ({"task": "no-such-task"}, 400),
                                         ({}, 400), ({"task": 7}, 400)])
def test_prepare_builds_a_tasks_template_without_touching_the_episode(clients, body, status):
    ehr = clients["ehr_web"]
    assert reset(ehr).status_code == 200
    before = ehr.snapshot()
    response = ehr.client.post("/_bench/prepare", json=body, headers=HEADERS)
    assert response.status_code == status, response.get_data(as_text=True)
    assert ehr.snapshot() == before  # preparing changes nothing the agent sees
    if status == 200:
        template = ehr.app.extensions["admindesk"].task_templates.template_for(body["task"])
        assert template.exists() and template != ehr.app.extensions["admindesk"].template
