"""Specialty drug and oncology imaging cases.

Biologic requests hinge on step therapy (a conventional drug tried for long enough)
and a negative tuberculosis screen; both are stated with dates.
"""

from __future__ import annotations

from datetime import timedelta

from admindesk.envs.world.clinical import ChartBuilder
from admindesk.envs.world.documents import progress_note, report, us_date

# (code, drug, units per dose, specialty, diagnosis options, prior conventional therapy)
_DRUGS = (
    ("J0135", "adalimumab 40 mg every 2 weeks", 2, "Rheumatology", (("M05.79",), ("M06.9",), ("L40.50",)),
     "methotrexate"),
    ("J1745", "infliximab 5 mg/kg every 8 weeks", 40, "Rheumatology", (("M05.79",), ("K50.90",)),
     "methotrexate"),
    ("J3262", "tocilizumab 8 mg/kg every 4 weeks", 560, "Rheumatology", (("M05.79",), ("M06.09",)),
     "methotrexate"),
    ("J2350", "ocrelizumab 600 mg every 6 months", 600, "Neurology", (("G35.A",),), "interferon beta-1a"),
    ("J9312", "rituximab 375 mg/m2 weekly", 70, "Oncology", (("C83.30", "Z51.12"), ("C91.10", "Z51.12")),
     "none"),
    ("J9271", "pembrolizumab 200 mg every 3 weeks", 200, "Oncology", (("C34.90", "Z51.12"),), "none"),
    ("J9355", "trastuzumab 6 mg/kg every 3 weeks", 42, "Oncology", (("C50.911", "Z51.11"),), "none"),
)
# Billing units of one dose of each drug (HCPCS units: ocrelizumab is per 1 mg, so 600 mg is 600).
DOSE_UNITS = {code: units for code, _drug, units, *_rest in _DRUGS}


def specialty_drug(cb: ChartBuilder) -> None:
    """Infused or injected biologic under the medical benefit."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    code, drug, units, specialty, dx_options, prior = rng.choice(_DRUGS)
    dx = rng.choice(dx_options)
    doc = cb.provider(specialty)
    enc = cb.encounter(doc, day, "Office Visit", f"Consideration of {drug.split()[0]}", dx)
    order = cb.order(enc, code, drug, "drug", units, dx, "FAC-INF", state, needs_auth=True)
    tb_day = day - timedelta(days=rng.randrange(10, 200))
    tb = rng.choice(("negative", "negative", "negative", "indeterminate"))
    facts = {"drug": drug.split()[0], "tb_screen": tb, "tb_screen_date": us_date(tb_day)}
    if prior != "none":
        weeks = rng.choice((6, 8, 12, 12, 16, 24))
        trial_start = day - timedelta(days=weeks * 7 + rng.randrange(14, 60))
        outcome = rng.choice(("inadequate response", "inadequate response", "intolerance (hepatotoxicity)"))
        facts |= {"prior_therapy": prior, "prior_therapy_weeks": str(weeks),
                  "prior_therapy_start": us_date(trial_start), "prior_therapy_outcome": outcome}
        history_text = (f"Step therapy: {prior} started {us_date(trial_start)} for {weeks} weeks with "
                        f"{outcome}.")
        cb.document("medication_history", "Medication history", doc, day, report(
            patient, doc, day, "Medication history", (
                ("Conventional therapy", f"{prior} started on {us_date(trial_start)}, titrated to target dose, "
                                         f"continued for {weeks} weeks; discontinued for {outcome}."),
                ("Other trials", "Prednisone bursts for flares; NSAIDs as needed."),
                ("Current", "Folic acid 1 mg daily, calcium with vitamin D."))),
            {k: facts[k] for k in ("prior_therapy", "prior_therapy_weeks", "prior_therapy_start",
                                   "prior_therapy_outcome")}, enc, order)
    else:
        stage = rng.choice(("stage II", "stage III", "stage IV"))
        ecog = str(rng.randrange(0, 3))
        facts |= {"stage": stage, "ecog": ecog}
        history_text = f"Disease is {stage}; ECOG performance status {ecog}. Regimen per NCCN-concordant plan."
    text = progress_note(
        rng, patient, doc, day, f"{specialty} visit",
        hpi=(f"Follow-up for {cb.icd10[dx[0]].lower()}. {history_text} Tuberculosis screen "
             f"(interferon-gamma release assay) {tb} on {us_date(tb_day)}. Hepatitis B surface antigen negative."),
        exam="Findings documented in the flowsheet; disease activity remains high.",
        assessment=f"{cb.icd10[dx[0]]} ({dx[0]}).",
        plan=f"Begin {drug} (HCPCS {code}, {units} billing units per dose) at the infusion center.",
    )
    cb.document("progress_note", f"{specialty} visit", doc, day, text, facts, enc, order)
    cb.document("lab_result", "Tuberculosis screening", doc, tb_day, report(
        patient, doc, tb_day, "Laboratory result - interferon-gamma release assay (86480)", (
            ("Result", f"{tb}. Nil, TB antigen and mitogen tubes within expected ranges."),
            ("Collected", us_date(tb_day)))),
        {"tb_screen": tb, "collected": us_date(tb_day)}, None, order)


def pet_scan(cb: ChartBuilder) -> None:
    """PET/CT (78815) for staging or restaging a cancer."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    doc = cb.provider("Oncology")
    dx = rng.choice((("C34.90",), ("C83.30",), ("C50.911",), ("C18.9",)))
    purpose = rng.choice(("initial staging", "restaging after treatment", "surveillance"))
    ct_day = day - timedelta(days=rng.randrange(7, 45))
    size = round(rng.uniform(1.1, 4.8), 1)
    enc = cb.encounter(doc, day, "Office Visit", f"Oncology - {purpose}", dx)
    order = cb.order(enc, "78815", "PET/CT skull base to mid-thigh", "imaging", 1, dx, "FAC-OPI", state,
                     needs_auth=True)
    facts = {"pet_purpose": purpose, "index_lesion_cm": str(size), "prior_ct_date": us_date(ct_day)}
    text = progress_note(
        rng, patient, doc, day, "Oncology visit",
        hpi=(f"{cb.icd10[dx[0]]}. PET/CT requested for {purpose}. Index lesion {size} cm on CT of "
             f"{us_date(ct_day)}."),
        exam="No palpable adenopathy; performance status stable.",
        assessment=f"{cb.icd10[dx[0]]} ({dx[0]}).",
        plan="PET/CT skull base to mid-thigh (CPT 78815); tumor board review afterwards.",
    )
    cb.document("progress_note", "Oncology visit", doc, day, text, facts, enc, order)
    cb.document("imaging_report", "CT chest/abdomen/pelvis", None, ct_day, report(
        patient, None, ct_day, "CT chest, abdomen and pelvis with contrast", (
            ("Findings", f"Index lesion measuring {size} cm. No new osseous lesions."),
            ("Impression", f"Study of {us_date(ct_day)}: measurable disease as described; PET/CT may clarify."))),
        {"index_lesion_cm": str(size), "study_date": us_date(ct_day)}, None, order)
