"""Reference solution of template prior_auth/sleep_home_first: an attended in-lab polysomnography
ordered for suspected obstructive sleep apnea, for a member of a portal A payer whose sleep study
policy wants a home sleep apnea test first and approves the in-lab study only for a significant
comorbidity the sleep consultation documents.

Read the order and the consultation, and the policy in the payer's Medical policy library. No
such comorbidity documented for the patient: file nothing, send the ordering provider a staff
message asking to change the order to a home sleep apnea test (or to document the reason),
comment and keep the item In Progress. One documented: check eligibility, request the in-lab
study answering with that comorbidity and the consultation attached, record the approval.
"""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.prior_auth.portal_a_submit import (
    chart_facts,
    download_document,
    find_active_coverage,
)
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

HOME_TEST_CODES = "95800, 95806 or G0399"
# The consultation's words for a comorbidity -> the questionnaire's choice for it.
COMORBIDITY_CHOICES = (("heart failure", "Congestive heart failure"), ("copd", "COPD"),
                       ("obstructive pulmonary", "COPD"), ("neuromuscular", "Neuromuscular disease"),
                       ("amyotrophic", "Neuromuscular disease"), ("dystrophy", "Neuromuscular disease"))


def in_lab_reason(facts: dict) -> str | None:
    """The questionnaire's comorbidity the consultation documents for the patient, if any (the
    typed fact is the patient's own; a relative's condition or one ruled out is in the narrative)."""
    stated = str(facts.get("cardiopulmonary_comorbidity") or "none").lower()
    if stated in ("none", ""):
        return None
    return next((choice for words, choice in COMORBIDITY_CHOICES if words in stated), None)


def sleep_answers(facts: dict, reason: str) -> dict[str, str]:
    """The sleep study questionnaire: the consultation's scores, its symptoms (a consultation for
    suspected apnea records the snoring; an Epworth over 10 is excessive sleepiness) and the reason."""
    answers = portal_a.questionnaire_answers(facts, [])
    answers.update(snoring_witnessed_apneas="Yes", cardiopulmonary_comorbidity=reason,
                   daytime_sleepiness="Yes" if int(facts.get("epworth_score") or 0) > 10 else "No")
    return answers


def home_test_rule(policy_row: str) -> str:
    """The library row's criterion that puts the home test first (its sentence, capitalised)."""
    found = re.search(r"a home sleep apnea test[^.]*\.", policy_row)
    if not found:
        raise ScriptFailed(f"the policy library states no home-test rule: {policy_row[:300]}")
    return found.group(0)[0].upper() + found.group(0)[1:]


def message_text(work: Work, policy: str) -> str:
    n = work.notes
    return (f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {n['order_id']}: {n['code']} attended "
            f"in-lab polysomnography planned {n['planned']} at {n['facility']}. {portal_a.payer_name(n['payer_id'])}'s "
            f"sleep study policy (Medical policy library, {n['code']}): {policy} The sleep consultation documents none "
            "of these for the patient (a condition it names only in the family history, or rules out, does not "
            "count). Nothing has been submitted to "
            f"the payer. Please change the order to a home sleep apnea test ({HOME_TEST_CODES}), or document the "
            "comorbidity that needs the lab if there is one; we will request the authorization for the test you order.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    facts, _ = chart_facts(work)
    reason = in_lab_reason(facts)
    coverage = work.case["coverages"][0]
    work.notes.update(payer_id=coverage["payer"],
                      member_id=work.ids["coverages"][coverage["key"]]["payer_member_id"])
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        if reason is None:
            ehr_steps.open_document(work, "visit")
        else:
            attachments.append((download_document(work, "visit"), "Clinical notes"))
    policy = ""
    if work.doing("read_policy"):
        policy = home_test_rule(portal_a.medical_policy(work, work.notes["payer_id"], work.need("code")))
    if reason is None:
        if work.doing("route_to_provider"):
            work.need("order_id")
            ehr_steps.send_staff_message(
                work, message_type="Clinical question",
                subject=f"Sleep study: home sleep apnea test first ({work.notes['code']} not submitted)",
                body=message_text(work, policy or "A home sleep apnea test comes first."))
            work.notes["messaged"] = "yes"
        if work.doing("hold_item"):
            ehr_steps.back_to_order(work)
            ehr_steps.add_order_comment(
                work, f"Not submitted to {portal_a.payer_name(work.notes['payer_id'])}: its sleep study policy wants a "
                      f"home sleep apnea test ({HOME_TEST_CODES}) first and approves an attended in-lab study "
                      f"({work.notes['code']}) only for a significant comorbidity the consultation documents (heart "
                      "failure, moderate-to-severe COPD, neuromuscular disease). The consultation documents none for "
                      "the patient (conditions named only in the family history or ruled out do not count). "
                      f"Staff message sent to the ordering provider ({work.notes['provider']}) to "
                      "change the order to a home sleep apnea test. When the order is changed, request the home test; "
                      "follow up with the provider in 2 business days.")
            ehr_steps.set_work_item(work, "In Progress")
        work.finish("Nothing submitted: the payer's sleep study policy wants a home sleep apnea test first and the "
                    "consultation documents no comorbidity that needs the in-lab study. The ordering provider was asked "
                    "by staff message to change the order to a home test; the Prior Auth item is left In Progress with "
                    "an order comment.")
        return
    checked: list[str] = []
    if work.doing("verify_eligibility"):
        checked = find_active_coverage(work)
    decision: dict[str, str] = {}
    if work.doing("submit_request"):
        work.need("order_id")
        if not checked:
            raise ScriptFailed("no request before the coverage is confirmed")
        decision = portal_a.submit_prior_auth(work, payer_id=work.notes["payer_id"], member_id=work.notes["member_id"],
                                              answers=sleep_answers(facts, reason), attachments=attachments)
        portal_a.require_approval(work, decision)
    if work.doing("record_decision"):
        portal_a.record_decision(work, decision)
    if work.doing("close_item"):
        work.need("recorded")
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"Prior authorization approved by {portal_a.payer_name(work.notes['payer_id'])} via Payer Portal A: "
                  f"auth {decision['auth_number']}, case {decision['case_number']}, {work.notes['code']} attended in-lab "
                  f"polysomnography approved {decision['start']} to {decision['end']}. Requested in-lab rather than a "
                  f"home sleep apnea test because the sleep consultation documents the patient's {reason.lower()} "
                  f"({facts['cardiopulmonary_comorbidity']}), the comorbidity it documents for the patient; conditions it "
                  "rules out were not claimed. The sleep consultation was attached.")
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"Approved by {portal_a.payer_name(work.notes['payer_id'])} on the documented {reason.lower()}: "
                f"authorization {decision.get('auth_number', 'none')} (case {decision.get('case_number', 'none')}) "
                f"recorded on order {work.need('order_id')}.")
