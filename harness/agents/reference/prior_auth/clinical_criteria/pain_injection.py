"""Reference solution of template prior_auth/pain_injection: a repeat lumbar epidural steroid
injection for a Keystone Mutual member under Keystone's epidural steroid injection policy
(KM-PAIN-702).

Read the order, the pain clinic note and the procedure and follow-up notes of the earlier injections,
and read the policy. The relief is the one the follow-up note of the most recent LUMBAR injection
measures (not the clinic note's summary, not an earlier injection's); the sessions are the lumbar
injections in the 12 months before the planned date (a cervical one, or an older one, does not
count). Met (50% or more, 6 weeks or more, at most 3 sessions): request the injection for the
surgery center with those answers and the follow-up note attached, and record the approval. Not
met: file nothing, send the ordering provider a staff message with what the follow-up note
measures, comment and keep the item In Progress.
"""
from __future__ import annotations

from datetime import date

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

POLICY = "KM-PAIN-702"
KEYSTONE = "Keystone Mutual Health"
MIN_RELIEF_PERCENT = 50
MIN_RELIEF_WEEKS = 6
MAX_PRIOR_SESSIONS = 3  # 4 per region in 12 months, counting the one requested
REGION = "lumbar"


def lumbar_injections(work: Work) -> list[dict]:
    """The procedure notes of earlier lumbar injections, oldest first."""
    return sorted((d for d in work.case["documents"]
                   if REGION in str((d.get("facts") or {}).get("injection_procedure", "")).lower()),
                  key=lambda d: str(d["date"]))


def sessions_in_window(injections: list[dict], planned: date) -> int:
    """Lumbar sessions on dates within the 12 months before the planned date."""
    start = planned.replace(year=planned.year - 1)
    return sum(1 for d in injections if start < date.fromisoformat(str(d["date"])) < planned)


def follow_up_of(work: Work, injection: dict) -> dict:
    """The follow-up note that measures the relief of `injection`."""
    day = str(injection["date"])
    for document in work.case["documents"]:
        if str((document.get("facts") or {}).get("injection_followed_up", "")) == day:
            return document
    raise ScriptFailed(f"no follow-up note of the injection of {day}")


def message_text(work: Work, injection: dict, follow_up: dict, sessions: int) -> str:
    n, f = work.notes, follow_up["facts"]
    return (f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {n['order_id']}: {n['code']} "
            f"({n['description']}) at {n['facility']}, planned {n['planned']}. {KEYSTONE}'s epidural steroid "
            f"injection policy {POLICY} covers a repeat injection only when the prior one gave at least "
            f"{MIN_RELIEF_PERCENT}% relief lasting at least {MIN_RELIEF_WEEKS} weeks, as the follow-up note measures "
            f"it. The follow-up note of {us_date(follow_up['date'])} after the most recent lumbar injection "
            f"({us_date(injection['date'])}) measures pain {f['pain_score_before']}/10 before and "
            f"{f['pain_score_after']}/10 after: {f['relief_percent']}% relief, lasting {f['relief_weeks']} weeks "
            f"({f['functional_change']}). The clinic note's 'good relief' is not what the follow-up measures. "
            f"Lumbar sessions in the past 12 months: {sessions}. Nothing has been submitted to Keystone. Please let "
            "us know how you want to proceed (a documented response that meets the policy, or a change of plan).")


def clinical_summary(work: Work, member: str, injection: dict, follow_up: dict, sessions: int) -> str:
    n, f = work.notes, follow_up["facts"]
    return (f"{work.patient_name}, DOB {work.patient['dob']}, member {member}. Requesting {n['code']} "
            f"({n['description']}) for diagnoses {n['diagnoses']}, ordered by {n['provider']}, at {n['facility']} "
            f"(NPI {n['facility_npi']}): repeat injection for recurrent lumbar radicular pain. Most recent lumbar "
            f"injection {us_date(injection['date'])} ({injection['facts']['injection_procedure']}); follow-up "
            f"{us_date(follow_up['date'])}: pain {f['pain_score_before']}/10 to {f['pain_score_after']}/10, "
            f"{f['relief_percent']}% relief lasting {f['relief_weeks']} weeks; function: {f['functional_change']}. "
            f"Lumbar sessions in the 12 months before the requested date: {sessions} (injections in another region "
            f"or older are not counted). Policy {POLICY} repeat-injection criteria met.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    member = work.ids["coverages"]["primary"]["payer_member_id"]
    planned = date.fromisoformat(str(work.case["orders"][0]["planned_date"]))
    injections = lumbar_injections(work)
    if not injections:
        raise ScriptFailed("the reference works repeat injections only; no earlier lumbar injection")
    injection = injections[-1]
    follow_up = follow_up_of(work, injection)
    relief = follow_up["facts"]
    sessions = sessions_in_window(injections, planned)
    met = (relief["relief_percent"] >= MIN_RELIEF_PERCENT and relief["relief_weeks"] >= MIN_RELIEF_WEEKS
           and sessions <= MAX_PRIOR_SESSIONS)
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        work.notes["description"] = work.actor.fact("Description").splitlines()[0].strip()
        work.notes["provider"] = work.notes["provider"].replace("Message provider", "").strip()
        ehr_steps.open_document(work, "visit")
        ehr_steps.open_document(work, injection["key"])
        name = ehr_steps.open_document(work, follow_up["key"], download=met)
        if met:  # the follow-up note measures the relief the request states
            attachments.append((name, "Clinical notes"))
    if work.doing("read_policy"):
        work.notes["policy_title"] = portal_b.read_policy(work, POLICY)
    if not met:
        ehr_steps.route_to_provider_and_hold(
            work, subject=f"Repeat epidural injection {work.notes['code']}: prior relief below {POLICY} criteria",
            message=message_text(work, injection, follow_up, sessions),
            comment=f"Not submitted to {KEYSTONE}: epidural steroid injection policy {POLICY} covers a repeat only "
                    f"after {MIN_RELIEF_PERCENT}% relief lasting {MIN_RELIEF_WEEKS} weeks; the follow-up note of "
                    f"{us_date(follow_up['date'])} measures {relief['relief_percent']}% relief lasting "
                    f"{relief['relief_weeks']} weeks after the {us_date(injection['date'])} lumbar injection. Staff "
                    f"message sent to the ordering provider ({work.notes['provider']}). Follow up with the provider "
                    "in 2 business days.")
        work.finish(f"Nothing submitted: the follow-up note of the most recent lumbar injection measures "
                    f"{relief['relief_percent']}% relief lasting {relief['relief_weeks']} weeks, short of {KEYSTONE}'s "
                    f"{MIN_RELIEF_PERCENT}% for {MIN_RELIEF_WEEKS} weeks ({POLICY}). The ordering provider was told by "
                    "staff message; the Prior Auth item is left In Progress with an order comment.")
        return
    if work.doing("verify_eligibility"):
        portal_b.open_portal_b(work)
        work.notes["eligibility"] = portal_b.check_eligibility(work, member, parse_us_date(work.need("planned")))
    decision: dict[str, str] = {}
    if work.doing("submit_precert"):
        work.need("eligibility")  # no request before the coverage is confirmed
        if not attachments:
            raise ScriptFailed("the follow-up note was not downloaded")
        portal_b.open_portal_b(work)
        portal_b.stay_signed_in(work)
        answers = {"esi_repeat": "Yes", "esi_prior_relief_percent": str(relief["relief_percent"]),
                   "esi_relief_weeks": str(relief["relief_weeks"]), "esi_sessions_12_months": str(sessions)}
        decision = portal_b.submit_approved_precert(
            work, member, answers, clinical_summary(work, member, injection, follow_up, sessions), attachments)
    if work.doing("record_decision"):
        work.need("decision")
        portal_b.record_approval(work, decision)
    if work.doing("close_item"):
        work.need("recorded")  # the item closes on a recorded authorization only
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"Precertification approved by {KEYSTONE} under epidural steroid injection policy {POLICY}: "
                  f"{work.notes['code']} at {work.notes['facility']}, requested as a repeat on "
                  f"{relief['relief_percent']}% relief lasting {relief['relief_weeks']} weeks after the "
                  f"{us_date(injection['date'])} injection (follow-up note of {us_date(follow_up['date'])} attached), "
                  f"{sessions} lumbar session(s) in the past 12 months. Auth {decision.get('auth_number', '')}, "
                  f"reference {decision.get('reference', '')}, {decision.get('start', '')} to "
                  f"{decision.get('end', '')}.")
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"Approved by {KEYSTONE}: {work.notes.get('code', '')} repeat lumbar epidural steroid injection at "
                f"{work.notes.get('facility', 'the surgery center')}, authorization "
                f"{decision.get('auth_number', 'none')} recorded on order {work.need('order_id')}.")
