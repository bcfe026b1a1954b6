"""Reference solution of template fax_determination: the payer's determination on the order's
request arrives as a fax in the shared inbox. Find it by the payer's PA line and the case number
the order holds, check that it names this patient (date of birth, member id), file it to the
patient, record on the order what it approves (code, units, dates, numbers: the letter's, not
the request's), then close the item, or, for an approval of less than the order asks, message
the ordering provider and keep the item open for their decision."""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import ehr_steps, fax_steps
from admindesk.harness.agents.reference.portal_a import payer_name
from admindesk.harness.agents.reference.prior_auth.request_on_file import read_reference_on_order
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

LETTER_KEY = "letter"
DOCUMENT_TYPE = "Payer determination"
# What a payer's approval letter states, in the wording of its full and partial approvals.
_AUTH = re.compile(r"Authorization number:\s*(\S+?)\.")
_DATES = re.compile(r"Valid from\s*(\d\d/\d\d/\d{4})\s*through\s*(\d\d/\d\d/\d{4})")
_FULL_UNITS = re.compile(r"Approved units:\s*(\d+)")
_PARTIAL = re.compile(r"PARTIALLY APPROVED\.\s*Requested:\s*(\S+).*?,\s*(\d+) unit\(s\)\.\s*Approved:\s*(\S+).*?,\s*"
                      r"(\d+) unit\(s\)", re.S)


def read_letter(work: Work) -> dict[str, str]:
    """The payer's letter on the order's case, found among the faxes from the payer's PA line and
    read; checks it names this patient (date of birth, member id) and returns what it approves:
    {fax_id, auth_number, start, end, units, code, requested_code, requested_units, partial}."""
    case_number = work.need("payer_reference")
    number = fax_steps.case_fax_number(work, LETTER_KEY)
    row, _, text = fax_steps.find_fax(work, number, lambda t: case_number in t, f"the letter on case {case_number}",
                                      limit=8)
    text = " ".join(text.split())
    member = work.ids["coverages"]["primary"]["payer_member_id"]
    if us_date(work.patient["dob"]) not in text or member not in text:
        raise ScriptFailed(f"fax {row['fax_id']} on case {case_number} names another patient: {text[:300]}")
    auth, dates = _AUTH.search(text), _DATES.search(text)
    if not (auth and dates):
        raise ScriptFailed(f"fax {row['fax_id']} is no approval: {text[:400]}")
    letter = {"fax_id": row["fax_id"], "auth_number": auth.group(1), "start": dates.group(1), "end": dates.group(2)}
    partial = _PARTIAL.search(text)
    if partial:
        letter.update(requested_code=partial.group(1), requested_units=partial.group(2), code=partial.group(3),
                      units=partial.group(4), partial="yes")
    else:
        letter.update(code=work.need("code"), units=_FULL_UNITS.search(text).group(1), partial="")
    work.notes["letter"] = letter
    return letter


def file_letter(work: Work) -> None:
    """On the open fax, File to patient: the patient's name, date of birth and MRN, the case number
    as reference, the document type and a note."""
    actor, letter = work.actor, work.need("letter")
    actor.click("button[data-open=file-dialog]")
    actor.fill("input[name=file-patient_name]", f"{work.patient['last_name']}, {work.patient['first_name']}")
    actor.fill("input[name=file-dob]", us_date(work.patient["dob"]))
    actor.fill("input[name=file-mrn]", work.ids["mrn"])
    actor.fill("input[name=file-reference]", work.need("payer_reference"))
    actor.select_option("select[name=file-document_type]", DOCUMENT_TYPE)
    actor.fill("textarea[name=file-note]", f"Payer determination on case {work.need('payer_reference')}, auth "
                                           f"{letter['auth_number']}: filed to the chart; posted on order "
                                           f"{work.need('order_id')}.")
    actor.click("button:text-is('File fax')")
    if not actor.count(".flash-success:has-text('filed to')"):
        raise ScriptFailed(f"the fax was not filed: {actor.text('main')[:400]}")


def approval_text(letter: dict[str, str]) -> str:
    """The approval as the letter states it, for notes and messages."""
    return (f"auth {letter['auth_number']}, {letter['units']} unit(s) of {letter['code']}, {letter['start']} through "
            f"{letter['end']}")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    payer = payer_name(work.case["coverages"][0]["payer"])
    if work.doing("read_letter"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        read_reference_on_order(work)
        read_letter(work)
    if work.doing("file_letter"):
        file_letter(work)
    letter = work.need("letter")
    if work.doing("record_authorization"):
        ehr_steps.back_to_order(work)
        ehr_steps.record_authorization(
            work, status="Approved", payer=payer, auth_number=letter["auth_number"], units=letter["units"],
            start=letter["start"], end=letter["end"],
            code=letter["code"] if letter["code"] != work.need("code") else "")
    case_number = work.notes.get("payer_reference", "")
    if letter.get("partial"):
        requested = f"{letter['requested_units']} unit(s) of {letter['requested_code']}"
        ehr_steps.route_to_provider_and_hold(
            work, subject=f"Partial approval on order {work.notes.get('order_id')}: your decision",
            message=f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {work.notes.get('order_id')}: "
                    f"{payer} (case {case_number}) did not approve the {requested} requested. It approved "
                    f"{approval_text(letter)} (letter faxed {letter['fax_id']}, filed to the chart). Please "
                    "decide whether to proceed with what was approved, request a peer-to-peer review, or appeal.",
            comment=f"{payer} determination faxed ({letter['fax_id']}) and filed to the chart: requested {requested}, "
                    f"approved {approval_text(letter)}, recorded on the authorization. Sent to the ordering provider "
                    "to decide (accept, peer-to-peer or appeal); item kept In Progress until they answer.")
        work.finish(f"{payer} approved in part: {approval_text(letter)} (requested {requested}). Recorded on the "
                    "order, the ordering provider asked to decide; the item stays In Progress.")
        return
    if work.doing("close_item"):
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"{payer} approval faxed ({letter['fax_id']}), filed to the chart and posted: "
                  f"{approval_text(letter)} (case {case_number}). Ready to schedule within those dates.")
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"{payer} approved the service as ordered: {approval_text(letter)}. "
                "Recorded on the order; the item is Auth Obtained.")
