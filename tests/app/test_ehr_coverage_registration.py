"""EHR registration of a coverage change (envs/ehr_web/registration/coverage.py): a new card's coverage
is added on the Coverage tab only once the coverage of the same rank it replaces is ended, for a plan of
its payer and a member id not registered yet; End coverage sets a coverage's last day (not before it
began); an order is billed to another coverage only when that one is in force on its planned date, and
its open work item follows it to the new payer. Refused changes write nothing. The new card itself is a
scanned chart document (Insurance Card) and registration holds no coverage of it until it is added."""
from __future__ import annotations

import re

import pytest

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import case_clients

TASK = "pa-easy-19"  # Atlas Choice on file (ended 10/31/2026 at the payer); a Keystone HMO card from 11/01
SOURCE = "Card scanned at check-in; payer eligibility inquiry 1234567."


@pytest.fixture(scope="module")
def values():
    return next(case_values(t) for t in load_tasks(TASKS_ROOT) if t.id == TASK)


@pytest.fixture(scope="module")
def ehr(app_data_dir):
    return case_clients(app_data_dir / "coverage-registration", ("ehr_web",))["ehr_web"]


@pytest.fixture
def started(ehr, values):
    ehr.start_task(TASK)
    return values["ids"]


def add(ehr, mrn: str, **fields):
    data = {"payer_id": "PYR-KMH", "plan_id": "PLN-KMH-HMO", "member_id": "", "group_number": "KHM02848",
            "subscriber_name": "Greta Halvorsen", "relationship": "Self", "effective_date": "11/01/2026",
            "rank": "1", "source": SOURCE, **fields}
    return ehr.post(f"/patients/{mrn}/coverage/add", data)


def end(ehr, mrn: str, coverage: str, last_day: str, reason: str = SOURCE):
    return ehr.post(f"/patients/{mrn}/coverage/end",
                    {"coverage_id": coverage, "termination_date": last_day, "reason": reason})


def bill(ehr, order: str, coverage: str):
    return ehr.post(f"/orders/{order}/coverage", {"coverage_id": coverage, "reason": "New card."})


def _rows(ehr, table: str, **where) -> list[dict]:
    return [r for r in ehr.snapshot()[table] if all(r[k] == v for k, v in where.items())]


def test_the_new_card_is_a_scanned_document_and_registration_does_not_hold_its_coverage(ehr, started):
    [card] = _rows(ehr, "documents", id=started["documents"]["card"])
    assert (card["kind"], card["author_name"], card["document_date"]) == (
        "Insurance Card", "Patient Access (scanned)", "2026-11-04")
    new = started["coverages"]["new"]["member_id"]
    assert f"Member ID: {new}" in card["text"] and "Effective date: 11/01/2026" in card["text"]
    assert "Keystone Mutual Community HMO (HMO)" in card["text"]
    assert [c["payer_id"] for c in _rows(ehr, "coverages", mrn=started["mrn"])] == ["PYR-ACH"]
    # Check-in took the card for registration: the coverage on file was not verified that day.
    assert _rows(ehr, "coverage_history", mrn=started["mrn"]) == []


def test_a_new_primary_is_refused_while_the_old_primary_is_open_then_added_once_it_ends(ehr, started):
    mrn, old = started["mrn"], started["coverages"]["primary"]["id"]
    member = started["coverages"]["new"]["member_id"]
    refused = add(ehr, mrn, member_id=member)
    assert refused.status_code == 422 and "End it first" in refused.get_data(as_text=True)
    assert len(_rows(ehr, "coverages", mrn=mrn)) == 1
    assert end(ehr, mrn, old, "10/31/2026").status_code == 302
    assert _rows(ehr, "coverages", id=old)[0]["termination_date"] == "2026-10-31"
    assert add(ehr, mrn, member_id=member.lower()).status_code == 302
    [added] = _rows(ehr, "coverages", mrn=mrn, member_id=member)
    assert (added["payer_id"], added["plan_id"], added["rank"], added["effective_date"], added["termination_date"],
            added["verification_status"]) == ("PYR-KMH", "PLN-KMH-HMO", 1, "2026-11-01", None, "Not Verified")
    events = {(e["coverage_id"], e["event"]) for e in _rows(ehr, "coverage_history", mrn=mrn)}
    assert events == {(old, "Termination date change"), (added["id"], "Coverage added")}


@pytest.mark.parametrize("fields, message", [
    ({"plan_id": "PLN-NWH-PPO"}, "Choose a plan of the selected payer"),
    ({"relationship": "Spouse"}, "The patient is not their own dependent"),
    ({"rank": "2", "member_id": "ACH0284800"}, "is already registered"),
    ({"effective_date": ""}, "Enter the date the coverage begins"),
])
def test_an_inconsistent_coverage_is_refused_and_nothing_is_written(ehr, started, fields, message):
    response = add(ehr, started["mrn"], **{"member_id": "KMH0284801", "rank": "2", **fields})
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert len(_rows(ehr, "coverages", mrn=started["mrn"])) == 1
    assert _rows(ehr, "coverage_history", mrn=started["mrn"]) == []


def test_a_coverage_cannot_end_before_it_began_or_on_the_day_it_already_ends(ehr, started):
    mrn, old = started["mrn"], started["coverages"]["primary"]["id"]
    early = end(ehr, mrn, old, "12/31/2021")
    assert early.status_code == 422 and "cannot end before it began" in early.get_data(as_text=True)
    assert end(ehr, mrn, old, "10/31/2026").status_code == 302
    again = end(ehr, mrn, old, "10/31/2026", "Checked again.")  # not the same form resent
    assert again.status_code == 422 and "nothing changes" in again.get_data(as_text=True)
    assert len(_rows(ehr, "coverage_history", mrn=mrn)) == 1


def test_the_order_is_billed_only_to_a_coverage_in_force_on_its_planned_date(ehr, started):
    mrn, order, old = started["mrn"], started["orders"]["svc"], started["coverages"]["primary"]["id"]
    member = started["coverages"]["new"]["member_id"]
    assert end(ehr, mrn, old, "10/31/2026").status_code == 302
    # A Keystone coverage starting after the planned date (11/25/2026) cannot pay for it.
    assert add(ehr, mrn, member_id=member, effective_date="12/01/2026").status_code == 302
    [late] = _rows(ehr, "coverages", mrn=mrn, member_id=member)
    refused = bill(ehr, order, late["id"])
    assert refused.status_code == 422 and "is not in force on the planned date" in refused.get_data(as_text=True)
    assert _rows(ehr, "orders", id=order)[0]["coverage_id"] == old
    assert end(ehr, mrn, late["id"], "12/31/2026").status_code == 302  # a last day does not move its start
    ehr.start_task(TASK)
    assert end(ehr, mrn, old, "10/31/2026").status_code == 302
    assert add(ehr, mrn, member_id=member).status_code == 302
    [added] = _rows(ehr, "coverages", mrn=mrn, member_id=member)
    assert bill(ehr, order, added["id"]).status_code == 302
    assert _rows(ehr, "orders", id=order)[0]["coverage_id"] == added["id"]
    assert [i["payer_id"] for i in _rows(ehr, "work_items", order_id=order)] == ["PYR-KMH"]
    page = ehr.get(f"/orders/{order}").get_data(as_text=True)
    assert f"Member ID {member}" in page
    # The order page's forms name each control once (a label names one control).
    controls = [i for i in re.findall(r'<(?:input|select|textarea)[^>]*\sid="([^"]+)"', page) if i != "csrf_token"]
    assert len(controls) == len(set(controls)) and '<label for="order_coverage_id">' in page


def test_the_billing_coverage_choices_give_each_coverage_its_dates(ehr, started):
    """A patient's ended coverages stay registered; the order's choices say when each is in force."""
    mrn, order, old = started["mrn"], started["orders"]["svc"], started["coverages"]["primary"]["id"]
    assert end(ehr, mrn, old, "10/31/2026").status_code == 302
    page = ehr.get(f"/orders/{order}").get_data(as_text=True)
    select = page.split('id="order_coverage_id"')[1].split("</select>")[0]
    member = started["coverages"]["primary"]["member_id"]
    [ended] = [o for o in re.findall(r"<option[^>]*>([^<]*)</option>", select) if f"({member})" in o]
    assert re.search(r"\), \d\d/\d\d/\d{4} to 10/31/2026$", ended), ended
