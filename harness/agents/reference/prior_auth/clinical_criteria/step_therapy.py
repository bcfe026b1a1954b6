"""Reference solution of template prior_auth/step_therapy: golimumab IV (J1602), a non-preferred
biologic, for a Keystone Mutual member under Keystone's step-therapy policy (KM-RX-505).

Read the order, the rheumatologist's note and the chart's Medications tab (each drug's start and
stop dates and why it was stopped), and read the policy. Step 1 is a conventional agent, step 2 a
preferred biologic; a step is met by a trial of 12 weeks or more with an inadequate response, or
by intolerance or a contraindication at any length. A drug stopped for cost or coverage is no
failed trial, and a drug the policy does not list for a step does not meet it. Where the
medication list gives no reason, the outside record that names the drug (scanned into the chart,
not on the order) does. Both steps met: request the drug in the order's billing units with the
Step Therapy section from those dates and outcomes and the records that document them attached,
and record the approval. A step not met: file nothing, send the ordering provider a staff message
naming the missing step and the preferred agents, comment and keep the item In Progress.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.prior_auth.clinical_criteria.site_of_care import open_chart_document
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

POLICY = "KM-RX-505"
KEYSTONE = "Keystone Mutual Health"
MIN_WEEKS = 12
# The policy's agents for each step, as the request's drug lists name them.
STEP_AGENTS = ({"methotrexate": "Methotrexate", "leflunomide": "Leflunomide", "sulfasalazine": "Sulfasalazine"},
               {"adalimumab": "Adalimumab", "etanercept": "Etanercept", "infliximab": "Infliximab"})
PREFERRED_NAMES = "adalimumab, etanercept or infliximab"
# Words in a record's reason for stopping -> the request's outcome (None: not a failed trial).
OUTCOME_WORDS = (("inadequate response", "Inadequate response"), ("hepatotoxicity", "Intolerance"),
                 ("intoleran", "Intolerance"), ("contraindicat", "Contraindication"), ("cost", None),
                 ("formulary", None), ("insurance", None))


@dataclass(frozen=True)
class Trial:
    """One drug of the medication history: its name, dates, outcome and the record documenting it."""

    drug: str
    start: date
    stop: date
    outcome: str | None
    record: dict

    @property
    def weeks(self) -> int:
        return (self.stop - self.start).days // 7

    def meets(self) -> bool:
        return self.outcome in ("Intolerance", "Contraindication") or (
            self.outcome == "Inadequate response" and self.weeks >= MIN_WEEKS)


def outcome_of(text: str) -> str | None:
    lowered = text.lower()
    return next((outcome for words, outcome in OUTCOME_WORDS if words in lowered), None)


def trials(work: Work) -> list[Trial]:
    """The discontinued drugs, oldest first; a reason the list lacks comes from the outside record
    that names the drug."""
    documents = work.case["documents"]
    found = []
    for document in documents:
        facts = document.get("facts") or {}
        if not facts.get("prior_therapy_stop"):
            continue
        drug = facts["prior_therapy"].split()[0].lower()
        record, outcome = document, outcome_of(facts["prior_therapy_outcome"])
        if outcome is None and "reason not" in facts["prior_therapy_outcome"]:
            record = next(d for d in documents if d["type"] == "medication_history"
                          and drug in str(d.get("narrative", "")).lower())
            outcome = outcome_of(record["narrative"])
        found.append(Trial(drug, date.fromisoformat(str(facts["prior_therapy_start"])),
                           date.fromisoformat(str(facts["prior_therapy_stop"])), outcome, record))
    return sorted(found, key=lambda t: t.start)


def step_trial(found: list[Trial], step: int) -> Trial | None:
    """The first trial of one of the step's agents that meets the policy."""
    return next((t for t in found if t.drug in STEP_AGENTS[step] and t.meets()), None)


def history_line(found: list[Trial]) -> str:
    return "; ".join(f"{t.drug} {us_date(t.start)} to {us_date(t.stop)} ({t.weeks} weeks, "
                     f"{t.outcome or 'stopped for cost/coverage, not a failed trial'})" for t in found)


def missing_step(steps: list[Trial | None]) -> str:
    if steps[0] is None:
        return "no conventional agent (methotrexate, leflunomide or sulfasalazine) failed or was not tolerated"
    return f"no preferred biologic ({PREFERRED_NAMES}) was tried"


def message_text(work: Work, found: list[Trial], missing: str) -> str:
    n = work.notes
    return (f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {n['order_id']}: {n['code']} "
            f"({n['description']}), planned {n['planned']}. {KEYSTONE}'s step-therapy policy {POLICY} covers golimumab "
            f"IV only after step 1, a conventional agent, and step 2, a preferred biologic ({PREFERRED_NAMES}), each "
            f"taken at least {MIN_WEEKS} weeks with an inadequate response, or stopped for intolerance, or "
            f"contraindicated. The medication history shows: {history_line(found)}. So {missing}; a targeted "
            "synthetic agent such as apremilast is not a preferred biologic, and preferring infusions is not an "
            "exception. Nothing has been submitted to Keystone. Please try a preferred biologic first, or document a "
            "contraindication or intolerance to the preferred agents, and let us know how you want to proceed.")


def clinical_summary(work: Work, member: str, steps: list[Trial], found: list[Trial]) -> str:
    n = work.notes
    first, second = steps
    return (f"{work.patient_name}, DOB {work.patient['dob']}, member {member}. Requesting {n['code']} x{n['units']} "
            f"billing units (1 unit = 1 mg; {n['description']}) for diagnoses {n['diagnoses']}, ordered by "
            f"{n['provider']}. Step therapy under {POLICY}: step 1 {first.drug} {us_date(first.start)} to "
            f"{us_date(first.stop)}, {first.outcome} ({first.record.get('title')} of {us_date(first.record['date'])}, "
            f"attached); step 2 {second.drug} {us_date(second.start)} to {us_date(second.stop)} ({second.weeks} weeks), "
            f"{second.outcome}. Full history: {history_line(found)}. Tuberculosis screen negative within 12 months.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    member = work.ids["coverages"]["primary"]["payer_member_id"]
    found = trials(work)
    steps = [step_trial(found, 0), step_trial(found, 1)]
    met = all(steps)
    records = {t.record["key"] for t in steps if t is not None}
    outside = [key for key in records if not any(d["key"] == key and d.get("order") for d in work.case["documents"])]
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        work.notes["description"] = work.actor.fact("Description").splitlines()[0].strip()
        name = ehr_steps.open_document(work, "visit", download=met)
        if met:
            attachments.append((name, "Clinical notes"))
        work.actor.click("nav[aria-label='Chart sections'] a:text-is('Medications')")
        listed = ehr_steps.table_rows(work, "Medication list", ("name", "sig", "indication", "start", "stop", "reason"))
        if not any(row["stop"] for row in listed):
            raise ScriptFailed("the Medications tab lists no stopped drug")
        for key in sorted(outside):  # the records behind the steps' outcomes, not on the order
            attachments.append((open_chart_document(work, key), "Clinical notes"))
        ehr_steps.back_to_order(work)
    if work.doing("read_policy"):
        work.notes["policy_title"] = portal_b.read_policy(work, POLICY)
    if not met:
        missing = missing_step(steps)
        ehr_steps.route_to_provider_and_hold(
            work, subject=f"Golimumab IV {work.notes['code']}: step therapy not met ({POLICY})",
            message=message_text(work, found, missing),
            comment=f"Not submitted to {KEYSTONE}: step-therapy policy {POLICY} needs a failed conventional agent "
                    f"and a failed preferred biologic ({PREFERRED_NAMES}) before golimumab IV, and {missing} "
                    f"(history: {history_line(found)}). Staff message sent to the ordering provider "
                    f"({work.notes['provider']}). Follow up with the provider in 2 business days.")
        work.finish(f"Nothing submitted: {missing}, which {KEYSTONE}'s step-therapy policy {POLICY} requires before "
                    "golimumab IV. The ordering provider was told by staff message; the Prior Auth item is left In "
                    "Progress with an order comment.")
        return
    answers: dict[str, str] = {}
    for number, t in enumerate(steps, start=1):
        answers |= {f"step{number}_drug": STEP_AGENTS[number - 1][t.drug], f"step{number}_outcome": t.outcome,
                    f"step{number}_start": portal_b.portal_b_date(t.start),
                    f"step{number}_end": portal_b.portal_b_date(t.stop)}
    decision = portal_b.request_after_eligibility(
        work, member, answers, lambda: clinical_summary(work, member, steps, found), attachments, 1 + len(outside),
        "the chart documents were not downloaded")
    portal_b.record_and_close(work, decision, lambda approved: (
        f"Precertification approved by {KEYSTONE} under step-therapy policy {POLICY}: {work.notes['code']} "
        f"x{approved.get('units', '')} billing units, requested on step 1 {steps[0].drug} {steps[0].outcome} "
        f"({us_date(steps[0].start)} to {us_date(steps[0].stop)}, outside record attached) and step 2 "
        f"{steps[1].drug} {steps[1].outcome} ({us_date(steps[1].start)} to {us_date(steps[1].stop)}). Auth "
        f"{approved.get('auth_number', '')}, reference {approved.get('reference', '')}, {approved.get('start', '')} "
        f"to {approved.get('end', '')}."))
    work.finish(f"Approved by {KEYSTONE}: golimumab IV ({work.notes.get('code', '')}) on the step history, "
                f"authorization {decision.get('auth_number', 'none')} recorded on order {work.need('order_id')}.")
