"""Reference solution of template portal_b_precert: a precertification on Keystone Mutual's
own portal, typed from the chart, and the decision recorded back in the EHR."""
from __future__ import annotations

from datetime import date

from admindesk.harness.agents.reference import ehr_steps, fhir_calls, portal_a, portal_b
from admindesk.harness.agents.reference.api_work import ApiWork
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "PYR-KMH"



def fact_document(work: Work) -> tuple[str, dict]:
    """The chart document whose facts the request relies on: the latest that states the
    conservative-therapy answer (an addendum corrects the visit note it follows)."""
    # Every document carries the full fact table; the ones that state something are the notes.
    documents = [d for d in work.case.get("documents", [])
                 if any(value is not None for value in (d.get("facts") or {}).values())]
    if not documents:
        raise ScriptFailed("the case has no chart document with clinical facts")
    return documents[-1]["key"], documents[-1]["facts"]


def clinical_summary(work: Work, member: str, doc_title: str, facts: dict) -> str:
    """The request's clinical summary: the patient, the order read earlier, the chart's facts."""
    return (f"{work.patient_name}, DOB {work.patient['dob']}, member {member}. Requesting "
            f"{work.notes['code']} x{work.notes['units']} for diagnoses {work.notes['diagnoses']}, "
            f"ordered by {work.notes['provider']}. Per the {doc_title} in the chart: "
            + "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in facts.items() if v is not None)
            + ". These meet Keystone Mutual's criteria for this service.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    coverages = work.case["coverages"]
    keystone = next(c for c in coverages if c["payer"] == KEYSTONE)
    member = work.ids["coverages"][keystone["key"]]["payer_member_id"]
    doc_key, facts = fact_document(work)
    doc_title = next(d.get("title") or d["type"] for d in work.case["documents"] if d["key"] == doc_key)
    subtasks = {s.id for s in work.task.subtasks}

    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        attachments.append((ehr_steps.open_document(work, doc_key, download=True), "Clinical notes"))
        for document in work.case["documents"]:
            if document["type"] == "imaging_report":  # the joint's X-ray report the policy asks for
                attachments.append((ehr_steps.open_document(work, document["key"], download=True),
                                    "Imaging report"))
    primary_note = ""
    if "check_primary" in subtasks and work.doing("check_primary"):
        primary = coverages[0]
        primary_member = work.ids["coverages"][primary["key"]]["payer_member_id"]
        result = portal_a.check_eligibility(work, primary_member, primary["payer"],
                                            parse_us_date(work.need("planned")))
        primary_note = f"Primary {primary['payer']} member {primary_member}: {result} on portal A. "
        work.notes["primary_checked"] = result
        ehr_steps.back_to_order(work)
        ehr_steps.record_coverage_verification(work, primary["key"], "Verified - Inactive", primary_note)
    if work.doing("verify_eligibility"):
        portal_b.open_portal_b(work)
        work.notes["eligibility"] = portal_b.check_eligibility(work, member, parse_us_date(work.need("planned")))
    decision: dict[str, str] = {}
    if work.doing("submit_precert"):
        work.need("eligibility")  # no request before the coverage is confirmed
        if "check_primary" in subtasks:
            work.need("primary_checked")
        portal_b.open_portal_b(work)
        answers = portal_b.clinical_answers(facts)
        summary = clinical_summary(work, member, doc_title, facts)
        decision = portal_b.submit_approved_precert(work, member, answers, summary, attachments)
    if work.doing("record_decision"):
        work.need("decision")
        portal_b.record_approval(work, decision)
    if work.doing("close_item"):
        work.need("recorded")  # the item closes on a recorded authorization only
        ehr_steps.back_to_order(work)
        number = decision.get("auth_number", "(none)")
        ehr_steps.add_order_comment(
            work, f"Precertification approved by Keystone Mutual Health on its provider portal (submitted "
                  f"online with the {doc_title} attached). Auth {number}, reference "
                  f"{decision.get('reference', '')}, {decision.get('units', '')} unit(s), "
                  f"{decision.get('start', '')} to {decision.get('end', '')}. {primary_note}"
                  f"Patient identified by DOB {work.patient['dob']} and member id {member}; clinical answers "
                  f"taken from the {doc_title}.")
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"Approved by Keystone Mutual Health: authorization {decision.get('auth_number', 'none')} "
                f"recorded on order {work.need('order_id')}.")


# The portal's document types -> the PAS document-type codes.
DOCUMENT_TYPE_CODES = {"Clinical notes": "clinical-notes", "Imaging report": "imaging-report"}


def solve_api(work: ApiWork) -> None:
    """The same subtasks through the EHR's FHIR API and Keystone's PAS API (tasks without a
    portal A step: portal A has no API)."""
    keystone = next(c for c in work.case["coverages"] if c["payer"] == KEYSTONE)
    member = work.ids["coverages"][keystone["key"]]["payer_member_id"]
    doc_key, facts = fact_document(work)
    doc_title = next(d.get("title") or d["type"] for d in work.case["documents"] if d["key"] == doc_key)
    mrn = fhir_calls.find_patient(work)
    item = fhir_calls.work_item(work, mrn, "prior-auth")
    order_id = item["focus"]["reference"].split("/", 1)[1]
    attachments: list[tuple[str, str, str]] = []
    if work.doing("review_order"):
        fhir_calls.read_order(work, order_id)
        fhir_calls.provider_facts(work)
        documents = [(doc_key, "Clinical notes")] + [(d["key"], "Imaging report") for d in work.case["documents"]
                                                     if d["type"] == "imaging_report"]
        for key, kind in documents:
            name, data = fhir_calls.read_document(work, work.ids["documents"][key])
            attachments.append((name, data, DOCUMENT_TYPE_CODES[kind]))
    if work.doing("verify_eligibility"):
        work.notes["eligibility"] = fhir_calls.check_eligibility(work, member, date.fromisoformat(work.need("planned")))
    decision: dict = {}
    if work.doing("submit_precert"):
        work.need("eligibility")  # no request before the coverage is confirmed
        answers = portal_b.clinical_answers(facts)
        summary = clinical_summary(work, member, doc_title, facts)
        bundle = fhir_calls.precert_bundle(work, member, answers, summary, attachments, portal_b.REQUESTED_DAYS)
        decision = fhir_calls.claim_response_of(work.post("keystone", "/fhir/Claim/$submit", bundle))
        if "preAuthRef" not in decision:
            raise ScriptFailed(f"Keystone Mutual did not approve: {decision.get('disposition')}")
        work.notes["decision"] = "Approved"
    if work.doing("record_decision"):
        work.need("decision")
        fhir_calls.record_decision(work, mrn, order_id, decision, KEYSTONE)
        work.notes["recorded"] = decision["preAuthRef"]
    if work.doing("close_item"):
        work.need("recorded")  # the item closes on a recorded authorization only
        period = decision["preAuthPeriod"]
        fhir_calls.add_note(work, mrn, f"ServiceRequest/{order_id}",
                            f"Precertification approved by Keystone Mutual Health through its PAS API (submitted "
                            f"with the {doc_title} attached). Auth {decision['preAuthRef']}, reference "
                            f"{decision['id']}, {fhir_calls.approved_units(decision)} unit(s), {period['start']} to "
                            f"{period['end']}. Patient identified by DOB "
                            f"{work.patient['dob']} and member id {member}; clinical answers taken from the "
                            f"{doc_title}.")
        fhir_calls.set_work_item(work, item, "Auth Obtained")
    work.finish(f"Approved by Keystone Mutual Health: authorization {decision.get('preAuthRef', 'none')} "
                f"recorded on order {order_id}.")
