"""Chart text for case documents, written from their typed facts.

Each fact becomes one sentence stating its value exactly as the world's documents write
it (dates MM/DD/YYYY, saturations and HbA1c with a % sign), inside the world's own note
and report layouts (`progress_note`, `report`), so a case document reads like any other
chart document and every fact the task depends on is in its text and its PDF.
"""
from __future__ import annotations

import random
from datetime import date

from admindesk.envs.world.documents import progress_note, report, us_date
from admindesk.envs.world.models import Coverage, Document, Order, Patient, Payer, Plan, Provider

# Fact -> sentence; "{}" is the fact's value as written in `Document.facts`.
FACT_SENTENCES = {
    "conservative_therapy_weeks": "Conservative therapy: {} weeks of treatment without meaningful improvement.",
    "physical_therapy_weeks": "Physical therapy: {} weeks.",
    "physical_therapy_sessions": "Physical therapy sessions attended: {}.",
    "nsaid_trial": "NSAID trial: {}.",
    "red_flags": "Red-flag symptoms: {}.",
    "prior_imaging_date": "Prior imaging (X-ray) on {}.",
    "therapy_site": "Treated for: {}.",
    "therapy_first_visit": "First therapy visit (evaluation): {}.",
    "therapy_last_visit": "Last therapy visit: {}.",
    "imaging_study": "Study: {}.",
    "imaging_findings": "Impression: {}.",
    "joint_injection": "Joint injection: {}.",
    "mcmurray_test": "McMurray test {}.",
    "symptom_duration_months": "Symptoms present for {} months.",
    "focal_neurologic_deficit": "Focal neurologic deficit: {}.",
    "able_to_exercise": "Able to exercise on a treadmill: {}.",
    "baseline_ecg": "Baseline ECG shows {}.",
    "study_date": "Study date: {}.",
    "ahi": "Apnea-Hypopnea Index (AHI): {} events/hour.",
    "lowest_spo2": "Lowest oxygen saturation {}%.",
    "epworth_score": "Epworth Sleepiness Scale {}/24.",
    "stop_bang_score": "STOP-BANG score {}/8.",
    "qualifying_symptoms": "Daytime symptoms (sleepiness, insomnia, hypertension or mood disorder): {}.",
    "cardiopulmonary_comorbidity": "Significant cardiopulmonary comorbidity: {}.",
    "face_to_face_date": "Face-to-face evaluation on {}.",
    "length_of_need": "Length of need: {}.",
    "spo2_rest": "Resting SpO2 on room air: {}.",
    "spo2_exertion": "SpO2 with exertion on room air: {}.",
    "spo2_on_oxygen": "SpO2 with exertion on supplemental oxygen: {}.",
    "test_date": "Test date: {}.",
    "tested_by": "Test performed by: {}.",
    "test_conditions": "Testing conditions: {}.",
    "incident_date": "Date of incident: {}.",
    "reported_item": "Property reported: {}.",
    "hba1c": "Hemoglobin A1c {}.",
    "insulin_injections_per_day": "Insulin injections per day: {}.",
    "can_use_cane_safely": "Can use a cane safely: {}.",
    "tb_screen": "Tuberculosis screen (interferon-gamma release assay): {}.",
    "tb_screen_date": "Tuberculosis screen collected {}.",
    "prior_therapy": "Prior therapy: {}.",
    "prior_therapy_weeks": "Prior therapy duration: {} weeks.",
    "prior_therapy_start": "Prior therapy started {}.",
    "prior_therapy_stop": "Prior therapy stopped {}.",
    "prior_therapy_outcome": "Prior therapy outcome: {}.",
    "infusion_reaction": "Infusion reactions: {}.",
    "genetic_counseling": "Pre-test genetic counseling: {}.",
    "personal_cancer_history": "Personal cancer history: {}.",
    "family_history": "Family history (pedigree): {}.",
    "prior_genetic_testing": "Prior germline genetic testing: {}.",
    "management_impact": "How the result will be used: {}.",
    "injection_procedure": "Procedure performed: {}.",
    "injection_followed_up": "Follow-up of the injection performed on {}.",
    "pain_score_before": "Pain before the injection: {}/10 (numeric rating scale).",
    "pain_score_after": "Pain at this visit: {}/10 (numeric rating scale).",
    "relief_percent": "Pain relief after the injection: {}%.",
    "relief_weeks": "Duration of relief: {} weeks.",
    "functional_change": "Function: {}.",
    "device_setup_date": "PAP device set up on {}.",
    "vital_signs": "Vital signs: {}.",
    "oxygen": "Oxygen: {}.",
    "iv_medications": "IV medications: {}.",
    "response_to_treatment": "Response to treatment: {}.",
    "discharge_plan": "Discharge plan: {}.",
    "therapy_visits_used": "Therapy visits used this benefit period, including today: {}.",
    "visits_planned": "Plan of care: {} further visits.",
    "injury_date": "Date of injury: {}.",
    "injury_cause": "How the injury happened: {}.",
    "work_related": "Injury at work: {}.",
    "employer": "Employer: {}.",
    "wc_carrier": "Workers' compensation carrier: {}.",
    "wc_claim_number": "Workers' compensation claim number: {}.",
    "clinical_urgency": "Urgency of the service, in the treating physician's opinion: {}.",
}
PERCENT_FACTS = frozenset({"spo2_rest", "spo2_exertion", "spo2_on_oxygen", "hba1c"})

DEFAULT_TITLES = {
    "progress_note": "Office visit", "pt_note": "Physical therapy progress summary",
    "imaging_report": "Imaging report", "sleep_study": "Polysomnography report",
    "face_to_face": "Face-to-face evaluation", "written_order": "Standard written order",
    "lab_result": "Laboratory result", "medication_history": "Medication history",
    "adherence_report": "PAP adherence report", "oximetry_report": "Oximetry report",
    "incident_report": "Incident report",
    "history_and_physical": "Admission history and physical", "hospital_progress_note": "Hospital progress note",
    "discharge_summary": "Discharge summary",
    "injury_report": "First report of injury",
    "financial_form": "Patient financial form",
    "insurance_card": "Insurance card",
}


def fact_text(key: str, value: object) -> str:
    """A typed fact as the world writes it in `Document.facts`."""
    if isinstance(value, date):
        return us_date(value)
    if key in PERCENT_FACTS:
        return f"{value}%"
    return str(value)


def world_facts(typed: dict[str, object]) -> dict[str, str]:
    """The set facts of a document, in sentence order, as world fact strings."""
    return {key: fact_text(key, typed[key]) for key in FACT_SENTENCES if typed.get(key) is not None}


def fact_sentences(facts: dict[str, str]) -> str:
    return " ".join(FACT_SENTENCES[key].format(value) for key, value in facts.items())


def _order_line(order: Order) -> str:
    return (f"{order.description} ({order.code}), {order.units} unit(s); diagnoses "
            f"{', '.join(order.diagnosis_codes)}.")


def write_text(kind: str, title: str, patient: Patient, author: Provider | None, day: date,
               facts: dict[str, str], narrative: str | None, order: Order | None,
               icd10: dict[str, str], rng: random.Random, extra_sections: tuple = ()) -> str:
    """The document's full text: the world's layout around the facts' sentences."""
    if kind == "injury_report":
        return injury_report_text(title, patient, day, facts, narrative)
    if kind == "financial_form":
        return financial_form_text(title, patient, day, narrative)
    statements = " ".join(filter(None, (fact_sentences(facts), narrative))) or "No new findings."
    if kind == "progress_note":
        assessment = (f"{icd10[order.diagnosis_codes[0]]} ({order.diagnosis_codes[0]})." if order
                      else "See history above.")
        plan = (f"Order {_order_line(order)} Prior authorization to be obtained when the plan requires it."
                if order else "Continue the current plan and follow up as scheduled.")
        return progress_note(rng, patient, author, day, title, hpi=f"{patient.first_name} is seen today. {statements}",
                             exam="Examination findings are documented in the flowsheet and support the history.",
                             assessment=assessment, plan=plan)
    sections = [("Findings", statements), *extra_sections]
    if order is not None:
        sections.append(("Related order", _order_line(order)))
    return report(patient, author, day, title, tuple(sections))


def injury_report_text(title: str, patient: Patient, day: date, facts: dict[str, str], narrative: str | None) -> str:
    """A first report of injury: the employer's form, scanned into the chart by registration, one
    fact a line (the employee, the employer, the injury, the workers' compensation carrier and claim)."""
    lines = [title.upper(), f"Employee: {patient.last_name}, {patient.first_name}    DOB: {us_date(patient.dob)}    "
             f"MRN: {patient.mrn}", f"Scanned into the chart by Patient Access on {us_date(day)}.", "",
             *(FACT_SENTENCES[key].format(value) for key, value in facts.items())]
    if narrative:
        lines += ["", f"Remarks: {narrative}"]
    return "\n".join(lines)


def financial_form_text(title: str, patient: Patient, day: date, narrative: str | None) -> str:
    """A form the patient signed at the front desk (a financial policy, an advance waiver), scanned
    into the chart by registration: its wording is the narrative, then the signature block dated
    the day it was signed (the document's date), which is what decides whether it came before a
    service."""
    lines = [title.upper(), f"Patient: {patient.last_name}, {patient.first_name}    DOB: {us_date(patient.dob)}    "
             f"MRN: {patient.mrn}", "", narrative or "", "",
             f"Signature of patient or responsible party: /s/ {patient.first_name} {patient.last_name}    "
             f"Date signed: {us_date(day)}",
             f"Scanned into the chart by Patient Access on {us_date(day)}."]
    return "\n".join(lines)


# Where each portal's payers take precertification requests, as their cards print it.
CARD_PORTALS = {"a": "ProviderLink (providerlink.example.com)", "b": "the Keystone Mutual provider portal"}


def insurance_card_text(patient: Patient, coverage: Coverage, payer: Payer, plan: Plan, day: date,
                        narrative: str | None) -> str:
    """A member's insurance card as registration scans it at check-in: the front (payer, plan, member,
    member id, group, effective date) and the back (the payer's provider lines), then the scan line."""
    def phone(number: str) -> str:
        return f"({number[:3]}) {number[3:6]}-{number[6:]}"

    lines = ["INSURANCE CARD (FRONT AND BACK)",
             f"Patient: {patient.last_name}, {patient.first_name}    DOB: {us_date(patient.dob)}    MRN: {patient.mrn}",
             "", "FRONT", payer.name, f"Plan: {plan.name} ({plan.product})",
             f"Member: {coverage.subscriber_name if coverage.relationship == 'Self' else patient.full_name}",
             f"Member ID: {coverage.member_id}", f"Group number: {coverage.group_number}",
             f"Subscriber: {coverage.subscriber_name} (patient's relationship: {coverage.relationship})",
             f"Payer ID: {payer.payer_code}", f"Effective date: {us_date(coverage.effective)}",
             "", "BACK", f"Providers: verify eligibility and benefits at {CARD_PORTALS[payer.portal]}.",
             "Some services require prior authorization; see the plan's medical policy before the service.",
             f"Provider services: {phone(payer.phone)}    Prior authorization fax: {phone(payer.pa_fax)}",
             "This card does not guarantee coverage."]
    if narrative:
        lines += ["", f"Remarks: {narrative}"]
    lines += ["", f"Scanned into the chart by Patient Access on {us_date(day)}."]
    return "\n".join(lines)


def addendum_text(patient: Patient, author: Provider | None, day: date, corrected: Document,
                  facts: dict[str, str], narrative: str | None) -> str:
    """An addendum: names the document it corrects and states the corrected facts."""
    correction = " ".join(filter(None, (fact_sentences(facts), narrative)))
    return report(patient, author, day, f"Addendum to {corrected.title}", (
        ("Addendum to", f"{corrected.title} dated {us_date(corrected.date)} (document {corrected.id}). "
                        "The original text is retained; this addendum supersedes the statements below."),
        ("Correction", correction)))


def hospital_text(kind: str, title: str, patient: Patient, author: Provider | None, day: date,
                  facts: dict[str, str], narrative: str | None, stay: str) -> str:
    """A document of a hospital stay: the stay's line (admitted when, where, for what), then the
    day's findings, each fact one sentence, and the narrative."""
    findings = " ".join(filter(None, (fact_sentences(facts), narrative))) or "No change from the prior day."
    label = {"history_and_physical": "History and examination", "discharge_summary": "Hospital course"}
    return report(patient, author, day, title, (("Hospital stay", stay),
                                                (label.get(kind, "Interval history and findings"), findings)))
