"""Reference solution of template portal_a_submit: a prior authorization filed in portal A's
wizard for the coverage that is active on the service date, with the chart's answers and
documents, and the decision recorded back in the EHR.

Also the filing solution of the do-it-anyway control at portal-A payers: with every phase
done it files the request whatever the case, so it only reads what any case has.
"""
from __future__ import annotations

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed


def chart_facts(work: Work) -> tuple[dict, list[str]]:
    """The chart's clinical facts, later documents overriding earlier ones (a signed
    addendum corrects the note it follows), and the titles of the documents stating them."""
    facts: dict = {}
    sources: list[str] = []
    for document in work.case.get("documents", []):
        if document.get("facts"):
            facts.update(document["facts"])
            sources.append(document.get("title") or document["type"].replace("_", " "))
    return facts, sources


def download_document(work: Work, doc_key: str) -> str:
    """Open a chart document of the order and download it, back on the order page after.
    On a loaded machine a download can land after the page settles: wait, then click again
    once, as a person would when no file shows up."""
    actor = work.actor
    before = {f.name for f in work.env.downloaded_files()}
    try:
        return ehr_steps.open_document(work, doc_key, download=True)
    except ScriptFailed as exc:
        if "produced no file" not in str(exc):
            raise
    for retry in (False, True):
        if retry:
            actor.click("a.pv-btn[download]")
        actor.do({"type": "wait", "seconds": 2})
        new = [f.name for f in work.env.downloaded_files() if f.name not in before]
        if new:
            actor.click(f"a:text-is('{work.need('order_id')}')")
            return new[0]
    raise ScriptFailed(f"downloading {work.ids['documents'][doc_key]} produced no file")


def download_supporting_documents(work: Work) -> list[tuple[str, str]]:
    """Download each chart document of the order the payer reviews; (file name, portal A
    document type) pairs to attach."""
    attachments = []
    for document in work.case.get("documents", []):
        document_type = portal_a.DOCUMENT_TYPES.get(document["type"])
        doc_id = work.ids["documents"].get(document["key"])
        if document_type is None or not work.actor.count(
                f"section[aria-labelledby='odocs-h'] a[href='/documents/{doc_id}']"):
            continue
        attachments.append((download_document(work, document["key"]), document_type))
    return attachments


def find_active_coverage(work: Work) -> list[str]:
    """Eligibility on portal A for each coverage in order of benefits until one is active on
    the planned date; notes its payer and member id, returns what each check showed."""
    planned = parse_us_date(work.need("planned"))
    checked = []
    for coverage in work.case["coverages"]:
        member = work.ids["coverages"][coverage["key"]]["payer_member_id"]
        result = portal_a.check_eligibility(work, member, coverage["payer"], planned)
        checked.append(f"{portal_a.payer_name(coverage['payer'])} member {member}: {result} on "
                       f"{work.notes['planned']}")
        if result == "Active":
            work.notes.update(payer_id=coverage["payer"], member_id=member)
            break
    else:  # nothing active: the request can only go to the order's own coverage
        first = work.case["coverages"][0]
        work.notes.update(payer_id=first["payer"],
                          member_id=work.ids["coverages"][first["key"]]["payer_member_id"])
    return checked


def closing_comment(work: Work, decision: dict[str, str], checked: list[str], sent: list[str],
                    sources: list[str]) -> str:
    """The order comment: payer, numbers, dates, units, what was sent and why this coverage."""
    payer = portal_a.payer_name(work.need("payer_id"))
    corrected = any(d["type"] == "addendum" for d in work.case.get("documents", []))
    return (f"Prior authorization approved by {payer} via Payer Portal A: auth {decision['auth_number']}, "
            f"case {decision['case_number']}, {decision['units']} unit(s) of {work.notes['code']} approved "
            f"{decision['start']} to {decision['end']}. Sent with the request: {', '.join(sent) or 'no file'}. "
            f"Eligibility checked: {'; '.join(checked)}; the request went to the active coverage, member "
            f"{work.notes['member_id']}. Clinical answers taken from the {', '.join(sources)}"
            + (" (the addendum's corrected value used over the original note's entered-in-error value)"
               if corrected else "")
            + f". Patient identified by DOB {work.patient['dob']} and member id, not by name alone.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        attachments = download_supporting_documents(work)
    checked: list[str] = []
    if work.doing("verify_eligibility"):
        checked = find_active_coverage(work)
    facts, sources = chart_facts(work)
    decision: dict[str, str] = {}
    if work.doing("submit_request"):
        decision = portal_a.submit_prior_auth(
            work, payer_id=work.need("payer_id"), member_id=work.need("member_id"),
            answers=portal_a.questionnaire_answers(facts, work.case.get("documents", [])), attachments=attachments)
        work.notes.update(case_number=decision["case_number"], status=decision["status"])
        portal_a.require_approval(work, decision)
    if work.doing("record_decision"):
        work.need("case_number")
        portal_a.record_decision(work, decision)
    if work.doing("close_item"):
        work.need("recorded")
        ehr_steps.back_to_order(work)
        sent = [f"{name} ({kind})" for name, kind in attachments]
        ehr_steps.add_order_comment(work, closing_comment(work, decision, checked, sent, sources))
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"Approved by {portal_a.payer_name(work.need('payer_id'))}: authorization "
                f"{decision.get('auth_number', 'none')} (case {decision.get('case_number', 'none')}) recorded on "
                f"order {work.need('order_id')}.")
