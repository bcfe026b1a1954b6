"""Portal A corrected claims: replacement (7) and void (8) with their own number and
status, the corrected-claim filing limit, claims never adjudicated, and OA-22 when
another coverage is primary and the primary's EOB is missing, and CO-167 when a test line still
carries no diagnosis its coverage policy lists."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from admindesk.envs.payer_portal_a import create_app
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for

from .conftest import build_app
from .test_portal_a_support import NOW, pdf_file

TABLES = ("corrected_claims", "corrected_claim_lines", "claim_events", "claims")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def _rank(snap, claim) -> int:
    return next(m["coverage_rank"] for m in snap["members"] if m["coverage_id"] == claim["coverage_id"])


def _correctable(snap, rank: int = 1) -> dict:
    """An adjudicated claim still inside its payer's corrected-claim limit."""
    paid_on = {r["claim_number"]: r["paid_on"] for r in snap["remittances"]}
    return next(c for c in snap["claims"] if c["status"] in ("Denied", "Paid") and c["claim_number"] in paid_on
                and _rank(snap, c) == rank and date.fromisoformat(paid_on[c["claim_number"]])
                + timedelta(days=rules_for(c["payer_id"]).corrected_claim_days) >= NOW)


def _lines(snap, claim) -> list[dict]:
    return [line for line in snap["claim_lines"] if line["claim_number"] == claim["claim_number"]]


def _form(snap, claim, frequency="7", **change) -> dict:
    data = {"frequency_code": frequency, "correction_reason": "Added modifier 25 to the visit line",
            "auth_number": claim["auth_number"] or ""}
    for n, line in enumerate(_lines(snap, claim)):
        data.update({f"lines-{n}-code": line["code"], f"lines-{n}-modifiers": "25, RT", f"lines-{n}-units": line["units"],
                     f"lines-{n}-charge": f"{line['charge']:.2f}",
                     f"lines-{n}-diagnosis_codes": ", ".join(line["diagnosis_codes"])})
    return {**data, **change}


def _rows(snapshot) -> dict:
    return {table: snapshot[table] for table in TABLES}


def _post(client, claim, data):
    return client.post(f"/claims/{claim['claim_number']}/corrected", data, content_type="multipart/form-data")


def test_replacement_claim_gets_its_number_lines_and_replaces_the_original(client, snap):
    claim = _correctable(snap)
    page = client.get(f"/claims/{claim['claim_number']}/corrected").get_data(as_text=True)
    assert "Claim frequency code" in page and _lines(snap, claim)[0]["code"] in page
    response = _post(client, claim, _form(snap, claim))
    assert response.status_code == 302
    after = client.snapshot()
    corrected = after["corrected_claims"][0]
    assert corrected["corrected_claim_number"] == "CC26000001" and corrected["frequency_code"] == "7"
    assert (corrected["original_claim_number"], corrected["status"]) == (claim["claim_number"], "Accepted")
    assert all(line["modifiers"] == ["25", "RT"] for line in after["corrected_claim_lines"])
    assert next(c for c in after["claims"] if c["claim_number"] == claim["claim_number"])["status"] == "Replaced"
    assert "CC26000001" in client.get(response.location).get_data(as_text=True)
    timeline = client.get(f"/claims/{claim['claim_number']}?tab=timeline").get_data(as_text=True)
    assert "Replacement claim accepted" in timeline and "CC26000001" in timeline


def test_void_claim_voids_the_original(client, snap):
    claim = _correctable(snap)
    assert _post(client, claim, _form(snap, claim, frequency="8")).status_code == 302
    after = client.snapshot()
    assert after["corrected_claims"][0]["status"] == "Voided"
    assert next(c for c in after["claims"] if c["claim_number"] == claim["claim_number"])["status"] == "Voided"
    before = _rows(after)
    response = _post(client, claim, _form(snap, claim, correction_reason="Again"))
    assert response.status_code == 422 and "was voided" in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == before


def test_claim_never_adjudicated_is_refused(client, snap):
    pending = next(c for c in snap["claims"] if c["status"] == "Pending")
    before = _rows(snap)
    page = client.get(f"/claims/{pending['claim_number']}/corrected").get_data(as_text=True)
    assert "never paid or denied" in page and "Submit corrected claim" not in page
    response = _post(client, pending, {"frequency_code": "7", "correction_reason": "x"})
    assert response.status_code == 422 and "never paid or denied" in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == before


def test_correction_past_the_payer_limit_is_refused(client, snap):
    claim = _correctable(snap)
    paid_on = date.fromisoformat(next(r["paid_on"] for r in snap["remittances"] if r["claim_number"] == claim["claim_number"]))
    days = rules_for(claim["payer_id"]).corrected_claim_days
    client.reset(now=f"{paid_on + timedelta(days=days + 1)}T09:00:00")
    client.login()
    before = _rows(client.snapshot())
    response = _post(client, claim, _form(snap, claim))
    text = response.get_data(as_text=True)
    assert response.status_code == 422 and f"within {days} days of the original remittance" in text
    assert _rows(client.snapshot()) == before


@pytest.mark.parametrize("change, message", [
    ({"frequency_code": ""}, "Select the claim frequency code."),
    ({"correction_reason": ""}, "Describe what was corrected."),
    ({"lines-0-code": "99999"}, "not in the code set"),
    ({"lines-0-modifiers": "259"}, "Modifiers are 2 characters each"),
    ({"lines-0-diagnosis_codes": "ZZZ.1"}, "Not a valid ICD-10-CM code"),
    ({"lines-0-charge": "0"}, "Enter a charge above $0."),
])
def test_bad_corrected_claim_input_changes_nothing(client, snap, change, message):
    claim = _correctable(snap)
    response = _post(client, claim, _form(snap, claim, **change))
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == _rows(snap)


def test_secondary_coverage_needs_the_primary_eob(client, snap):
    claim = _correctable(snap, rank=2)
    assert _post(client, claim, _form(snap, claim)).status_code == 302
    denied = client.snapshot()["corrected_claims"][0]
    assert (denied["status"], denied["denial_group"], denied["denial_carc"]) == ("Denied", "OA", "22")
    assert next(c for c in client.snapshot()["claims"] if c["claim_number"] == claim["claim_number"])["status"] == claim["status"]
    stream, name = pdf_file("primary-eob.pdf", "Primary payer EOB")
    response = _post(client, claim, _form(snap, claim, primary_paid_amount="84.10", primary_eob=(stream, name),
                                          correction_reason="Secondary claim with the primary EOB"))
    assert response.status_code == 302
    accepted = client.snapshot()["corrected_claims"][1]
    assert (accepted["status"], accepted["primary_paid_amount"], accepted["primary_eob_file"]) == (
        "Accepted", 84.1, "primary-eob.pdf")


def _test_line(snap, claim, diagnoses: str) -> dict:
    """The claim's form with its first line rebilled as a TSH (84443) with `diagnoses`."""
    return _form(snap, claim, **{"lines-0-code": "84443", "lines-0-modifiers": "", "lines-0-diagnosis_codes": diagnoses})


def test_a_test_line_without_a_listed_diagnosis_is_denied_co167_again(client, snap):
    claim = _correctable(snap)
    assert _post(client, claim, _test_line(snap, claim, "Z13.29")).status_code == 302
    corrected = client.snapshot()["corrected_claims"][0]
    assert (corrected["status"], corrected["denial_group"], corrected["denial_carc"]) == ("Denied", "CO", "167")
    assert "84443" in corrected["status_reason"] and "Thyroid testing" in corrected["status_reason"]


def test_a_test_line_with_a_listed_diagnosis_is_accepted(client, snap):
    claim = _correctable(snap)
    assert _post(client, claim, _test_line(snap, claim, "R00.2, Z13.29")).status_code == 302
    assert client.snapshot()["corrected_claims"][0]["status"] == "Accepted"


def test_the_manual_lists_each_tests_covered_diagnoses(client, snap):
    manual = client.get("/payers/PYR-HSA?tab=manual").get_data(as_text=True)
    assert "Diagnosis coverage of laboratory and vascular tests (CO-167, CO-11)" in manual
    assert "84443 Thyroid testing (TSH): covered for ICD-10-CM codes beginning with C73, E01" in manual
    assert "80061 Lipid testing (lipid panel): covered for" in manual and "I65" in manual
    assert "problem list" in manual and "frequency code 7" in manual
