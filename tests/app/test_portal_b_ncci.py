"""Keystone Mutual's NCCI edits on corrected claims, as its Reimbursement page states them: a
replacement that still bills a line included in another line of the same date is denied CO-97 as
the original was; the modifier the edit allows (XS or 59 on a procedure pair's column-2 code, 25
on an office visit beside a minor procedure) gets it processed."""
from __future__ import annotations

import pytest

from .conftest import case_clients

PAIR_TASK, VISIT_TASK = "appeal-easy-10", "appeal-medium-02"


@pytest.fixture(scope="module")
def portal(app_data_dir):
    return case_clients(app_data_dir / "ncci", ("payer_portal_b",))["payer_portal_b"]


def denied_claim(snapshot: dict) -> tuple[dict, list[dict]]:
    [claim] = [c for c in snapshot["claims"] if c["status"] == "Partially Paid"
               and any(line["claim_number"] == c["claim_number"] and line["code"] in ("11102", "99213")
                       for line in snapshot["claim_lines"])]
    lines = sorted((line for line in snapshot["claim_lines"] if line["claim_number"] == claim["claim_number"]),
                   key=lambda line: line["line_no"])
    return claim, lines


def replace(portal, claim: dict, lines: list[dict], modifiers: dict[int, str]) -> dict:
    form = {"frequency_code": "7", "authorization_number": "", "diagnosis_codes": lines[0]["diagnosis_codes"],
            "correction_reason": "Modifier added to the bundled line.", "primary_payer": "",
            "primary_paid_amount": "", "clearinghouse_report_number": "", "clearinghouse_accepted_on": ""}
    for index in range(4):
        line = lines[index] if index < len(lines) else None
        form |= {f"lines-{index}-code": line["code"] if line else "",
                 f"lines-{index}-modifiers": modifiers.get(index, line["modifiers"]) if line else "",
                 f"lines-{index}-units": str(line["units"]) if line else "",
                 f"lines-{index}-charge": f"{line['billed']:.2f}" if line else ""}
    response = portal.post(f"/claims/{claim['claim_number']}/correct", form, content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    return portal.snapshot()["corrected_claims"][-1]


def test_the_reimbursement_page_states_the_edits(portal):
    portal.start_task(PAIR_TASK)
    page = portal.get("/reimbursement").get_data(as_text=True)
    assert "Correct Coding (NCCI) Edits" in page
    assert "<td>17110</td><td>11102</td><td>1</td>" in page and "59, XE, XP, XS, XU" in page
    assert "modifier 25 on the visit line" in page


def test_a_column_two_line_still_without_its_modifier_is_denied_again(portal):
    claim, lines = denied_claim(portal.start_task(PAIR_TASK))
    row = replace(portal, claim, lines, {})
    assert (row["status"], row["group_code"], row["carc"]) == ("Denied", "CO", "97")
    assert "Line 2 (11102) is included in 17110" in row["decision_reason"]
    assert [c for c in portal.snapshot()["claims"] if c["claim_number"] == claim["claim_number"]][0]["status"] \
        == "Partially Paid"


@pytest.mark.parametrize("modifier", ["XS", "59"])
def test_a_column_two_line_with_a_separate_site_modifier_is_processed(portal, modifier):
    claim, lines = denied_claim(portal.start_task(PAIR_TASK))
    row = replace(portal, claim, lines, {1: modifier})
    assert row["status"] == "Processed" and row["lines"][1]["modifiers"] == modifier


def test_an_office_visit_beside_a_minor_procedure_needs_modifier_25(portal):
    claim, lines = denied_claim(portal.start_task(VISIT_TASK))
    assert replace(portal, claim, lines, {})["carc"] == "97"
    claim, lines = denied_claim(portal.start_task(VISIT_TASK))
    assert replace(portal, claim, lines, {0: "25"})["status"] == "Processed"
