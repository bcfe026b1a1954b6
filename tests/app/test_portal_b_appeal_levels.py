"""Payer portal B: appeal levels and kinds, Keystone's decisions, letters, reprocessing, pre-service appeals."""
from __future__ import annotations

import io
import itertools
from datetime import date

import pytest
from pypdf import PdfReader
from sqlalchemy import select

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.models import Appeal, Claim, ClaimLine, ExplanationOfBenefits
from admindesk.envs.payer_portal_b.rules.appeal_rules import decide

from .conftest import build_app
from .test_portal_b_precert import people, submit  # noqa: F401  (fixture and form helper reused)

LETTER_PDF = render_pdf("Appeal letter", [("Claim", "denied")], "Please reconsider the denial.")
WRITES = ("appeals", "attachments", "correspondence", "claims", "explanations_of_benefits", "number_sequences")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def claim(app):
    """A denied claim with no appeal on file and its appeal filing limit still open on 16-Nov-2026."""
    with app.extensions["admindesk"].db.new_session() as session:
        open_numbers = set(session.scalars(select(ExplanationOfBenefits.claim_number).where(
            ExplanationOfBenefits.appeal_deadline >= date(2026, 11, 16))))
        open_numbers -= set(session.scalars(select(Appeal.claim_number)))
        candidates = session.scalars(select(Claim).where(Claim.status == "Denied",
                                                         Claim.claim_number.in_(open_numbers))
                                     .order_by(Claim.claim_number))
        found = next(c for c in candidates if len(session.scalars(select(ClaimLine).where(
            ClaimLine.claim_number == c.claim_number)).all()) >= 1)
        session.expunge(found)
    return found


def appeal_form(claim, **changes) -> dict:
    form = {"level": "1", "kind": "Formal appeal", "appellant_name": "Jordan Ellis",
            "appellant_relationship": "Billing office staff", "claim_number": claim.claim_number,
            "service_date": claim.service_date.strftime("%d-%b-%Y"), "billed_amount": f"{claim.billed_amount:.2f}",
            "reason_category": "Medical necessity", "requested_outcome": "Overturn the denial and pay the claim",
            "explanation": "The service met every criterion of the policy; the notes document eight weeks of therapy.",
            "attestation": "y", "document_type_1": "Letter of medical necessity",
            "attachment_1": (io.BytesIO(LETTER_PDF), "letter.pdf"), "document_type_2": "Clinical notes"}
    form.update(changes)
    return form


FILINGS = itertools.count(1)


def file_appeal(client, claim, **changes):
    # Each filing reads differently: the kit answers an identical repeat post as a double submit.
    changes.setdefault("appellant_name", f"Jordan Ellis {next(FILINGS)}")
    return client.post("/appeals/new", appeal_form(claim, **changes), content_type="multipart/form-data")


def record_decision(client, appeal_id: str, decision: str, decided_on: date, lines=()):
    with client.app.app_context(), client.app.extensions["admindesk"].db.new_session() as session:
        decide(session, session.get(Appeal, appeal_id), decision, "Reviewed by the appeals committee.",
               decided_on, overturned_lines=lines)
        session.commit()


def my_letters(snapshot) -> list[dict]:
    """Letters about the appeals this test filed (the seeded history has its own)."""
    ids = {a["appeal_id"] for a in mine(snapshot)}
    return [letter for letter in snapshot["correspondence"] if letter["related_id"] in ids]


def mine(snapshot) -> list[dict]:
    return [a for a in snapshot["appeals"] if a["submitted_by"] == "coordinator"]


def assert_refused(client, before, response, message):
    assert response.status_code == 422, response.location
    assert message in response.get_data(as_text=True)
    after = client.snapshot()
    for table in WRITES:
        assert after[table] == before[table], table


def test_level_one_stays_in_review_with_due_date(client, claim):
    assert file_appeal(client, claim).status_code == 302
    [appeal] = mine(client.snapshot())
    assert (appeal["level"], appeal["kind"], appeal["status"], appeal["decision"]) == ("1", "Formal appeal",
                                                                                       "In Review", None)
    assert appeal["service_type"] == "Post-service" and appeal["decision_due"] == "2027-01-15"


def test_level_two_refused_before_level_one_decision(client, claim):
    file_appeal(client, claim)
    before = client.snapshot()
    response = file_appeal(client, claim, level="2")
    assert_refused(client, before, response, "still in review")


def test_upheld_then_level_two_then_overturned_reprocesses_claim(client, claim):
    file_appeal(client, claim)
    [first] = mine(client.snapshot())
    record_decision(client, first["appeal_id"], "Upheld", date(2026, 11, 10))
    snapshot = client.snapshot()
    [letter] = my_letters(snapshot)
    assert letter["related_id"] == first["appeal_id"] and letter["letter_type"] == "Appeal decision"
    pdf = client.get(f"/correspondence/{letter['letter_id']}.pdf").data
    assert "Upheld" in PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert letter["letter_id"] in client.get("/correspondence").get_data(as_text=True)
    assert "File Next Level Appeal" in client.get(f"/appeals/{first['appeal_id']}").get_data(as_text=True)
    before = client.snapshot()
    assert_refused(client, before, file_appeal(client, claim, level="1"), "was already filed")
    assert_refused(client, before, file_appeal(client, claim, level="2", kind="Reconsideration"),
                   "A reconsideration is a level 1 review")
    assert file_appeal(client, claim, level="2", kind="Clinical appeal").status_code == 302
    second = mine(client.snapshot())[1]
    assert second["level"] == "2" and second["prior_appeal_id"] == first["appeal_id"]
    record_decision(client, second["appeal_id"], "Overturned", date(2026, 11, 16))
    snapshot = client.snapshot()
    [reprocessed] = [e for e in snapshot["explanations_of_benefits"] if e["kind"] == "Reprocessed"]
    [claim_row] = [c for c in snapshot["claims"] if c["claim_number"] == claim.claim_number]
    assert claim_row["status"] == "Paid" and claim_row["paid_amount"] == round(claim.billed_amount * 0.6, 2)
    assert reprocessed["claim_number"] == claim.claim_number and reprocessed["paid_amount"] == claim_row["paid_amount"]
    assert len(my_letters(snapshot)) == 2
    # The EOB tab leads with the reprocessed payment and lists the original beneath it.
    page = client.get(f"/claims/{claim.claim_number}?tab=eob").get_data(as_text=True)
    assert page.index(reprocessed["eob_id"]) < page.index("EOB History") < page.index("Original")
    assert f"${reprocessed['paid_amount']:,.2f}" in page.split("EOB History")[0]
    assert_refused(client, client.snapshot(), file_appeal(client, claim, level="External review",
                                                          kind="Clinical appeal"), "overturned the denial")


def test_level_two_refused_past_its_window(client, claim):
    file_appeal(client, claim)
    [first] = mine(client.snapshot())
    record_decision(client, first["appeal_id"], "Upheld", date(2026, 9, 1))
    assert_refused(client, client.snapshot(), file_appeal(client, claim, level="2"),
                   "The level 2 filing window ended on 31-Oct-2026")


def test_external_review_only_for_clinical_appeals(client, claim):
    file_appeal(client, claim)
    [first] = mine(client.snapshot())
    record_decision(client, first["appeal_id"], "Upheld", date(2026, 11, 1))
    file_appeal(client, claim, level="2")
    record_decision(client, mine(client.snapshot())[1]["appeal_id"], "Upheld", date(2026, 11, 12))
    before = client.snapshot()
    assert_refused(client, before, file_appeal(client, claim, level="External review"),
                   "External review is available only for clinical")
    assert file_appeal(client, claim, level="External review", kind="Clinical appeal").status_code == 302


def test_partial_overturn_pays_the_named_lines(client, claim):
    file_appeal(client, claim)
    [first] = mine(client.snapshot())
    record_decision(client, first["appeal_id"], "Partially overturned", date(2026, 11, 12), lines=(1,))
    snapshot = client.snapshot()
    lines = [line for line in snapshot["claim_lines"] if line["claim_number"] == claim.claim_number]
    [claim_row] = [c for c in snapshot["claims"] if c["claim_number"] == claim.claim_number]
    assert claim_row["paid_amount"] == round(sum(line["paid"] for line in lines), 2) > 0
    assert claim_row["status"] == ("Paid" if len(lines) == 1 else "Partially Paid")


def test_decision_refused_twice(client, claim):
    file_appeal(client, claim)
    [first] = mine(client.snapshot())
    record_decision(client, first["appeal_id"], "Upheld", date(2026, 11, 12))
    with pytest.raises(ValueError, match="not in review"):
        record_decision(client, first["appeal_id"], "Overturned", date(2026, 11, 13))


def test_pre_service_appeal_of_a_denial(client, people):  # noqa: F811
    submit(client, people, diagnosis_codes="J45.909")  # asthma: not a covered indication for a lumbar MRI
    [denied] = [r for r in client.snapshot()["precert_requests"] if r["source"] == "Portal"]
    assert denied["status"] == "Denied" and denied["denied_on"] == "2026-11-16"
    reference = denied["reference_number"]
    form = {"level": "1", "kind": "Clinical appeal", "appellant_name": "Dr. Ellis",
            "appellant_relationship": "Rendering provider",
            "explanation": "The radiculopathy diagnosis was omitted in error; the notes document M54.16 and M51.26.",
            "attestation": "y", "document_type_1": "Clinical notes",
            "attachment_1": (io.BytesIO(LETTER_PDF), "notes.pdf")}
    assert client.post(f"/appeals/precertification/{reference}", dict(form),
                       content_type="multipart/form-data").status_code == 302
    [appeal] = mine(client.snapshot())
    assert appeal["service_type"] == "Pre-service" and appeal["precert_reference"] == reference
    assert appeal["decision_due"] == "2026-12-16" and appeal["claim_number"] is None
    before = client.snapshot()
    form.update(attachment_1=(io.BytesIO(LETTER_PDF), "notes.pdf"), appellant_name="Dr. Ellis, again")
    assert_refused(client, before, client.post(f"/appeals/precertification/{reference}", dict(form),
                                               content_type="multipart/form-data"), "still in review")
    record_decision(client, appeal["appeal_id"], "Overturned", date(2026, 11, 20))
    [approved] = [r for r in client.snapshot()["precert_requests"] if r["reference_number"] == reference]
    assert approved["status"] == "Approved" and approved["authorization_number"]
