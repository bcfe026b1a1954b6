"""Appeals a case puts on file, in the real portals: each portal holds its own payers' as
its own rows (with decision letters and reprocessed claims), lists them on its appeals
page, and its filing rules apply to the next filing: a level 2 on a decided level 1 is
accepted, a level 2 on a level 1 still in review is refused and writes nothing."""
from __future__ import annotations

import importlib
import io
import shutil
from datetime import date

import pytest
import yaml
from pypdf import PdfReader

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.common.factory import AppConfig
from admindesk.envs.world import build_world
from admindesk.envs.world.cases import build_case
from admindesk.schema.task_model import load_task_file
from tests.cases.examples import TASKS_DIR

from .conftest import TOKEN, FormClient, case_clients

TASK_ID = "case-appeals-on-file"
TASK_FILE = TASKS_DIR / "appeals-on-file.yaml"
HEADERS = {"X-Bench-Token": TOKEN}
PORTALS = {"payer_portal_a": "PYR-NWH", "payer_portal_b": "PYR-KMH"}
LETTER_PDF = render_pdf("Appeal letter", [("Level", "2")], "Please review the level 1 decision again.")


@pytest.fixture(scope="module")
def records():
    task = load_task_file(TASK_FILE)
    return build_case(build_world(), task.id, task.case)


@pytest.fixture(scope="module")
def refs(records):
    """Case claim key -> (claim number, reference of its appeal on file)."""
    task = load_task_file(TASK_FILE)
    numbers = {spec.key: claim.claim_number for spec, claim in zip(task.case.claims, records.payer.claims)}
    by_claim = {appeal.claim_number: appeal.reference for appeal in records.payer.appeals}
    return {key: (number, by_claim[number]) for key, number in numbers.items()}


@pytest.fixture(scope="module")
def clients(app_data_dir):
    return case_clients(app_data_dir / "case-appeals", PORTALS, TASKS_DIR)


def test_each_portal_holds_and_lists_only_its_payers_appeals(clients, records):
    for name, payer_id in PORTALS.items():
        client = clients[name]
        snap = client.start_task(TASK_ID)
        ours = {a.reference for a in records.payer.appeals if a.payer_id == payer_id}
        theirs = {a.reference for a in records.payer.appeals if a.payer_id != payer_id}
        key = "reference_number" if name == "payer_portal_a" else "appeal_id"
        held = {row[key] for row in snap["appeals"]}
        assert ours <= held and not theirs & held, name
        member_id = next(c.member_id for c in records.payer.coverages if c.payer_id == payer_id)
        page = client.get("/appeals" if name == "payer_portal_a" else f"/appeals?q={member_id}").get_data(as_text=True)
        assert all(reference in page for reference in ours), name
        assert not any(reference in page for reference in theirs), name


def test_portal_a_rows_are_what_its_decision_code_writes(clients, refs):
    snap = clients["payer_portal_a"].start_task(TASK_ID)
    appeals = {a["reference_number"]: a for a in snap["appeals"]}
    upheld, open_, overturned = (appeals[refs[key][1]] for key in ("a-mri", "a-knee", "a-therapy"))
    assert (upheld["status"], upheld["decision"], upheld["level"], upheld["appeal_type"]) == (
        "Decided", "Upheld", "1", "Formal Appeal")
    assert upheld["decided_at"].startswith("2026-10-20") and "six weeks" in upheld["decision_reason"]
    assert (open_["status"], open_["decision"], open_["reason"]) == ("In Review", None, "Authorization was on file")
    letters = {l["letter_number"]: l for l in snap["letters"]}
    letter = letters[upheld["decision_letter_number"]]
    assert (letter["category"], letter["appeal_reference"]) == ("Appeal Decision", upheld["reference_number"])
    assert "Next level:" in letter["body"]  # the payer's own letter offers the next level
    pdf = clients["payer_portal_a"].get(f"/correspondence/{letter['letter_number']}/pdf")
    assert pdf.status_code == 200 and "UPHELD" in PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()
    # The overturned CO-16 denial was reprocessed: a remittance for the appeal, the claim paid.
    claim = next(c for c in snap["claims"] if c["claim_number"] == refs["a-therapy"][0])
    (reprocessed,) = [r for r in snap["remittances"] if r["appeal_reference"] == overturned["reference_number"]]
    assert (claim["status"], overturned["decision"]) == ("Paid", "Overturned")
    assert reprocessed["kind"] == "Reprocessed" and reprocessed["paid_on"] == "2026-10-12"
    assert claim["paid_amount"] == reprocessed["paid_amount"] > 0


def test_portal_b_rows_are_what_its_decision_code_writes(clients, refs):
    client = clients["payer_portal_b"]
    snap = client.start_task(TASK_ID)
    appeals = {a["appeal_id"]: a for a in snap["appeals"]}
    upheld, open_, partial = (appeals[refs[key][1]] for key in ("b-mri", "b-knee", "b-therapy"))
    assert (upheld["status"], upheld["decision"], upheld["decided_on"]) == ("Decided", "Upheld", "2026-10-26")
    assert (open_["status"], open_["decision_due"]) == ("In Review", "2027-01-01")
    letter = next(l for l in snap["correspondence"] if l["letter_id"] == upheld["letter_id"])
    assert (letter["letter_type"], letter["related_id"]) == ("Appeal decision", upheld["appeal_id"])
    pdf = client.get(f"/correspondence/{letter['letter_id']}.pdf")
    assert pdf.status_code == 200 and "level 2 appeal" in PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()
    claim = next(c for c in snap["claims"] if c["claim_number"] == refs["b-therapy"][0])
    lines = sorted((l["line_no"], l["paid"]) for l in snap["claim_lines"] if l["claim_number"] == claim["claim_number"])
    assert partial["decision"] == "Partially overturned" and claim["status"] == "Partially Paid"
    assert lines == [(1, 156.0), (2, 0.0)]  # Keystone pays 60% of billed on the overturned line only
    assert any(e["eob_id"] == f"RPR-{partial['appeal_id']}" for e in snap["explanations_of_benefits"])


def _level_2_a(client, claim_number):
    data = {"appeal_type": "Formal Appeal", "level": "2", "reason": "Medical necessity",
            "contact_name": "Jordan Ellis", "contact_phone": "717-555-0100", "letter_text": "Second-level appeal."}
    return client.post(f"/appeals/new?claim_number={claim_number}", data, content_type="multipart/form-data")


def _level_2_b(client, snap, claim_number):
    claim = next(c for c in snap["claims"] if c["claim_number"] == claim_number)
    data = {"level": "2", "kind": "Formal appeal", "appellant_name": "Jordan Ellis",
            "appellant_relationship": "Billing office staff", "claim_number": claim_number,
            "service_date": _keystone_date(claim["service_date"]), "billed_amount": f"{claim['billed_amount']:.2f}",
            "reason_category": "Medical necessity", "requested_outcome": "Overturn the denial and pay the claim",
            "explanation": "The notes document eight weeks of failed therapy before the study.", "attestation": "y",
            "document_type_1": "Letter of medical necessity",
            "attachment_1": (io.BytesIO(LETTER_PDF), "letter.pdf"), "document_type_2": "Clinical notes"}
    return client.post("/appeals/new", data, content_type="multipart/form-data")


def _keystone_date(iso: str) -> str:
    return date.fromisoformat(iso).strftime("%d-%b-%Y")


def test_a_level_2_follows_a_decided_level_1_and_not_one_in_review(clients, refs):
    client = clients["payer_portal_a"]
    client.start_task(TASK_ID)
    refused = _level_2_a(client, refs["a-knee"][0])
    assert refused.status_code == 422
    assert f"appeal {refs['a-knee'][1]} is still in review" in refused.get_data(as_text=True)
    assert len(client.snapshot()["appeals"]) == 3  # nothing written
    assert _level_2_a(client, refs["a-mri"][0]).status_code == 302
    (filed,) = [a for a in client.snapshot()["appeals"] if a["level"] == "2"]
    assert (filed["claim_number"], filed["prior_reference"]) == (refs["a-mri"][0], refs["a-mri"][1])

    client = clients["payer_portal_b"]
    snap = client.start_task(TASK_ID)
    before = len(snap["appeals"])
    refused = _level_2_b(client, snap, refs["b-knee"][0])
    assert refused.status_code == 422
    assert f"Appeal {refs['b-knee'][1]} (level 1) is still in review" in refused.get_data(as_text=True)
    assert len(client.snapshot()["appeals"]) == before
    assert _level_2_b(client, snap, refs["b-mri"][0]).status_code == 302
    (filed,) = [a for a in client.snapshot()["appeals"] if a["submitted_by"] == "coordinator"]
    assert (filed["claim_number"], filed["level"], filed["prior_appeal_id"]) == (refs["b-mri"][0], "2",
                                                                                  refs["b-mri"][1])


def _with(edit):
    data = yaml.safe_load(TASK_FILE.read_text())
    data["id"] = "case-appeals-bad"
    edit(data["case"]["payer_history"]["appeals"])
    return data


@pytest.mark.parametrize("edit,message", [
    (lambda appeals: appeals[0].update(decission="upheld"), "case.payer_history.appeals.0.decission: Extra inputs"),
    (lambda appeals: appeals.append({"key": "l2", "claim": "a-knee", "level": 2, "kind": "formal",
                                     "filed_on": "2026-11-01", "status": "in_review"}),
     "payer_history.appeals.6.level: a level 2 appeal needs a decided level 1 appeal on claim 'a-knee'"),
    (lambda appeals: appeals[1].update(claim="a-hip"), "payer_history.appeals.1.claim: no 'a-hip' in this case"),
    (lambda appeals: appeals[0].update(filed_on="2027-03-01", decided_on="2027-03-10"),
     "case.payer_history.appeals.0.filed_on: is after the appeal deadline"),
    (lambda appeals: appeals[0].update(decided_on="2026-09-01"), "decided_on is before filed_on"),
])
def test_a_bad_appeals_section_is_a_400_naming_the_file_and_field(tmp_path, clients, edit, message):
    world_template = clients["payer_portal_a"].app.extensions["admindesk"].template
    tasks, cache = tmp_path / "tasks", tmp_path / "cache"
    tasks.mkdir()
    cache.mkdir()
    shutil.copy(world_template, cache / world_template.name)
    path = tasks / "bad.yaml"
    path.write_text(yaml.safe_dump(_with(edit), sort_keys=False))
    create_app = importlib.import_module("admindesk.envs.payer_portal_a").create_app
    client = FormClient(create_app(AppConfig(data_dir=tmp_path / "data", token=TOKEN, testing=True,
                                             cache_dir=cache, tasks_dir=tasks)))
    response = client.client.post("/_bench/reset", json={"task": "case-appeals-bad"}, headers=HEADERS)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert str(path) in error and message in error, error
    assert sorted(p.name for p in cache.iterdir()) == [world_template.name]  # nothing half-built
