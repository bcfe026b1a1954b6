"""Reference solution of template preservice_appeal: the request on file at portal A was
denied on a criterion of the medical policy, and a chart document written since answers
it. Read the denied case, find that document on the chart's Documents tab (it belongs to a
later visit, not to the order), file the pre-service appeal on the case with it, in the
timeframe the patient's condition calls for, then record the denial on the order and the
appeal on the work item."""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.ehr_steps import click_to_download
from admindesk.harness.agents.reference.prior_auth.auth_on_file.denied_request import (
    hand_on,
    read_denied_case,
    record_denial,
)
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

NOT_STATED = ("", "none", "no")
APPEAL_DOCUMENT_TYPE = "Clinical notes"


def _stated(facts: dict, key: str) -> bool:
    return str(facts.get(key) or "").lower() not in NOT_STATED


def answers_denial(reason: str, facts: dict) -> bool:
    """Whether a document's facts meet the criterion the denial quotes: the weeks of
    conservative therapy it asks for, or the alternative it names (a red flag, mechanical
    symptoms on examination)."""
    weeks = re.search(r"(\d+) weeks", reason)
    if weeks and (facts.get("conservative_therapy_weeks") or 0) >= int(weeks.group(1)):
        return True
    if "red-flag" in reason and _stated(facts, "red_flags"):
        return True
    return "mechanical symptoms" in reason and facts.get("mcmurray_test") == "positive"


def later_answering_document(work: Work) -> dict:
    """The chart document written after the order that answers the denial's criterion."""
    ordered = next(o for o in work.case["orders"] if o["key"] == "svc")["ordered_on"]
    later = [d for d in work.case["documents"] if d["date"] > ordered]
    found = [d for d in later if answers_denial(work.need("reason"), d.get("facts") or {})]
    if not found:
        raise ScriptFailed(f"no chart document after {ordered} answers the denial ({work.notes['reason']})")
    return found[0]


def read_answering_document(work: Work) -> None:
    """Open the answering document from the chart's Documents tab and download it; notes the
    file name, the document's title and date, and the timeframe its findings call for (a
    neurological deficit puts function at risk: expedited)."""
    actor = work.actor
    document = later_answering_document(work)
    doc_id = work.ids["documents"][document["key"]]
    ehr_steps.back_to_order(work)
    actor.click("nav[aria-label='Chart sections'] a:text-is('Documents')")
    actor.click(f"main table a[href='/documents/{doc_id}']")
    facts = document.get("facts") or {}
    work.notes.update(doc_key=document["key"], doc_title=actor.text(".pv-head h2").strip(),
                      doc_date=us_date(document["date"]),
                      urgency="Expedited" if _stated(facts, "focal_neurologic_deficit") else "Standard")
    work.notes["file_name"] = click_to_download(work, "a.pv-btn[download]", doc_id)


def file_appeal(work: Work) -> None:
    """The case's "File pre-service appeal" form: timeframe, the argument, contact, and the
    downloaded document as clinical notes; notes the appeal's reference and due date."""
    actor = work.actor
    portal_a.open_case(work, work.need("case_number"))
    actor.click("a:text-is('File pre-service appeal')")
    actor.select_option("select[name=urgency]", {"Standard": "Standard", "Expedited":
                                                 "Expedited (life, health or function at risk)"}[work.need("urgency")])
    actor.fill("textarea[name=argument]",
               f"Case {work.notes['case_number']} was denied: {work.notes['reason']} The enclosed "
               f"{work.notes['doc_title']} of {work.notes['doc_date']}, written after the request, documents what "
               f"the denial found missing, so the criterion is now met. We ask that the {work.notes['code']} "
               f"ordered by {work.notes['provider']} be approved.")
    actor.fill("input[name=contact_name]", "Jordan Ellis, Prior Authorization")
    actor.fill("input[name=contact_phone]", work.notes["provider_phone"])
    actor.select_option("select[name=document_type]", APPEAL_DOCUMENT_TYPE)
    actor.upload("input[name=file]", work.need("file_name"))
    actor.click("main form button:text-is('Submit appeal')")
    found = re.search(r"Pre-service appeal (\S+) received; decision due (\S+ \S+)", actor.text("main"))
    if found is None:
        raise ScriptFailed(f"the appeal was not filed: {actor.text('main')[:500]}")
    work.notes.update(appeal=found.group(1), due=found.group(2).rstrip("."))


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    ehr_steps.open_chart(work)
    ehr_steps.open_order(work)
    if work.doing("read_denial"):
        read_denied_case(work)
        read_answering_document(work)
    if work.doing("file_appeal"):
        file_appeal(work)
    if work.doing("record_denial"):
        record_denial(work)
    if work.doing("close_item"):
        hand_on(work, f"Filed {work.notes['urgency'].lower()} pre-service appeal {work.need('appeal')} on the "
                      f"portal today with the {work.notes['doc_title']} of {work.notes['doc_date']}, which answers "
                      f"the denial. Decision due {work.notes['due']}; follow up then.", "Appeal Filed")
    work.finish(f"Case {work.notes.get('case_number', '?')} was denied; pre-service appeal "
                f"{work.notes.get('appeal', 'not filed')} was filed with the {work.notes.get('doc_title', '?')}, "
                f"decision due {work.notes.get('due', '?')}.")
