"""Reference solution of template prior_auth/genetic_testing: a germline genetic test for a
Keystone Mutual member, performed by the hospital's molecular diagnostics laboratory, under
Keystone's genetic testing policy (KM-LAB-701).

Read the order, its note and the pedigree (and the genetic counseling note when there is one),
and read the policy. Counseling not completed (only referred): file nothing, send the ordering
provider a staff message saying that is what is missing, comment and keep the item In Progress.
Every criterion documented: request the test for the laboratory (its NPI as rendering provider)
with the criterion the chart meets, the counseling note and the pedigree, and record the approval.
"""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

POLICY = "KM-LAB-701"
KEYSTONE = "Keystone Mutual Health"
# The policy's criteria as the request form offers them (the chart's history -> the answer).
PERSONAL_COLORECTAL = "Personal history of colorectal or endometrial cancer diagnosed before age 50"
RELATIVE_WITH_CANCER = ("First- or second-degree relative with ovarian, pancreatic or male breast cancer, or breast "
                        "cancer diagnosed at age 50 or younger")


def facts_of(work: Work) -> dict[str, str]:
    """Every genetic-testing fact the case's documents state (the later document wins)."""
    found: dict[str, str] = {}
    for document in work.case.get("documents", []):
        found.update({k: str(v) for k, v in (document.get("facts") or {}).items() if v is not None})
    return found


def counseling_done(facts: dict[str, str]) -> bool:
    """Pre-test counseling completed (a referral or an appointment to come is not counseling)."""
    return facts.get("genetic_counseling", "").lower().startswith("pre-test counseling completed")


def history_criterion(facts: dict[str, str]) -> str:
    """The policy's personal or family history criterion the chart documents."""
    personal = facts.get("personal_cancer_history", "none").lower()
    age = re.search(r"at age (\d+)", personal)
    if ("colon" in personal or "endometri" in personal) and age and int(age.group(1)) < 50:
        return PERSONAL_COLORECTAL
    if re.search(r"(mother|sister|daughter|aunt|grandmother)[^;]*(ovarian|pancreatic)", facts.get("family_history", "")):
        return RELATIVE_WITH_CANCER
    raise ScriptFailed(f"no criterion of {POLICY} the reference knows in {facts}")


def document_by_title(work: Work, words: str) -> dict:
    return next(d for d in work.case["documents"] if words in (d.get("title") or "").lower())


def message_text(work: Work) -> str:
    n = work.notes
    return (f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {n['order_id']}: {n['code']} "
            f"({n['description']}) at {n['facility']}, specimen collection planned {n['planned']}. {KEYSTONE}'s "
            f"genetic testing policy {POLICY} requires pre-test genetic counseling completed and documented before the "
            "test is requested; a referral or a scheduled appointment does not count. The chart shows only the "
            "referral to the cancer genetics clinic, with the first counseling appointment after the planned "
            "collection. The other criteria are documented (personal history, family history, no prior germline "
            "testing, result changes management). Nothing has been submitted to Keystone. Please have the counseling "
            "done and documented and move the collection date after it; we will submit the request with the "
            "counseling note and the pedigree once it is in the chart.")


def clinical_summary(work: Work, member: str, facts: dict[str, str], criterion: str) -> str:
    n = work.notes
    return (f"{work.patient_name}, DOB {work.patient['dob']}, member {member}. Requesting {n['code']} ({n['description']}) "
            f"for diagnoses {n['diagnoses']}, ordered by {n['provider']}, performed by {n['facility']} (NPI "
            f"{n['facility_npi']}). Pre-test genetic counseling: {facts['genetic_counseling']}. Personal cancer "
            f"history: {facts.get('personal_cancer_history', 'none')}. Family history (pedigree): "
            f"{facts['family_history']}. Policy {POLICY} criterion met: {criterion}. Prior germline testing: "
            f"{facts.get('prior_genetic_testing', 'none')}. How the result will be used: {facts['management_impact']}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    coverage = next(c for c in work.case["coverages"] if c["payer"] == "PYR-KMH")
    member = work.ids["coverages"][coverage["key"]]["payer_member_id"]
    facts = facts_of(work)
    counseled = counseling_done(facts)
    pedigree = document_by_title(work, "pedigree")
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        work.notes["description"] = work.actor.fact("Description").splitlines()[0].strip()
        work.notes["provider"] = work.notes["provider"].replace("Message provider", "").strip()
        ehr_steps.open_document(work, "visit")
        if counseled:  # the request's documents: the counseling note and the pedigree
            counseling = document_by_title(work, "genetic counseling")
            attachments.append((ehr_steps.open_document(work, counseling["key"], download=True), "Clinical notes"))
            attachments.append((ehr_steps.open_document(work, pedigree["key"], download=True), "Clinical notes"))
        else:
            ehr_steps.open_document(work, pedigree["key"])
    if work.doing("read_policy"):
        work.notes["policy_title"] = portal_b.read_policy(work, POLICY)
    if not counseled:
        ehr_steps.route_to_provider_and_hold(
            work, subject=f"Genetic test {work.notes['code']}: pre-test genetic counseling not documented ({POLICY})",
            message=message_text(work),
            comment=f"Not submitted to {KEYSTONE}: genetic testing policy {POLICY} requires completed, documented "
                    "pre-test genetic counseling; the chart shows only a referral (first appointment after the "
                    "planned collection). Staff message sent to the ordering provider "
                    f"({work.notes['provider']}). Submit with the counseling note and pedigree once the counseling "
                    "is documented; follow up with the provider in 2 business days.")
        work.finish(f"Nothing submitted: {KEYSTONE}'s genetic testing policy {POLICY} requires documented pre-test "
                    "genetic counseling and the chart shows only a referral. The ordering provider was told by staff "
                    "message; the Prior Auth item is left In Progress with an order comment.")
        return
    criterion = history_criterion(facts)
    answers = {"genetic_counseling": "Yes", "hereditary_criterion": criterion, "changes_management": "Yes",
               "prior_germline_testing": "No"}
    decision = portal_b.request_after_eligibility(
        work, member, answers, lambda: clinical_summary(work, member, facts, criterion), attachments, 2,
        "the counseling note and the pedigree were not downloaded")
    portal_b.record_and_close(work, decision, lambda approved: (
        f"Precertification approved by {KEYSTONE} on its provider portal under genetic testing policy "
        f"{POLICY}: {work.notes['code']} for {work.notes['facility']} (NPI {work.notes['facility_npi']}), "
        f"requested on the criterion '{criterion}' (pedigree: {facts['family_history'].split(';')[0]}) after "
        "documented pre-test genetic counseling; counseling note and pedigree attached. Auth "
        f"{approved.get('auth_number', '')}, reference {approved.get('reference', '')}, "
        f"{approved.get('start', '')} to {approved.get('end', '')}."))
    work.finish(f"Approved by {KEYSTONE}: {work.notes.get('code', '')} ({work.notes.get('description', '')}) for "
                f"{work.notes.get('facility', 'the laboratory')}, authorization {decision.get('auth_number', 'none')} "
                f"recorded on order {work.need('order_id')}.")
