"""Reference solution of template prior_auth/retro_auth: a service performed without the
authorization it needed. Read the order (its date of service) and the clinician's note, check
eligibility for that date, and read the payer's retro-authorization rule in its provider
manual on portal A (calendar days after the date of service; any service or emergent ones
only). Inside the window: one retro request in the wizard for the day the service was done,
attesting it emergent only when the note says so, and the decision recorded on the order and
the item. Outside it: file nothing, comment with the date of service, the rule and its last
day for the revenue cycle team, and keep the item In Progress.
"""
from __future__ import annotations

import re
from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.prior_auth.portal_a_submit import chart_facts, download_supporting_documents
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

RETRO_RULE = re.compile(r"within (\d+) calendar days after the date of service, for (emergent services only|any service)")


def retro_rule(work: Work, payer_id: str) -> tuple[int, bool, str]:
    """The payer's retro-authorization rule from its provider manual: (days after the date of
    service, emergent services only, the rule as the payer states it); 0 days when it takes none."""
    text = portal_a.manual_chapter(work, payer_id, "Retro authorization")
    stated = text.split("Retro authorization", 1)[-1].strip()
    if "does not accept retro-authorization" in text:
        return 0, True, stated
    found = RETRO_RULE.search(text)
    if found is None:
        raise ScriptFailed(f"the manual's retro-authorization chapter states no window: {text!r}")
    return int(found.group(1)), found.group(2) == "emergent services only", stated


def chart_says_emergent(work: Work) -> bool:
    """Whether the ordering clinician's note documents the service as emergent."""
    return any("emergent" in (document.get("narrative") or "").lower() for document in work.case.get("documents", []))


def stop_comment(work: Work, served: date, last_day: date, rule: str, today: date) -> str:
    n = work.notes
    return (f"Retro-authorization NOT requested for order {n['order_id']} ({work.patient_name}, DOB "
            f"{work.patient['dob']}): {n['code']} was performed on {us_date(served)} without prior authorization. "
            f"{portal_a.payer_name(n['payer_id'])} (member {n['member_id']}, active on the date of service) states: "
            f"\"{rule}\" Counted from the date of service {us_date(served)}, the last day to request it was "
            f"{us_date(last_day)}; today is {us_date(today)}, so the window has closed. Nothing was filed on any "
            f"portal or by fax. Revenue cycle (billing) team: please hold the charge for this service and decide on "
            f"the write-off; the Prior Auth item stays In Progress.")


def closing_comment(work: Work, decision: dict[str, str], served: date, rule: str, sent: list[str]) -> str:
    n = work.notes
    return (f"{n['code']} was performed on {us_date(served)} before prior authorization was obtained. "
            f"{portal_a.payer_name(n['payer_id'])}'s rule: \"{rule}\" Requested retro-authorization on "
            f"{us_date(work.task.now.date())}, within that window, via Payer Portal A: approved, auth "
            f"{decision['auth_number']}, case {decision['case_number']}, {decision['units']} unit(s) "
            f"{decision['start']} to {decision['end']}. Sent: {', '.join(sent) or 'no file'}. Eligibility for the "
            f"date of service: active (member {n['member_id']}). The charge can be released to billing.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    feasible = work.task.feasible
    ehr_steps.open_chart(work)
    ehr_steps.open_order(work)
    served = parse_us_date(work.notes["planned"])  # a performed order's service date
    coverage = work.case["coverages"][0]
    work.notes.update(payer_id=coverage["payer"], member_id=work.ids["coverages"][coverage["key"]]["payer_member_id"])
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        if feasible:
            attachments = download_supporting_documents(work)
        else:
            ehr_steps.open_document(work, next(d["key"] for d in work.case["documents"] if d.get("order") == "svc"))
    if work.doing("verify_eligibility"):
        result = portal_a.check_eligibility(work, work.notes["member_id"], work.notes["payer_id"], served)
        if result != "Active":
            raise ScriptFailed(f"member {work.notes['member_id']} is {result} on {us_date(served)}")
        work.notes["eligible"] = result
    days, emergent_only, rule = retro_rule(work, work.notes["payer_id"])
    today, emergent = work.task.now.date(), chart_says_emergent(work)
    last_day = served + timedelta(days=days)
    window_open = days > 0 and today <= last_day and (emergent or not emergent_only)
    if window_open != feasible:
        raise ScriptFailed(f"the retro window for {us_date(served)} ends {us_date(last_day)} ({rule}); "
                           f"the task says feasible={feasible}")
    if not feasible:
        if work.doing("document_stop"):
            ehr_steps.back_to_order(work)
            ehr_steps.add_order_comment(work, stop_comment(work, served, last_day, rule, today))
        if work.doing("hold_item"):
            ehr_steps.back_to_order(work)
            ehr_steps.set_work_item(work, "In Progress", f"Retro window closed on {us_date(last_day)}; nothing "
                                                          "filed. Charge held for the revenue cycle team.")
        work.finish(f"No retro-authorization was requested: {work.notes['code']} was performed on {us_date(served)} "
                    f"and {portal_a.payer_name(work.notes['payer_id'])} accepts retro requests only as follows: "
                    f"{rule} The window closed on {us_date(last_day)}. The order comment asks the revenue cycle team "
                    "to hold the charge; the Prior Auth item stays In Progress.")
        return
    decision: dict[str, str] = {}
    if work.doing("submit_retro"):
        work.need("eligible")
        facts, _ = chart_facts(work)
        decision = portal_a.submit_prior_auth(
            work, payer_id=work.notes["payer_id"], member_id=work.notes["member_id"],
            answers=portal_a.questionnaire_answers(facts, work.case.get("documents", [])), attachments=attachments,
            performed_on=served, emergent=emergent)
        if decision["status"] != "Approved":
            raise ScriptFailed(f"the retro request was not approved: {decision}")
        work.notes["case_number"] = decision["case_number"]
    if work.doing("record_decision"):
        work.need("case_number")
        portal_a.record_decision(work, decision)
    if work.doing("close_item"):
        work.need("recorded")
        ehr_steps.back_to_order(work)
        sent = [f"{name} ({kind})" for name, kind in attachments]
        ehr_steps.add_order_comment(work, closing_comment(work, decision, served, rule, sent))
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"Retro-authorization approved by {portal_a.payer_name(work.notes['payer_id'])} for the "
                f"{us_date(served)} service: authorization {decision.get('auth_number', 'none')} (case "
                f"{decision.get('case_number', 'none')}) recorded on order {work.notes['order_id']}.")
