"""Questionnaire answers of requests already on file, read from the chart's facts.

Requests the world placed on file were submitted before the episode; their answers are
what the ordering office would have entered, i.e. the facts of the order's documents.
"""
from __future__ import annotations

from datetime import datetime

_RED_FLAGS = {
    "none": "None",
    "progressive left foot weakness": "Progressive neurologic deficit (e.g. foot weakness)",
    "new urinary retention": "Bowel or bladder dysfunction (e.g. urinary retention)",
    "saddle anesthesia": "Saddle anesthesia",
    "history of cancer with night pain": "Suspected cancer or infection",
}
_COMORBIDITY = {"none": "None", "congestive heart failure": "Congestive heart failure", "COPD": "COPD",
                "neuromuscular disease": "Neuromuscular disease"}
_ECG = {"normal sinus rhythm": "Normal sinus rhythm", "left bundle branch block": "Left bundle branch block",
        "nonspecific ST changes": "Nonspecific ST changes"}


def _yes(flag: bool) -> str:
    return "Yes" if flag else "No"


def _number(text: str | None) -> float | int | None:
    if text is None:
        return None
    value = float(text.rstrip("%"))
    return int(value) if value.is_integer() else value


def _iso(us_date: str | None) -> str | None:
    return datetime.strptime(us_date, "%m/%d/%Y").date().isoformat() if us_date else None


def answers_from_facts(questionnaire: str, facts: dict[str, str]) -> dict:
    """Map document facts onto one questionnaire's answers (unknown facts are left out)."""
    f = facts.get
    answers: dict = {}
    if questionnaire == "lumbar_mri":
        answers = {"conservative_therapy_weeks": _number(f("conservative_therapy_weeks")),
                   "red_flag_symptoms": _RED_FLAGS.get(f("red_flags", ""), None),
                   "prior_imaging": "X-ray" if f("prior_imaging_date") else "None",
                   "prior_imaging_date": _iso(f("prior_imaging_date"))}
    elif questionnaire == "knee_mri":
        answers = {"conservative_therapy_weeks": _number(f("conservative_therapy_weeks")),
                   "mechanical_symptoms": _yes(f("mcmurray_test") == "positive"),
                   "prior_imaging": _yes(bool(f("prior_imaging_date")))}
    elif questionnaire == "brain_mri":
        answers = {"symptom_duration_months": _number(f("symptom_duration_months")),
                   "focal_neurologic_deficit": _yes(f("focal_neurologic_deficit", "none") != "none")}
    elif questionnaire == "cardiac_imaging":
        answers = {"able_to_exercise": _yes(f("able_to_exercise") == "yes"),
                   "baseline_ecg": _ECG.get(f("baseline_ecg", "")), "symptomatic": "Yes"}
    elif questionnaire == "sleep_study":
        answers = {"snoring_witnessed_apneas": "Yes", "daytime_sleepiness": "Yes",
                   "epworth_score": _number(f("epworth_score")), "stop_bang_score": _number(f("stop_bang_score")),
                   "cardiopulmonary_comorbidity": _COMORBIDITY.get(f("cardiopulmonary_comorbidity", ""))}
    elif questionnaire == "cpap":
        answers = {"ahi": _number(f("ahi")), "sleep_study_date": _iso(f("study_date")),
                   "qualifying_symptoms": _yes(f("qualifying_symptoms", "none") != "none"),
                   "compliance_agreement": "Yes"}
    elif questionnaire == "oxygen":
        answers = {"spo2_room_air": _number(f("spo2_rest")), "spo2_exertion": _number(f("spo2_exertion")),
                   "qualifying_test_date": _iso(f("face_to_face_date")), "clinically_stable": "Yes"}
    elif questionnaire == "glucose_monitor":
        answers = {"insulin_injections_per_day": _number(f("insulin_injections_per_day")),
                   "problematic_hypoglycemia": _yes(f("hypoglycemia", "none") != "none"),
                   "hba1c": _number(f("hba1c"))}
    elif questionnaire == "mobility":
        answers = {"mobility_limitation": "Yes", "can_use_cane_safely": _yes(f("can_use_cane_safely") == "yes"),
                   "face_to_face_date": _iso(f("face_to_face_date"))}
    elif questionnaire == "specialty_drug":
        answers = {"diagnosis_confirmed": "Yes", "prior_therapies_failed": f("prior_therapy", "none"),
                   "prior_therapy_weeks": _number(f("prior_therapy_weeks", "0")),
                   "tb_screen": (f("tb_screen") or "not done").capitalize()}
    elif questionnaire == "oncology_drug":
        answers = {"diagnosis_confirmed": "Yes", "cancer_stage": "Stage " + (f("stage") or "stage IV").split()[-1],
                   "treatment_line": "First line"}
    elif questionnaire == "general":
        answers = {"clinical_summary": "Clinical notes on file support the request."}
    return {key: value for key, value in answers.items() if value is not None}
