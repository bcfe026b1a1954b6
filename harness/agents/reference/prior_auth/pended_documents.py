"""Reference solution of template pended_documents: a request on file at portal A is pended
for information; read the payer's fax and the pended case, add the chart document it asks
for to that case (no new request), and record the result in the EHR.

Route "fax" answers the pend the other way its letter allows: the document is faxed to the
number the payer's fax came from, the case number on the cover sheet; the payer's intake
files it to the case, and the case's new determination is read on the portal."""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import ehr_steps, fax_steps, portal_a
from admindesk.harness.agents.reference.prior_auth.portal_a_submit import download_document
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

# The EHR work item status that matches the payer's decision after the pend is answered.
WORK_ITEM_STATUS = {"Approved": "Auth Obtained", "Denied": "Denied"}
ROUTES = ("fax",)


def read_pend(work: Work) -> None:
    """The case number on the order's authorization, the payer's fax about it in the inbox,
    then the pended case on portal A: notes the case number and what the case is missing."""
    case_number = work.actor.read("#authorization input[name=reference_number]").input_value().strip()
    if not case_number:
        raise ScriptFailed("the order's authorization names no payer case")
    # The payer's letters come from its prior-authorization line; the one on this case says so on its pages.
    number = fax_steps.case_fax_number(work, work.case["faxes"][0]["key"])
    row, _, _ = fax_steps.find_fax(work, number, lambda text: case_number in text, f"the letter on case {case_number}",
                                   limit=8)
    work.notes["fax_seen"] = f"{row['fax_id']} from {row['from_number']}, received {row['received']}"
    work.notes["fax_number"] = row["from_number"]
    decision = portal_a.open_case(work, case_number)
    if decision["status"] != "Pended":
        raise ScriptFailed(f"case {case_number} is {decision['status']}, not pended")
    coverage = work.case["coverages"][0]
    work.notes.update(case_number=case_number, missing=decision.get("missing", ""), payer_id=coverage["payer"])


def requested_document(work: Work) -> dict:
    """The chart document of the order whose portal document type is the one the pend names."""
    missing = work.need("missing")
    for document in work.case.get("documents", []):
        if portal_a.DOCUMENT_TYPES.get(document["type"], "") and portal_a.DOCUMENT_TYPES[document["type"]] in missing:
            return document
    raise ScriptFailed(f"no chart document answers the pend ({missing!r})")


def send_document(work: Work) -> dict[str, str]:
    """Download the requested document from the order, add it to the pended case's
    Documents tab; returns the case's determination after the new review."""
    document = requested_document(work)
    document_type = portal_a.DOCUMENT_TYPES[document["type"]]
    ehr_steps.back_to_order(work)
    file_name = download_document(work, document["key"])
    portal_a.open_case(work, work.notes["case_number"], tab="Documents")
    portal_a.attach_to_request(work, file_name, document_type, button="Upload and send for review")
    decision = portal_a.case_decision(work)
    work.notes.update(sent=f"{file_name} ({document_type})", status=decision["status"])
    return decision


def fax_document(work: Work) -> dict[str, str]:
    """Download the requested document and fax it to the number the pend came from, the case
    number on the cover sheet; returns the case's determination on the portal afterwards."""
    document = requested_document(work)
    case_number, fax_number = work.need("case_number"), work.need("fax_number")
    ehr_steps.back_to_order(work)
    file_name = download_document(work, document["key"])
    fax_steps.compose_to_contact(work, portal_a.payer_name(work.need("payer_id")), "Payer - Prior Authorization")
    addressed = re.sub(r"\D", "", work.actor.read("input[name=to_number]").input_value())
    if addressed != re.sub(r"\D", "", fax_number):
        raise ScriptFailed(f"the payer's PA line {addressed} is not the number its pend came from ({fax_number})")
    fax_steps.fill_cover(work, attention="Utilization Management", re_line=f"Case {case_number} - requested records",
                         comments=f"In answer to your request for information on case {case_number}.")
    fax_steps.attach(work, file_name)
    job = fax_steps.send(work)
    decision = portal_a.open_case(work, case_number)
    work.notes.update(sent=f"{file_name} (faxed to {job['to_number']}, job {job['job_id']})",
                      status=decision["status"])
    return decision


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("read_request"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        read_pend(work)
    decision: dict[str, str] = {}
    if work.doing("send_document"):
        decision = fax_document(work) if work.route == "fax" else send_document(work)
        if decision["status"] not in WORK_ITEM_STATUS:
            raise ScriptFailed(f"the case is {decision['status']} after the document was added: {decision}")
    payer = portal_a.payer_name(work.need("payer_id"))
    if work.doing("record_result"):
        status = work.need("status")
        ehr_steps.back_to_order(work)
        ehr_steps.record_authorization(
            work, status=status, payer=payer, auth_number=decision.get("auth_number", ""),
            reference=work.notes["case_number"], units=decision.get("units", ""), start=decision.get("start", ""),
            end=decision.get("end", ""))
        work.notes["recorded"] = status
    if work.doing("close_item"):
        status = work.need("recorded")
        ehr_steps.back_to_order(work)
        approval = (f" Auth {decision['auth_number']}, {decision['units']} unit(s), {decision['start']} to "
                    f"{decision['end']}." if decision.get("auth_number") else f" Reason: {decision.get('reason')}.")
        ehr_steps.add_order_comment(
            work, f"{payer} pended case {work.notes['case_number']} for information (fax "
                  f"{work.notes['fax_seen']}): it asked for {work.notes['missing']}. "
                  f"{'Faxed' if work.route == 'fax' else 'Added'} {work.notes['sent']} from the chart to the "
                  f"pended case (no new request filed). The case was reviewed again: {status}.{approval}")
        ehr_steps.set_work_item(work, WORK_ITEM_STATUS[status])
    work.finish(f"Sent {work.notes.get('sent', 'no document')} to {payer} case {work.need('case_number')} to "
                f"answer the pend; the case is now {work.notes.get('status', 'unchanged')}.")
