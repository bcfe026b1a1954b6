"""Keystone Mutual's NDC reporting on corrected claims, as its Reimbursement page states it: a drug
line (a HCPCS drug code) carries qualifier N4, the 11-digit NDC, its unit of measure and quantity;
a replacement that still bills the drug without them is denied CO-16 (M119) as the original was. The
form refuses an NDC that is not 11 digits in 5-4-2 and one reported with some of its fields only."""
from __future__ import annotations

import pytest

from .conftest import case_clients

TASK = "appeal-hard-05"  # bevacizumab J9035 (line 2) denied CO-16/M119 beside a paid 96413
PATIENT = "Thaddeus Okonkwo-Lindqvist"
DRUG_LINE = 1
GIVEN = {"ndc_qualifier": "N4", "ndc": "50242-0061-01", "ndc_unit": "UN", "ndc_quantity": "1"}


@pytest.fixture(scope="module")
def portal(app_data_dir):
    return case_clients(app_data_dir / "ndc", ("payer_portal_b",))["payer_portal_b"]


def denied_claim(snapshot: dict) -> tuple[dict, list[dict]]:
    [claim] = [c for c in snapshot["claims"] if c["patient_name"] == PATIENT]
    lines = sorted((line for line in snapshot["claim_lines"] if line["claim_number"] == claim["claim_number"]),
                   key=lambda line: line["line_no"])
    return claim, lines


def send(portal, claim: dict, lines: list[dict], ndc: dict[str, str]):
    form = {"frequency_code": "7", "authorization_number": claim["authorization_number"] or "",
            "diagnosis_codes": lines[0]["diagnosis_codes"], "correction_reason": "NDC added to the drug line.",
            "primary_payer": "", "primary_paid_amount": "", "clearinghouse_report_number": "",
            "clearinghouse_accepted_on": ""}
    for index in range(4):
        line = lines[index] if index < len(lines) else None
        form |= {f"lines-{index}-code": line["code"] if line else "",
                 f"lines-{index}-modifiers": line["modifiers"] if line else "",
                 f"lines-{index}-units": str(line["units"]) if line else "",
                 f"lines-{index}-charge": f"{line['billed']:.2f}" if line else ""}
        form |= {f"lines-{index}-{field}": (ndc.get(field, "") if index == DRUG_LINE else "")
                 for field in GIVEN}
    return portal.post(f"/claims/{claim['claim_number']}/correct", form, content_type="multipart/form-data")


def sent(portal, claim, lines, ndc) -> dict:
    response = send(portal, claim, lines, ndc)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    return portal.snapshot()["corrected_claims"][-1]


def test_the_reimbursement_page_states_the_ndc_rules(portal):
    portal.start_task(TASK)
    page = portal.get("/reimbursement").get_data(as_text=True)
    assert "Physician-Administered Drugs: NDC Reporting" in page
    assert "<strong>N4</strong>" in page and "11-digit 5-4-2 format" in page and "RARC M119" in page
    assert "12345-678-90 is 12345-0678-90" in page


def test_a_drug_line_still_without_its_ndc_is_denied_again(portal):
    claim, lines = denied_claim(portal.start_task(TASK))
    row = sent(portal, claim, lines, {})
    assert (row["status"], row["group_code"], row["carc"]) == ("Denied", "CO", "16")
    assert row["decision_reason"].startswith("M119: line 2 (J9035)")
    assert "ndc" not in row["lines"][DRUG_LINE]


@pytest.mark.parametrize("ndc, unit", [("50242-0061-01", "UN"), ("50242006101", "un"), ("50242 0061 01", "ml")])
def test_a_drug_line_with_its_ndc_is_processed_and_kept_normalised(portal, ndc, unit):
    claim, lines = denied_claim(portal.start_task(TASK))
    row = sent(portal, claim, lines, GIVEN | {"ndc": ndc, "ndc_unit": unit, "ndc_qualifier": "n4"})
    assert row["status"] == "Processed"
    drug = row["lines"][DRUG_LINE]
    assert (drug["ndc_qualifier"], drug["ndc"], drug["ndc_unit"], drug["ndc_quantity"]) == \
        ("N4", "50242006101", unit.upper(), 1.0)
    assert drug["units"] == 40 and "ndc" not in row["lines"][0]
    page = portal.get(f"/claims/corrected/{row['corrected_claim_number']}").get_data(as_text=True)
    assert f"N4 50242-0061-01</td><td>{unit.upper()}</td><td>1</td>" in page


@pytest.mark.parametrize("change, message", [
    ({"ndc": "50242-061-01"}, "11 digits in the 5-4-2 format"),
    ({"ndc": "5024206101"}, "11 digits in the 5-4-2 format"),
    ({"ndc": "502420-061-01"}, "11 digits in the 5-4-2 format"),
    ({"ndc_qualifier": "ZZ"}, "qualifier for an NDC is N4"),
    ({"ndc_unit": "EA"}, "UN (Unit), ML (Milliliter), GR (Gram), F2 (International unit)"),
    ({"ndc_quantity": "0"}, "NDC quantity must be above 0"),
    ({"ndc_quantity": ""}, "reported with all four fields"),
    ({"ndc_qualifier": ""}, "reported with all four fields"),
])
def test_an_ndc_the_format_does_not_allow_is_refused_and_nothing_written(portal, change, message):
    claim, lines = denied_claim(portal.start_task(TASK))
    response = send(portal, claim, lines, GIVEN | change)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert portal.snapshot()["corrected_claims"] == []


def test_the_form_shows_ndc_fields_on_every_line(portal):
    claim, _ = denied_claim(portal.start_task(TASK))
    page = portal.get(f"/claims/{claim['claim_number']}/correct").get_data(as_text=True)
    for field in ("ndc_qualifier", "ndc", "ndc_unit", "ndc_quantity"):
        assert page.count(f'name="lines-{DRUG_LINE}-{field}"') == 1 and f'name="lines-3-{field}"' in page
