"""Portal A appeals: kinds and levels, decisions the payer's rules give at filing, the
decision letter, the reprocessed claim and its remittance, and the filing refusals."""
from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
from pypdf import PdfReader

from admindesk.envs.payer_portal_a import create_app
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for

from .conftest import build_app

APPEAL_TABLES = ("appeals", "appeal_attachments", "letters", "remittances", "claim_adjustments", "claim_events",
                 "claims")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def _appeal(kind="Reconsideration", level="1", **change):
    return {"appeal_type": kind, "level": level, "reason": "Authorization was on file", "contact_name": "Jordan Ellis",
            "contact_phone": "717-555-0100", "letter_text": f"{kind} at level {level}.", **change}


def _carc_claims(snap, carc: str, immediate: bool) -> list[dict]:
    carcs = {(a["claim_number"], a["carc"]) for a in snap["claim_adjustments"]}
    return [c for c in snap["claims"] if (c["claim_number"], carc) in carcs and c["status"] == "Denied"
            and rules_for(c["payer_id"]).immediate_reconsideration == immediate]


def _covering_auth(snap, claim) -> str | None:
    """The auth number of an approved request on file covering the claim's member, code and date."""
    codes = {line["code"] for line in snap["claim_lines"] if line["claim_number"] == claim["claim_number"]}
    for request in snap["pa_requests"]:
        if request["member_id"] != claim["member_id"] or request["status"] != "Approved":
            continue
        for line in snap["pa_service_lines"]:
            if (line["request_id"] == request["id"] and line["code"] in codes
                    and request["approved_start"] <= claim["service_date"] <= request["approved_end"]):
                return request["auth_number"]
    return None


def _remittance(snap, claim) -> dict:
    return next(r for r in snap["remittances"] if r["claim_number"] == claim["claim_number"])


def _rows(snapshot) -> dict:
    return {table: snapshot[table] for table in APPEAL_TABLES}


def _at_remittance(client, snap, claim) -> dict:
    """Reset with the clock the day after the claim's remittance (inside its appeal window)."""
    paid_on = date.fromisoformat(_remittance(snap, claim)["paid_on"])
    client.reset(now=f"{paid_on + timedelta(days=1)}T09:00:00")
    client.login()
    return client.snapshot()


def _file(client, claim, data):
    return client.post(f"/appeals/new?claim_number={claim['claim_number']}", data, content_type="multipart/form-data")


def test_reconsideration_with_valid_auth_is_overturned_and_reprocessed(client, snap):
    claim = next(c for c in _carc_claims(snap, "197", immediate=True) if _covering_auth(snap, c))
    auth = _covering_auth(snap, claim)
    before = _at_remittance(client, snap, claim)
    response = _file(client, claim, _appeal(cited_auth_number=auth.lower()))
    assert response.status_code == 302
    after = client.snapshot()
    appeal = after["appeals"][0]
    assert (appeal["status"], appeal["decision"], appeal["level"]) == ("Decided", "Overturned", "1")
    assert auth in appeal["decision_reason"] and appeal["cited_auth_number"] == auth
    reprocessed = next(c for c in after["claims"] if c["claim_number"] == claim["claim_number"])
    remittance = next(r for r in after["remittances"] if r["kind"] == "Reprocessed")
    assert reprocessed["status"] == "Paid" and remittance["appeal_reference"] == appeal["reference_number"]
    assert reprocessed["paid_amount"] == pytest.approx(claim["paid_amount"] + remittance["paid_amount"])
    charge = sum(line["charge"] for line in after["claim_lines"] if line["claim_number"] == claim["claim_number"])
    assert remittance["paid_amount"] == pytest.approx(round(charge * rules_for(claim["payer_id"]).allowed_percent / 100, 2))
    new_adjustments = [a for a in after["claim_adjustments"] if a["remittance_id"] == remittance["id"]]
    assert [(a["group_code"], a["carc"]) for a in new_adjustments] == [("CO", "45")]
    letter = next(row for row in after["letters"] if row["letter_number"] == appeal["decision_letter_number"])
    assert letter["category"] == "Appeal Decision" and letter["claim_number"] == claim["claim_number"]
    text = PdfReader(io.BytesIO(client.get(f"/correspondence/{letter['letter_number']}/pdf").data)).pages[0].extract_text()
    assert "OVERTURNED" in text and remittance["id"] in text
    assert len(after["claim_events"]) == len(before["claim_events"]) + 2  # filed, reprocessed
    timeline = client.get(f"/claims/{claim['claim_number']}?tab=timeline").get_data(as_text=True)
    assert "Appeal filed" in timeline and "Reprocessed - Paid" in timeline
    page = client.get(f"/appeals/{appeal['reference_number']}").get_data(as_text=True)
    assert "Overturned" in page and "File level 2" not in page


def test_reconsideration_citing_a_wrong_auth_is_upheld_then_level_2_stays_in_review(client, snap):
    claim = _carc_claims(snap, "197", immediate=True)[0]
    other_auth = next(r["auth_number"] for r in snap["pa_requests"]
                      if r["auth_number"] and r["member_id"] != claim["member_id"])
    _at_remittance(client, snap, claim)
    assert _file(client, claim, _appeal(cited_auth_number=other_auth)).status_code == 302
    first = client.snapshot()["appeals"][0]
    assert (first["decision"], first["status"]) == ("Upheld", "Decided") and "stands" in first["decision_reason"]
    letter = next(row for row in client.snapshot()["letters"] if row["letter_number"] == first["decision_letter_number"])
    assert f"within {next(p for p in snap['payers'] if p['id'] == claim['payer_id'])['timely_appeal_days']} days" in letter["body"]
    assert "File level 2" in client.get(f"/appeals/{first['reference_number']}").get_data(as_text=True)
    assert _file(client, claim, _appeal("Clinical Appeal", "2")).status_code == 302
    second = client.snapshot()["appeals"][1]
    due = date.fromisoformat(second["submitted_at"][:10]) + timedelta(days=rules_for(claim["payer_id"]).appeal_review_days)
    assert (second["level"], second["status"], second["decision"]) == ("2", "In Review", None)
    assert second["prior_reference"] == first["reference_number"] and second["decision_due"] == due.isoformat()


def test_payer_without_immediate_decisions_keeps_a_reconsideration_in_review(client, snap):
    claim = _carc_claims(snap, "197", immediate=False)[0]
    _at_remittance(client, snap, claim)
    assert _file(client, claim, _appeal(cited_auth_number="ANY123")).status_code == 302
    appeal = client.snapshot()["appeals"][0]
    assert (appeal["status"], appeal["decision"]) == ("In Review", None)
    assert [c["status"] for c in client.snapshot()["claims"] if c["claim_number"] == claim["claim_number"]] == ["Denied"]


@pytest.mark.parametrize("proof, decision", [(5, "Overturned"), (400, "Upheld")])
def test_timely_filing_proof_decides_co29(client, snap, proof, decision):
    claim = _carc_claims(snap, "29", immediate=True)[0]
    _at_remittance(client, snap, claim)
    proof_date = date.fromisoformat(claim["service_date"]) + timedelta(days=proof)
    response = _file(client, claim, _appeal(reason="Timely filing proof", proof_of_filing_date=f"{proof_date:%m/%d/%Y}"))
    assert response.status_code == 302
    appeal = client.snapshot()["appeals"][0]
    assert appeal["decision"] == decision
    assert f"{rules_for(claim['payer_id']).claim_filing_days}-day filing limit" in appeal["decision_reason"]


def test_level_2_before_a_level_1_decision_and_a_second_open_appeal_are_refused(client, snap):
    claim = _carc_claims(snap, "197", immediate=False)[0]
    _at_remittance(client, snap, claim)
    assert _file(client, claim, _appeal("Formal Appeal")).status_code == 302
    before = _rows(client.snapshot())
    first = before["appeals"][0]["reference_number"]
    response = _file(client, claim, _appeal("Formal Appeal", "2", letter_text="Level two."))
    assert response.status_code == 422
    assert f"needs a level 1 decision first: appeal {first} is still in review" in response.get_data(as_text=True)
    response = _file(client, claim, _appeal("Clinical Appeal", letter_text="Again."))
    assert response.status_code == 422 and "Only one open appeal per claim" in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == before


def test_external_review_needs_a_level_2_decision_and_reconsideration_is_level_1_only(client, snap):
    claim = _carc_claims(snap, "197", immediate=False)[0]
    _at_remittance(client, snap, claim)
    before = _rows(client.snapshot())
    response = _file(client, claim, _appeal("Clinical Appeal", "External"))
    assert response.status_code == 422 and "external review needs a level 2 decision first" in response.get_data(as_text=True)
    response = _file(client, claim, _appeal("Reconsideration", "2"))
    assert response.status_code == 422 and "A reconsideration is a first-level request" in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == before


def test_appeal_past_the_payer_window_is_refused_with_its_deadline(client, snap):
    claim = _carc_claims(snap, "197", immediate=True)[0]
    deadline = date.fromisoformat(_remittance(snap, claim)["appeal_deadline"])
    client.reset(now=f"{deadline + timedelta(days=1)}T09:00:00")
    client.login()
    before = _rows(client.snapshot())
    response = _file(client, claim, _appeal())
    assert response.status_code == 422 and f"{deadline:%m/%d/%Y}" in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == before
