"""Rules that turn the world's encounters and documents into chart lists the world
does not carry itself: the medication list and the allergy line.

The world has no medication records, so each chronic diagnosis implies the usual
first-line drug, and documents add what they state (an NSAID trial, a step-therapy
drug, the biologic on order).
"""
from __future__ import annotations

import re

# ICD-10 code -> (drug and strength, sig); the first-line treatment a chart would list.
# A key without a subcode ("G35") stands for its whole category: FY2026 ICD-10-CM bills
# multiple sclerosis as G35.A-G35.D and Parkinson's disease as G20.A1-G20.C, and the same
# first-line drug applies to every type (see medications_for).
DIAGNOSIS_MEDICATIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "I10": (("lisinopril 10 mg tablet", "Take 1 tablet by mouth daily"),),
    "E78.5": (("atorvastatin 20 mg tablet", "Take 1 tablet by mouth at bedtime"),),
    "E03.9": (("levothyroxine 75 mcg tablet", "Take 1 tablet by mouth daily before breakfast"),),
    "K21.9": (("omeprazole 20 mg capsule", "Take 1 capsule by mouth daily before breakfast"),),
    "F41.1": (("sertraline 50 mg tablet", "Take 1 tablet by mouth daily"),),
    "E55.9": (("cholecalciferol 2,000 units tablet", "Take 1 tablet by mouth daily"),),
    "E11.9": (("metformin 500 mg tablet", "Take 1 tablet by mouth twice daily with meals"),),
    "E11.65": (("metformin 1,000 mg tablet", "Take 1 tablet by mouth twice daily with meals"),),
    "E11.649": (("insulin glargine 100 units/mL pen", "Inject 20 units under the skin at bedtime"),),
    "E10.65": (("insulin lispro 100 units/mL pen", "Inject per sliding scale with meals"),
               ("insulin glargine 100 units/mL pen", "Inject 18 units under the skin at bedtime")),
    "I25.10": (("aspirin 81 mg chewable tablet", "Chew 1 tablet by mouth daily"),
               ("metoprolol succinate 25 mg ER tablet", "Take 1 tablet by mouth daily")),
    "I48.91": (("apixaban 5 mg tablet", "Take 1 tablet by mouth twice daily"),),
    "I50.22": (("carvedilol 6.25 mg tablet", "Take 1 tablet by mouth twice daily"),
               ("furosemide 20 mg tablet", "Take 1 tablet by mouth every morning")),
    "J44.9": (("tiotropium 18 mcg inhalation capsule", "Inhale contents of 1 capsule daily"),
              ("albuterol HFA 90 mcg/actuation inhaler", "Inhale 2 puffs every 4-6 hours as needed")),
    "J44.1": (("budesonide/formoterol 160/4.5 mcg inhaler", "Inhale 2 puffs twice daily"),
              ("albuterol HFA 90 mcg/actuation inhaler", "Inhale 2 puffs every 4-6 hours as needed")),
    "G35": (("vitamin D3 1,000 units tablet", "Take 1 tablet by mouth daily"),),
    "G40.909": (("levetiracetam 500 mg tablet", "Take 1 tablet by mouth twice daily"),),
    "G43.909": (("sumatriptan 50 mg tablet", "Take 1 tablet at migraine onset; may repeat once in 2 hours"),),
    "G20": (("carbidopa/levodopa 25/100 mg tablet", "Take 1 tablet by mouth three times daily"),),
    "M81.0": (("alendronate 70 mg tablet", "Take 1 tablet weekly with a full glass of water"),),
    "M16.11": (("acetaminophen 500 mg tablet", "Take 2 tablets by mouth every 8 hours as needed"),),
    "M17.0": (("acetaminophen 500 mg tablet", "Take 2 tablets by mouth every 8 hours as needed"),),
}
# Short courses: listed as completed rather than active.
COMPLETED_COURSES: dict[str, tuple[str, str]] = {
    "N39.0": ("nitrofurantoin 100 mg capsule", "Take 1 capsule by mouth twice daily for 5 days"),
}
_DOSE = re.compile(r"^(.*?\d[\d,./]*\s*(?:mg|mcg|units|mg/kg|mg/m2))\s+(.*)$")
_ALLERGY = re.compile(r"Allergies: ([^.]+)\.")
NO_ALLERGY_RECORD = "Not on File"


def medications_for(code: str) -> tuple[tuple[str, str], ...]:
    """The drugs a diagnosis implies: those of the exact code, else those of its category."""
    if code in DIAGNOSIS_MEDICATIONS:
        return DIAGNOSIS_MEDICATIONS[code]
    return DIAGNOSIS_MEDICATIONS.get(code.split(".")[0], ())


def split_drug(text: str) -> tuple[str, str]:
    """'naproxen 500 mg twice daily' -> ('naproxen 500 mg', 'twice daily')."""
    match = _DOSE.match(text)
    return (match.group(1), match.group(2)) if match else (text, "As directed")


def allergy_line(note_texts: list[str]) -> str:
    """The allergy statement of the most recent note that records one."""
    for text in note_texts:
        match = _ALLERGY.search(text)
        if match:
            value = match.group(1).strip()
            return "NKDA" if value.lower().startswith("no known drug allergies") else value
    return NO_ALLERGY_RECORD
