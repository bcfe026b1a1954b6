"""Text assembly for chart documents: headers, vitals, history and sign-off blocks
shared by every note, so scenario code only writes the case-specific sentences."""

from __future__ import annotations

import random
from datetime import date

from admindesk.envs.world.models import Patient, Provider

ALLERGIES = ("No known drug allergies.", "Penicillin (rash).", "Sulfa drugs (hives).",
             "Codeine (nausea).", "Latex (contact dermatitis).", "No known drug allergies.")
HISTORY = ("hypertension", "hyperlipidemia", "gastroesophageal reflux", "hypothyroidism",
           "seasonal allergies", "anxiety", "obesity", "prediabetes", "osteopenia")


# Real reports carry a records notice; it also keeps short reports at a realistic length.
_RECORD_NOTICE = (
    "Comments: This document is part of the legal medical record of Susquehanna Valley Health. It was "
    "made available to the ordering clinician through the electronic health record and may be released "
    "to health plans and equipment suppliers for treatment, payment and health care operations. Results "
    "and findings should be interpreted together with the patient's history, examination and other "
    "studies. A copy was routed to the primary care clinician of record. Questions about this document "
    "may be directed to Health Information Management during business hours; corrections are made only "
    "by addendum, and the original text is retained.")


def us_date(day: date) -> str:
    """MM/DD/YYYY, the way dates are written in the chart and in `facts`."""
    return day.strftime("%m/%d/%Y")


def header(title: str, patient: Patient, day: date, provider: Provider | None) -> str:
    author = f"{provider.display_name} ({provider.specialty}), NPI {provider.npi}" if provider else "Staff"
    return (f"{title.upper()}\nPatient: {patient.last_name}, {patient.first_name}    "
            f"MRN: {patient.mrn}    DOB: {us_date(patient.dob)}\n"
            f"Date of service: {us_date(day)}    Author: {author}")


def vitals(rng: random.Random, bmi: float | None = None) -> str:
    bmi = bmi if bmi is not None else draw_bmi(rng)
    return (f"Vitals: BP {rng.randrange(112, 152)}/{rng.randrange(68, 94)} mmHg, pulse "
            f"{rng.randrange(58, 96)}, respirations {rng.randrange(12, 19)}, temperature "
            f"{rng.uniform(97.6, 98.9):.1f} F, BMI {bmi} kg/m2.")


def draw_bmi(rng: random.Random) -> float:
    return round(rng.uniform(21.5, 34.5), 1)


def history(rng: random.Random) -> str:
    items = rng.sample(HISTORY, 2)
    return (f"Past medical history is notable for {items[0]} and {items[1]}. "
            f"Allergies: {rng.choice(ALLERGIES)} The medication list and problem list were "
            "reviewed and reconciled with the patient at this visit. Social history: "
            f"{rng.choice(('never smoker', 'former smoker, quit more than ten years ago', 'current smoker, counseled on cessation'))}, "
            f"{rng.choice(('occasional alcohol', 'no alcohol use', 'alcohol on weekends only'))}.")


def signoff(provider: Provider | None, day: date) -> str:
    name = provider.display_name if provider else "Clinic staff"
    return (f"Electronically signed by {name} on {us_date(day)}. This note was prepared "
            "in part with templated text and was reviewed for accuracy by the signing clinician.")


def progress_note(rng: random.Random, patient: Patient, provider: Provider, day: date,
                  title: str, hpi: str, exam: str, assessment: str, plan: str,
                  bmi: float | None = None) -> str:
    """A SOAP-style office note around the case-specific paragraphs."""
    past = history(rng)  # drawn before the BMI, as ever, so every note's other values stay the same
    bmi = bmi if bmi is not None else draw_bmi(rng)
    if bmi < 30:  # obesity in the past history of a patient whose BMI is now under 30 has resolved
        past = past.replace("obesity", "obesity (resolved with weight loss)")
    return "\n\n".join((
        header(title, patient, day, provider),
        f"History of present illness: {hpi}",
        past,
        vitals(rng, bmi) + f" Physical examination: {exam}",
        f"Assessment: {assessment}",
        f"Plan: {plan} The patient verbalized understanding of and agreement with the plan, "
        "and was told to call the clinic or seek urgent care if symptoms worsen.",
        signoff(provider, day),
    ))


def report(patient: Patient, provider: Provider | None, day: date, title: str,
           sections: tuple[tuple[str, str], ...]) -> str:
    """A report (imaging, sleep study, lab, order form) made of labelled sections."""
    body = "\n\n".join(f"{label}: {text}" for label, text in sections)
    return "\n\n".join((header(title, patient, day, provider), body, _RECORD_NOTICE, signoff(provider, day)))
