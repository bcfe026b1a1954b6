"""Payer portal B: corrected claims (frequency 7 replacement, 8 void), Keystone's claim filing
limit with proof of timely filing, and coordination of benefits (OA-22 without the primary's EOB)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.models import (
    Claim,
    ClaimLine,
    ExplanationOfBenefits,
    PolicyCode,
    ProcedureCode,
    Subscriber,
)

from .conftest import build_app
from .test_portal_b_precert import TODAY, pdf

WRITES = ("corrected_claims", "claims", "attachments", "number_sequences")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def _claims(session, *where):
    stmt = select(Claim).join(Subscriber, Subscriber.subscriber_id == Claim.subscriber_id).where(*where)
    return list(session.scalars(stmt.order_by(Claim.claim_number)))


def _first_code(session, claim) -> str:
    return session.scalars(select(ClaimLine.code).where(ClaimLine.claim_number == claim.claim_number)
                           .order_by(ClaimLine.line_no)).first()


def _bills_no_drug(session, claim) -> bool:
    """A drug line needs its NDC on a replacement (test_portal_b_ndc); these tests replace claims without one."""
    return not session.scalars(select(ClaimLine).join(ProcedureCode, ProcedureCode.code == ClaimLine.code).where(
        ClaimLine.claim_number == claim.claim_number, ProcedureCode.category == "drug")).first()


def _with_eob_after(session, claims, day):
    eob_day = {e.claim_number: e.paid_on for e in session.scalars(select(ExplanationOfBenefits))}
    return [c for c in claims if c.claim_number in eob_day and eob_day[c.claim_number] >= day]


@pytest.fixture(scope="module")
def claims(app):
    """Claims of the seeded world in each situation the rules tell apart, with their lines."""
    recent, late = TODAY - timedelta(days=180), TODAY - timedelta(days=181)
    with app.extensions["admindesk"].db.new_session() as session:
        primary = Subscriber.coverage_rank == 1
        paid_auth = [c for c in _claims(session, primary, Claim.status == "Paid",
                                        Claim.authorization_number.is_not(None)) if _bills_no_drug(session, c)]
        found = {
            "paid_recent": next(c for c in paid_auth if c.service_date >= recent),
            "paid_late": next(c for c in _with_eob_after(session, paid_auth, TODAY - timedelta(days=365))
                              if c.service_date < late),
            "paid_no_auth": next(c for c in _claims(session, primary, Claim.status == "Paid",
                                                    Claim.authorization_number.is_(None))
                                 if c.service_date >= recent),
            "pending": _claims(session, Claim.status == "Pending")[0],
            # Denied for want of an authorization Keystone requires for its code.
            "denied_recent": next(c for c in _claims(session, primary, Claim.status == "Denied",
                                                     Claim.authorization_number.is_(None))
                                  if c.service_date >= recent and session.get(PolicyCode, _first_code(session, c))),
            "old_eob": next(c for c in paid_auth if c not in _with_eob_after(session, paid_auth,
                                                                              TODAY - timedelta(days=365))),
            "secondary": _claims(session, Subscriber.coverage_rank > 1, Claim.status.in_(("Paid", "Denied")))[0],
        }
        lines = {key: list(session.scalars(select(ClaimLine).where(ClaimLine.claim_number == claim.claim_number)
                                           .order_by(ClaimLine.line_no))) for key, claim in found.items()}
        session.expunge_all()
    return {key: (claim, lines[key]) for key, claim in found.items()}


def corrected_form(claim, lines, **changes) -> dict:
    form = {"frequency_code": "7", "authorization_number": claim.authorization_number or "",
            "diagnosis_codes": lines[0].diagnosis_codes, "correction_reason": "Laterality modifier was missing.",
            "primary_payer": "", "primary_paid_amount": "", "clearinghouse_report_number": "",
            "clearinghouse_accepted_on": ""}
    for index in range(4):
        line = lines[index] if index < len(lines) else None
        form |= {f"lines-{index}-code": line.code if line else "", f"lines-{index}-modifiers": "RT" if line else "",
                 f"lines-{index}-units": str(line.units) if line else "",
                 f"lines-{index}-charge": f"{line.billed:.2f}" if line else ""}
    form.update(changes)
    return form


def send(client, claim, lines, **changes):
    return client.post(f"/claims/{claim.claim_number}/correct", corrected_form(claim, lines, **changes),
                       content_type="multipart/form-data")


def corrected_rows(client):
    return client.snapshot()["corrected_claims"]


def assert_refused(client, before, response, message):
    assert response.status_code == 422, response.location
    assert message in response.get_data(as_text=True)
    after = client.snapshot()
    for table in WRITES:
        assert after[table] == before[table], table


def claim_row(client, claim_number):
    return next(c for c in client.snapshot()["claims"] if c["claim_number"] == claim_number)


def test_form_is_prefilled_from_the_claim_and_listed_on_its_page(client, claims):
    claim, lines = claims["paid_recent"]
    page = client.get(f"/claims/{claim.claim_number}").get_data(as_text=True)
    assert f"/claims/{claim.claim_number}/correct" in page and "Corrected Claims (0)" in page
    form = client.get(f"/claims/{claim.claim_number}/correct").get_data(as_text=True)
    assert f'value="{lines[0].code}"' in form and f'value="{claim.authorization_number}"' in form
    assert "Claim Frequency Code" in form and "Clearinghouse Acceptance Report Number" in form


def test_replacement_is_processed_and_replaces_the_claim(client, claims):
    claim, lines = claims["paid_recent"]
    response = send(client, claim, lines)
    assert response.status_code == 302
    [row] = corrected_rows(client)
    billed = round(sum(line.billed for line in lines), 2)
    assert row["corrected_claim_number"] == f"KCC-{TODAY.year}-00001"
    assert (row["original_claim_number"], row["frequency_code"], row["status"]) == (claim.claim_number, "7", "Processed")
    assert row["lines"][0]["modifiers"] == "RT" and row["authorization_number"] == claim.authorization_number
    assert row["allowed_amount"] == row["paid_amount"] == round(billed * 0.6, 2) and row["carc"] is None
    assert claim_row(client, claim.claim_number)["status"] == "Replaced"
    page = client.get(f"/claims/{claim.claim_number}?tab=corrected").get_data(as_text=True)
    assert row["corrected_claim_number"] in page and "Processed" in page
    detail = client.get(f"/claims/corrected/{row['corrected_claim_number']}").get_data(as_text=True)
    assert f"<dt>Paid</dt><dd>${row['paid_amount']:,.2f}</dd>" in detail and "Recouped" not in detail
    assert_refused(client, client.snapshot(), send(client, claim, lines, correction_reason="Second correction try."),
                   f"was already processed by corrected claim {row['corrected_claim_number']}")


def test_void_recoups_the_payment(client, claims):
    claim, lines = claims["paid_no_auth"]
    assert send(client, claim, lines, frequency_code="8", correction_reason="Billed under the wrong patient.").status_code == 302
    [row] = corrected_rows(client)
    assert (row["status"], row["paid_amount"]) == ("Voided", -claim.paid_amount)
    assert claim_row(client, claim.claim_number)["status"] == "Voided"
    detail = client.get(f"/claims/corrected/{row['corrected_claim_number']}").get_data(as_text=True)
    assert f"<dt>Recouped</dt><dd>${claim.paid_amount:,.2f}</dd>" in detail


def test_refusals_write_nothing(client, claims):
    before = client.snapshot()
    pending, pending_lines = claims["pending"]
    assert_refused(client, before, send(client, pending, pending_lines), "has not been adjudicated")
    denied, denied_lines = claims["denied_recent"]
    assert_refused(client, before, send(client, denied, denied_lines, frequency_code="8"),
                   "a void (frequency code 8) reverses a payment")
    old, old_lines = claims["old_eob"]
    assert_refused(client, before, send(client, old, old_lines), "corrected-claim limit")
    claim, lines = claims["paid_recent"]
    assert_refused(client, before, send(client, claim, lines, **{"lines-0-code": "ZZ999"}), "Unknown procedure code")
    assert_refused(client, before, send(client, claim, lines, **{"lines-0-units": ""}),
                   "A line with a code needs its units and charge.")
    assert_refused(client, before, send(client, claim, lines, frequency_code=""), "Select the claim frequency code")
    assert_refused(client, before, send(client, claim, lines, clearinghouse_report_number="CH-1"),
                   "Proof of timely filing needs both")


def test_missing_authorization_is_denied_co_197(client, claims):
    claim, lines = claims["denied_recent"]
    assert send(client, claim, lines, authorization_number="").status_code == 302
    [row] = corrected_rows(client)
    assert (row["status"], row["group_code"], row["carc"]) == ("Denied", "CO", "197")
    assert "requires precertification" in row["decision_reason"]
    assert claim_row(client, claim.claim_number)["status"] == claim.status


def test_filing_limit_co_29_and_proof_of_timely_filing(client, claims):
    claim, lines = claims["paid_late"]
    limit = claim.service_date + timedelta(days=180)
    assert send(client, claim, lines).status_code == 302
    late = corrected_rows(client)[-1]
    assert (late["status"], late["group_code"], late["carc"]) == ("Denied", "CO", "29")
    assert "no proof of timely filing" in late["decision_reason"]
    after_limit = (limit + timedelta(days=1)).strftime("%d-%b-%Y")
    assert send(client, claim, lines, clearinghouse_report_number="CH-7781",
                clearinghouse_accepted_on=after_limit).status_code == 302
    assert corrected_rows(client)[-1]["carc"] == "29"
    accepted = (claim.service_date + timedelta(days=3)).strftime("%d-%b-%Y")
    assert send(client, claim, lines, clearinghouse_report_number="CH-7782",
                clearinghouse_accepted_on=accepted).status_code == 302
    on_time = corrected_rows(client)[-1]
    assert on_time["status"] == "Processed" and on_time["clearinghouse_report_number"] == "CH-7782"
    assert claim_row(client, claim.claim_number)["status"] == "Replaced"


def test_coordination_of_benefits(client, claims):
    claim, lines = claims["secondary"]
    assert send(client, claim, lines).status_code == 302
    denied = corrected_rows(client)[-1]
    assert (denied["status"], denied["group_code"], denied["carc"]) == ("Denied", "OA", "22")
    assert "is the subscriber's primary coverage" in denied["decision_reason"]
    form = client.get(f"/claims/{claim.claim_number}/correct").get_data(as_text=True)
    assert "Keystone Mutual is secondary for this subscriber" in form


def test_secondary_claim_with_the_primary_eob_is_processed_as_secondary(app, client, claims):
    claim, lines = claims["paid_recent"]
    # The case: another payer is primary for this subscriber.
    with app.extensions["admindesk"].db.new_session() as session:
        subscriber = session.get(Subscriber, claim.subscriber_id)
        subscriber.coverage_rank, subscriber.other_coverage = 2, "Harborview Senior Advantage"
        session.commit()
    billed = round(sum(line.billed for line in lines), 2)
    primary_paid = round(billed * 0.4, 2)
    response = send(client, claim, lines, primary_payer="Harborview Senior Advantage",
                    primary_paid_amount=f"{primary_paid:.2f}", primary_eob=pdf(name="primary-eob.pdf"))
    assert response.status_code == 302
    [row] = corrected_rows(client)
    assert (row["status"], row["primary_paid_amount"]) == ("Processed as secondary", primary_paid)
    assert row["paid_amount"] == round(round(billed * 0.6, 2) - primary_paid, 2)
    [eob] = [a for a in client.snapshot()["attachments"] if a["owner_type"] == "corrected_claim"]
    assert (eob["owner_id"], eob["document_type"]) == (row["corrected_claim_number"], "Primary payer EOB")
    page = client.get(f"/claims/corrected/{row['corrected_claim_number']}").get_data(as_text=True)
    assert "Harborview Senior Advantage" in page and "primary-eob.pdf" in page
