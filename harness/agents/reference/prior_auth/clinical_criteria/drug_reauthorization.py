"""Reference solution of template prior_auth/drug_reauthorization: the renewal of a biologic
infusion for rheumatoid arthritis (tocilizumab J3262, infliximab J1745) whose current Keystone
Mutual approval is about to end, under Keystone's continuation policy (KM-RX-520).

Read the order, the scanned consultation that started the drug (its DAS28 is the pre-treatment
baseline: a score taken at an earlier renewal, on the drug, is not) and the note that measured
the latest DAS28 (its visit date, not the date of a note repeating it), read the policy and find
the approval on file at Keystone that the renewal continues. Met (an improvement of 1.2 or more
from the pre-treatment baseline on a score measured within 90 days, inside the renewal window):
request the continuation naming that approval, with both scores and their dates and both records
attached, and record the approval. Not met: file nothing, send the ordering provider a staff
message saying what is missing, comment and keep the item In Progress.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.prior_auth.clinical_criteria.site_of_care import open_chart_document
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

POLICY = "KM-RX-520"
KEYSTONE = "Keystone Mutual Health"
MIN_IMPROVEMENT = 1.2
MAX_AGE_DAYS = 90
WINDOW_DAYS = 30
# "DAS28-CRP 3.9 today": a score measured at that visit (a note repeating a score says no "today").
MEASURED = re.compile(r"DAS28-(?:CRP|ESR) (\d+\.\d) (?:today|\(pre-treatment baseline\))")


@dataclass(frozen=True)
class Score:
    """A DAS28 measured at a visit: its value, the day and the record that documents it."""

    value: float
    day: date
    record: dict


def measured_scores(work: Work) -> list[Score]:
    """Every DAS28 measured at a visit, oldest first (a flowsheet or a note quoting one measures none)."""
    found = []
    for document in work.case["documents"]:
        match = MEASURED.search(str(document.get("narrative", "")))
        if match:
            found.append(Score(float(match.group(1)), date.fromisoformat(str(document["date"])), document))
    return sorted(found, key=lambda s: s.day)


def pretreatment(scores: list[Score]) -> Score:
    """The baseline: the score the consultation that started the drug calls pre-treatment."""
    return next(s for s in scores if "pre-treatment baseline" in s.record["narrative"])


def shortfall(baseline: Score, latest: Score, today: date) -> str:
    """What the renewal lacks under the policy ('' when it meets it)."""
    age = (today - latest.day).days
    if age > MAX_AGE_DAYS:
        return (f"the most recent DAS28 ({latest.value}) was measured on {us_date(latest.day)}, {age} days before "
                f"the request, more than {MAX_AGE_DAYS} days")
    if baseline.value - latest.value < MIN_IMPROVEMENT:
        return (f"the DAS28 improved only {baseline.value - latest.value:.1f} from the pre-treatment baseline "
                f"({baseline.value} to {latest.value}), less than {MIN_IMPROVEMENT}")
    return ""


def current_approval(work: Work, member: str) -> dict[str, str]:
    """The approval on file at Keystone for the drug that ends last (the one the renewal continues)."""
    rows = [row for row in portal_b.find_precerts(work, member)
            if row["status"] == "Approved" and row["service"].startswith(work.need("code"))]
    if not rows:
        raise ScriptFailed(f"Keystone shows no approval of {work.need('code')} for {member}")
    latest = max(rows, key=lambda row: portal_b.shown_date(row["dates"].split("\u2013")[-1].strip()))
    return {"auth_number": latest["auth_number"],
            "end": us_date(portal_b.shown_date(latest["dates"].split("\u2013")[-1].strip()))}


def response_line(baseline: Score, latest: Score) -> str:
    return (f"DAS28 {baseline.value} before the first dose ({us_date(baseline.day)}, "
            f"{baseline.record.get('title')}) to {latest.value} on {us_date(latest.day)}, an improvement of "
            f"{baseline.value - latest.value:.1f}")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    member = work.ids["coverages"]["primary"]["payer_member_id"]
    today = work.task.now.date()
    scores = measured_scores(work)
    baseline, latest = pretreatment(scores), scores[-1]
    missing = shortfall(baseline, latest, today)
    order_doc = next(d["key"] for d in work.case["documents"] if d.get("order"))
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        work.notes["description"] = work.actor.fact("Description").splitlines()[0].strip()
        name = ehr_steps.open_document(work, order_doc, download=not missing and latest.record["key"] == order_doc)
        if name:
            attachments.append((name, "Clinical notes"))
        for key in dict.fromkeys((baseline.record["key"], latest.record["key"])):
            if key != order_doc:  # the records of the two scores that the order does not list
                attachments.append((open_chart_document(work, key), "Clinical notes"))
    if work.doing("read_policy"):
        work.notes["policy_title"] = portal_b.read_policy(work, POLICY)
        work.notes |= {f"current_{k}": v for k, v in current_approval(work, member).items()}
    drug = work.notes.get("description", "the infusion").split()[0]
    if missing:
        ends = work.notes.get("current_end", "its end date")
        ehr_steps.route_to_provider_and_hold(
            work, subject=f"{drug} {work.notes.get('code', '')} renewal: response not documented ({POLICY})",
            message=(f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {work.need('order_id')}: "
                     f"{work.notes['description']}. The current authorization ends {ends}. {KEYSTONE}'s continuation "
                     f"policy {POLICY} renews it only on a DAS28 improved by {MIN_IMPROVEMENT} or more from the "
                     f"pre-treatment baseline, measured within {MAX_AGE_DAYS} days before the request. The baseline is "
                     f"{baseline.value} ({us_date(baseline.day)}), but {missing}. Nothing has been submitted to "
                     f"Keystone. Please see the patient and measure a current DAS28 before {ends} so the renewal can "
                     "be requested, or tell us how you want to proceed."),
            comment=(f"Renewal not submitted to {KEYSTONE}: continuation policy {POLICY} needs a DAS28 response "
                     f"against the pre-treatment baseline measured within {MAX_AGE_DAYS} days, and {missing}. "
                     f"Staff message sent to the ordering provider ({work.notes['provider']}). Current authorization "
                     f"ends {ends}; follow up with the provider in 2 business days."))
        work.finish(f"Nothing submitted: {missing}, which {KEYSTONE}'s continuation policy {POLICY} does not accept. "
                    "The ordering provider was told by staff message; the Prior Auth item is left In Progress with "
                    "an order comment.")
        return
    if work.doing("submit_precert") and today < date.fromisoformat(_iso(work.need("current_end"))) - timedelta(
            days=WINDOW_DAYS):
        raise ScriptFailed("the renewal window has not opened yet")
    answers = {"continuation_of": work.notes.get("current_auth_number", ""),
               "baseline_das28": str(baseline.value), "baseline_das28_date": portal_b.portal_b_date(baseline.day),
               "current_das28": str(latest.value), "current_das28_date": portal_b.portal_b_date(latest.day)}
    decision = portal_b.request_after_eligibility(
        work, member, answers, lambda: (
            f"{work.patient_name}, DOB {work.patient['dob']}, member {member}. Continuation of {work.notes['code']} "
            f"x{work.notes['units']} billing units ({work.notes['description']}) for {work.notes['diagnoses']}, "
            f"ordered by {work.notes['provider']}, continuing authorization {work.notes['current_auth_number']} "
            f"(ends {work.notes['current_end']}). Response under {POLICY}: {response_line(baseline, latest)}; the "
            "latest score is within 90 days. Pre-treatment consultation and the latest rheumatology note attached."),
        attachments, 2, "the records of the two scores were not downloaded")
    portal_b.record_and_close(work, decision, lambda approved: (
        f"Renewal approved by {KEYSTONE} under continuation policy {POLICY}: {work.notes['code']} "
        f"x{approved.get('units', '')} billing units on the response ({response_line(baseline, latest)}). Auth "
        f"{approved.get('auth_number', '')}, reference {approved.get('reference', '')}, {approved.get('start', '')} "
        f"to {approved.get('end', '')}; continues {work.notes.get('current_auth_number', '')}."))
    work.finish(f"Approved by {KEYSTONE}: the {drug} renewal on the documented response, authorization "
                f"{decision.get('auth_number', 'none')} recorded on order {work.need('order_id')}.")


def _iso(shown_us: str) -> str:
    month, day, year = shown_us.split("/")
    return f"{year}-{month}-{day}"
