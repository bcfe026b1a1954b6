"""Gestures the templates that act on a request the payer denied share (peer_to_peer,
preservice_appeal): find the denied case on portal A by the case number the order holds,
record the denial on the order's authorization, and hand the item on with a comment."""
from __future__ import annotations

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.prior_auth.request_on_file import read_reference_on_order
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed


def read_denied_case(work: Work) -> dict[str, str]:
    """From the order page: the payer's case number on the authorization, then that case on
    portal A, which must be denied; notes case_number, reason and payer_id."""
    read_reference_on_order(work)
    decision = portal_a.open_case(work, work.need("payer_reference"))
    if decision["status"] != "Denied":
        raise ScriptFailed(f"case {decision['case_number']} is {decision['status']}, not denied")
    work.notes.update(case_number=decision["case_number"], reason=decision["reason"],
                      payer_id=work.case["coverages"][0]["payer"])
    return decision


def record_denial(work: Work) -> None:
    """The order's authorization set to Denied by the payer (the order already holds the
    payer's case number as its reference)."""
    work.need("case_number")
    ehr_steps.back_to_order(work)
    ehr_steps.record_authorization(work, status="Denied", payer=portal_a.payer_name(work.need("payer_id")))
    work.notes["recorded"] = "Denied"


def hand_on(work: Work, what_was_done: str, status: str) -> None:
    """Once the denial is recorded: an order comment naming the denied case and its reason,
    then what was done about it, and the item set to the status that waits on it."""
    work.need("recorded")
    ehr_steps.back_to_order(work)
    ehr_steps.add_order_comment(work, f"{portal_a.payer_name(work.need('payer_id'))} denied case "
                                      f"{work.notes['case_number']} ({work.notes['reason']}). {what_was_done}")
    ehr_steps.set_work_item(work, status)
