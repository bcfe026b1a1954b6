"""EHR pages: login, dashboard, patient search, every chart tab, billing, audit, determinism."""
from __future__ import annotations

import pytest
from markupsafe import escape
from sqlalchemy import select

from admindesk.envs.ehr_web import SPEC, create_app
from admindesk.envs.ehr_web.models import Coverage, Document, Encounter, Medication, Order, Patient, Problem
from admindesk.envs.ehr_web.models_work import Claim, Remittance
from admindesk.envs.ehr_web.vocab import QUEUES

from .conftest import FormClient, build_app, endpoint_audit_rows as audit_rows, query


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def first(app, stmt):
    return query(app, stmt.limit(1))[0]


def text(response) -> str:
    return response.get_data(as_text=True)


def test_login_required_everywhere(app):
    client = FormClient(app)
    client.reset()
    for url in ("/", "/my-items", "/patients", "/patients/E1000449/summary", "/orders/ORD-1000005",
                "/documents/DOC-2000007/download", "/claims/X", "/queues/prior-auth", "/queues/items/1"):
        response = client.get(url)
        assert response.status_code == 302 and "/login" in response.location, url


def test_login_page_and_bad_password(app):
    client = FormClient(app)
    client.reset()
    assert "SVH Chart" in text(client.get("/login"))
    response = client.login(password="wrong")
    assert response.status_code == 401 and escape(SPEC.messages["login_incorrect"]) in text(response)


def test_csrf_is_enforced(client):
    order = "ORD-1000005"
    response = client.client.post(f"/orders/{order}/comments", data={"text": "no token"})
    assert response.status_code == 400 and SPEC.messages["form_expired_title"] in text(response)
    assert client.snapshot()["notes"] == []


def test_dashboard_counts_and_navigation(client):
    page = text(client.get("/"))
    for label in ("Prior Auth queue", "Denials queue", "DME queue", "Patient Search", "My Items"):
        assert label in page
    assert 'href="/queues/prior-auth?assignee=me"' in page
    items = client.snapshot()["work_items"]
    cards = page.split('<div class="card">')[1:]
    assert len(cards) == len(QUEUES)
    for queue, card in zip(QUEUES.values(), cards):
        open_items = [r for r in items if r["queue"] == queue.name and r["status"] not in queue.closed_statuses]
        due = [r for r in open_items if r["due_date"] <= "2026-11-16"]
        assert f"{queue.name} queue" in card and f'<div class="big">{len(open_items)}</div>' in card
        assert f"Assigned to me: {sum(r['assignee'] == 'coordinator' for r in open_items)}<" in card
        assert f"Unassigned: {sum(r['assignee'] is None for r in open_items)}<" in card
        assert f"Due today or overdue: {len(due)}<" in card
    assert audit_rows(client, "home.dashboard")[-1]["action"] == "view_dashboard"


def test_snapshot_has_the_world_and_is_deterministic(client):
    snapshot = client.snapshot()
    assert len(snapshot["patients"]) >= 300
    assert {"coverages", "orders", "order_authorizations", "documents", "claims", "remittances", "work_items",
            "notes", "claim_adjustments"} <= set(snapshot)
    assert {row["status"] for row in snapshot["order_authorizations"]} >= {"Not Started", "Approved",
                                                                         "No Auth Required", "Submitted - Pending"}
    client.reset()
    first_bytes = client.client.get("/_bench/snapshot", headers={"X-Bench-Token": "test-bench-token"}).data
    client.reset()
    assert client.client.get("/_bench/snapshot", headers={"X-Bench-Token": "test-bench-token"}).data == first_bytes


def test_patient_search_by_name_mrn_and_dob(app, client):
    patient = first(app, select(Patient).order_by(Patient.mrn))
    by_name = text(client.get(f"/patients?search=1&name={patient.last_name}, {patient.first_name}"))
    assert patient.mrn in by_name and f"/patients/{patient.mrn}/summary" in by_name
    assert patient.mrn in text(client.get(f"/patients?search=1&mrn={patient.mrn}"))
    by_dob = text(client.get(f"/patients?search=1&dob={patient.dob:%m/%d/%Y}"))
    assert patient.mrn in by_dob
    assert audit_rows(client, "patients.search")[-1]["action"] == "search_patients"


def test_patient_search_sorts_and_pages(client):
    page = text(client.get("/patients?search=1&name=a&sort=mrn&dir=desc"))
    assert "Viewing page 1 of " in page and "Next page" in page
    page2 = text(client.get("/patients?search=1&name=a&sort=mrn&dir=desc&page=2"))
    assert "Viewing page 2 of " in page2


@pytest.mark.parametrize("args, message", [
    ("dob=13/45/2000", "is not a valid date"),
    ("mrn=12-AB", "Enter an MRN like E1000449"),
    ("name=&mrn=&dob=", "Enter a name, MRN or date of birth"),
    ("name=" + "x" * 81, "Names are limited to 80 characters"),
])
def test_patient_search_bad_input(client, args, message):
    response = client.get(f"/patients?search=1&{args}")
    assert response.status_code == 422 and message in text(response)


def test_search_escapes_user_text(client):
    page = text(client.get("/patients?search=1&name=<script>alert(1)</script>"))
    assert "<script>alert(1)" not in page and "&lt;script&gt;" in page


def test_chart_root_opens_summary(client):
    response = client.get("/patients/E1000449")
    assert response.status_code == 302 and response.location.endswith("/patients/E1000449/summary")
    assert client.get("/patients/NOPE").status_code == 404


def test_chart_tabs_show_the_patients_records(app, client):
    patient = first(app, select(Patient).join(Claim, Claim.mrn == Patient.mrn).order_by(Patient.mrn))
    mrn = patient.mrn
    coverage = first(app, select(Coverage).where(Coverage.mrn == mrn))
    problem = first(app, select(Problem).where(Problem.mrn == mrn))
    encounter = first(app, select(Encounter).where(Encounter.mrn == mrn))
    document = first(app, select(Document).where(Document.mrn == mrn))
    claim = first(app, select(Claim).where(Claim.mrn == mrn))
    order = first(app, select(Order).where(Order.mrn == mrn))
    expected = {"summary": patient.allergies, "coverage": coverage.member_id, "problems": problem.icd10_code,
                "orders": order.id, "encounters": encounter.reason, "documents": document.file_name.split("_")[0],
                "billing": claim.claim_number, "notes": "Staff notes"}
    for tab, needle in expected.items():
        page = text(client.get(f"/patients/{mrn}/{tab}"))
        assert patient.last_name in page and patient.mrn in page, tab
        assert needle in page, tab
        assert 'aria-current="page">' in page
    rows = [r for r in client.snapshot()["audit_events"] if r["record_type"] == "patient" and r["record_id"] == mrn]
    assert [r["tab"] for r in rows] == list(expected)


def test_medications_tab_lists_derived_medications(app, client):
    medication = first(app, select(Medication).order_by(Medication.id))
    page = text(client.get(f"/patients/{medication.mrn}/medications"))
    assert medication.name in page and medication.sig in page


def test_coverage_tab_marks_terminated_coverage_inactive(app, client):
    ended = first(app, select(Coverage).where(Coverage.termination_date.is_not(None)))
    page = text(client.get(f"/patients/{ended.mrn}/coverage"))
    assert ended.member_id in page and "Terminated" in page


def test_claim_detail_and_remittance_show_codes_and_deadline(app, client):
    claim = first(app, select(Claim).join(Remittance).where(Claim.status == "Denied").order_by(Claim.claim_number))
    page = text(client.get(f"/claims/{claim.claim_number}"))
    assert "Denial" in page and "Appeal deadline" in page and "CO-" in page
    era = text(client.get(f"/claims/{claim.claim_number}/remittance"))
    assert "Remittance advice (EOB)" in era and "Code glossary" in era
    events = client.snapshot()["audit_events"]
    assert any(e["record_type"] == "claim" and e["record_id"] == claim.claim_number and e["tab"] == "billing"
               for e in events)
    assert any(e["record_type"] == "remittance" and e["detail"]["claim_number"] == claim.claim_number for e in events)


def test_the_remittance_page_logs_its_claim_as_seen(app, client):
    claim = first(app, select(Claim).join(Remittance).where(Claim.status == "Denied").order_by(Claim.claim_number))
    client.get(f"/claims/{claim.claim_number}/remittance")
    era_view, claim_view = client.snapshot()["audit_events"][-2:]
    assert era_view["record_type"] == "remittance"
    # The EOB repeats the claim's lines and denial codes: reading it is reading the claim.
    assert (claim_view["action"], claim_view["record_type"], claim_view["record_id"]) == \
        ("view", "claim", claim.claim_number)
    assert claim_view["detail"] == {"shown_on": "remittance"}


def test_remittance_of_pending_claim_redirects_with_message(app, client):
    claim = first(app, select(Claim).where(Claim.status == "Pending"))
    response = client.get(f"/claims/{claim.claim_number}/remittance", follow_redirects=True)
    assert "No remittance has been received" in text(response)


def test_claim_note_added_and_validated(app, client):
    claim = first(app, select(Claim).order_by(Claim.claim_number))
    url = f"/claims/{claim.claim_number}/notes"
    bad = client.post(url, {"text": "   "})
    assert bad.status_code == 422 and "Enter the note text." in text(bad)
    too_long = client.post(url, {"text": "x" * 4001})
    assert too_long.status_code == 422 and "limited to 4000 characters" in text(too_long)
    assert client.snapshot()["notes"] == []
    client.post(url, {"text": "Called payer <b>re</b> denial"})
    notes = client.snapshot()["notes"]
    assert [(n["subject_type"], n["subject_id"], n["author"]) for n in notes] == [("claim", claim.claim_number,
                                                                                   "coordinator")]
    page = text(client.get(f"/claims/{claim.claim_number}"))
    assert "Called payer &lt;b&gt;re&lt;/b&gt; denial" in page


def test_patient_note_listed_on_staff_notes_tab(client):
    bad = client.post("/patients/E1000449/notes", {"text": ""})
    assert bad.status_code == 422 and client.snapshot()["notes"] == []
    client.post("/patients/E1000449/notes", {"text": "Patient prefers phone calls."})
    page = text(client.get("/patients/E1000449/notes"))
    assert "Patient prefers phone calls." in page and "Jordan Ellis" in page
    note = client.snapshot()["notes"][0]
    assert note["subject_type"] == "patient" and note["created_at"] == "2026-11-16T09:00:00"


def test_unknown_records_are_404(client):
    for url in ("/orders/ORD-0", "/documents/NOPE", "/claims/NOPE", "/queues/items/999999", "/queues/unknown",
                "/patients/E0/coverage"):
        assert client.get(url).status_code == 404, url


def test_recently_viewed_patients_on_dashboard(client):
    client.get("/patients/E1000449/summary")
    page = text(client.get("/"))
    assert "E1000449" in page
