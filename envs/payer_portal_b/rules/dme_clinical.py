"""Keystone Mutual's clinical criteria for PAP devices and home oxygen (policies KM-DME-401/402).

PAP (E0601, E0470), initial 3-month trial:
- the face-to-face evaluation is on or before the sleep test;
- AHI >= 15, or AHI 5 to 14 with a documented comorbidity (hypertension, stroke,
  ischemic heart disease, insomnia, excessive daytime sleepiness, mood disorder).
PAP continued coverage after the trial: a re-evaluation visit by the treating practitioner
within days 31 to 91 of the trial, and adherence of 4 hours a night on at least 70% of
the nights (21 of 30) in a consecutive 30-day period that lies within days 31 to 91 of
the trial and has ended, on an approved initial PAP request of the same subscriber.
Home oxygen (E1390, E1392, E0431, E0424), any one group:
- Group I at rest: SpO2 <= 88% on room air at rest;
- Group I with exertion: SpO2 <= 88% on room air during exercise AND documented
  improvement of the hypoxemia on oxygen (a higher SpO2 with oxygen during exercise);
- Group II: SpO2 of 89% (at rest or with exertion) or PaO2 56-59 mmHg, with dependent
  edema from congestive heart failure, pulmonary hypertension or cor pulmonale, or
  erythrocythemia with a hematocrit above 56%.
  The qualifying test is done within the 30 days before the order date (the initial date), in a
  chronic stable state (or within 2 days before an inpatient discharge), and not by a DME
  supplier. A Group II approval lasts 3 months: continued coverage needs a retest and a
  re-evaluation between day 61 and day 90.
Each function returns the failed criterion in words, or None when the criteria are met.
"""
from __future__ import annotations

from datetime import date, timedelta

from admindesk.envs.payer_portal_b.fields import DATE_FORMAT

PAP_COMORBIDITIES = ("Hypertension", "Stroke", "Ischemic heart disease", "Insomnia", "Excessive daytime sleepiness",
                     "Mood disorder")
OXYGEN_GROUP_II_CONDITIONS = ("Dependent edema / congestive heart failure", "Pulmonary hypertension / cor pulmonale",
                              "Erythrocythemia")
AHI_QUALIFYING, AHI_WITH_COMORBIDITY = 15, 5
ADHERENCE_HOURS, ADHERENCE_PERIOD_DAYS, ADHERENCE_NIGHTS = 4, 30, 21
TRIAL_WINDOW = (31, 91)
SPO2_GROUP_I, SPO2_GROUP_II, PAO2_GROUP_II = 88, 89, (56, 59)
HEMATOCRIT_ERYTHROCYTHEMIA = 56
OXYGEN_TEST_DAYS, GROUP_II_MONTHS, GROUP_II_RETEST = 30, 3, (61, 90)
OXYGEN_TESTERS = ("Treating practitioner", "Hospital or independent testing facility", "DME supplier")
OXYGEN_TEST_STATES = ("Chronic stable state, outpatient", "Within 2 days before inpatient discharge", "Other")

PAP_CRITERION = (f"AHI >= {AHI_QUALIFYING}, or AHI {AHI_WITH_COMORBIDITY}-{AHI_QUALIFYING - 1} with a documented "
                 f"comorbidity ({', '.join(c.lower() for c in PAP_COMORBIDITIES)})")
OXYGEN_CRITERION = (f"SpO2 <= {SPO2_GROUP_I}% on room air at rest; or SpO2 <= {SPO2_GROUP_I}% on room air during "
                    f"exercise with documented improvement on oxygen; or (Group II) SpO2 {SPO2_GROUP_II}% or PaO2 "
                    f"{PAO2_GROUP_II[0]}-{PAO2_GROUP_II[1]} mmHg with dependent edema/CHF, pulmonary hypertension/cor "
                    f"pulmonale, or erythrocythemia (hematocrit > {HEMATOCRIT_ERYTHROCYTHEMIA}%)")


def pap_initial_problem(ahi: float, comorbidities: list[str], face_to_face: date, sleep_test: date) -> str | None:
    if face_to_face > sleep_test:
        return (f"The face-to-face evaluation ({face_to_face.strftime(DATE_FORMAT)}) must come before the sleep "
                f"test ({sleep_test.strftime(DATE_FORMAT)}).")
    if ahi >= AHI_QUALIFYING or (ahi >= AHI_WITH_COMORBIDITY and comorbidities):
        return None
    return f"AHI {ahi:g} does not meet the criterion {PAP_CRITERION}."


def pap_continued_problem(setup: date, adherence_start: date, nights_4h: int, reevaluation: date,
                          today: date) -> str | None:
    """Day 1 of the trial is the set-up day; `reevaluation` is the treating practitioner's visit."""
    first_day = setup + timedelta(days=TRIAL_WINDOW[0] - 1)
    last_day = setup + timedelta(days=TRIAL_WINDOW[1] - 1)
    period_end = adherence_start + timedelta(days=ADHERENCE_PERIOD_DAYS - 1)
    if not first_day <= reevaluation <= min(last_day, today):
        return (f"The treating practitioner's re-evaluation ({reevaluation.strftime(DATE_FORMAT)}) must take place "
                f"within days {TRIAL_WINDOW[0]}-{TRIAL_WINDOW[1]} of the trial that began "
                f"{setup.strftime(DATE_FORMAT)} ({first_day.strftime(DATE_FORMAT)} to "
                f"{last_day.strftime(DATE_FORMAT)}), and not after today.")
    if adherence_start < first_day or period_end > last_day:
        return (f"The {ADHERENCE_PERIOD_DAYS}-day adherence period must lie within days {TRIAL_WINDOW[0]}-"
                f"{TRIAL_WINDOW[1]} of the trial that began {setup.strftime(DATE_FORMAT)} "
                f"({first_day.strftime(DATE_FORMAT)} to {last_day.strftime(DATE_FORMAT)}).")
    if period_end > today:
        return f"The adherence period ends {period_end.strftime(DATE_FORMAT)}, after today."
    if nights_4h < ADHERENCE_NIGHTS:
        return (f"{nights_4h} of {ADHERENCE_PERIOD_DAYS} nights with {ADHERENCE_HOURS} or more hours of use does "
                f"not meet the adherence criterion ({ADHERENCE_HOURS} h/night on 70% of nights, "
                f"{ADHERENCE_NIGHTS} of {ADHERENCE_PERIOD_DAYS}).")
    return None


def oxygen_test_problem(test_date: date, tested_by: str, state: str, order_date: date) -> str | None:
    """The qualifying test's date, performer and setting against the order (initial) date."""
    if tested_by == "DME supplier":
        return ("The qualifying oxygen test was performed by a DME supplier; Keystone Mutual does not accept a "
                "supplier's test (policy KM-DME-402). A new test by the treating practitioner or a qualified "
                "testing facility is needed.")
    if state not in OXYGEN_TEST_STATES[:2]:
        return ("The qualifying oxygen test must be done while the member is in a chronic stable state as an "
                "outpatient, or within 2 days before an inpatient discharge.")
    earliest = order_date - timedelta(days=OXYGEN_TEST_DAYS)
    if not earliest <= test_date <= order_date:
        return (f"The qualifying oxygen test ({test_date.strftime(DATE_FORMAT)}) must be within the "
                f"{OXYGEN_TEST_DAYS} days before the order date {order_date.strftime(DATE_FORMAT)} "
                f"({earliest.strftime(DATE_FORMAT)} to {order_date.strftime(DATE_FORMAT)}).")
    return None


def oxygen_group(values: dict) -> str | None:
    """"I" or "II", the group the test values (and Group II findings) qualify under, or None."""
    rest, exertion, on_oxygen = values.get("spo2_rest"), values.get("spo2_exertion"), values.get("spo2_on_oxygen")
    if rest is not None and rest <= SPO2_GROUP_I:
        return "I"
    if exertion is not None and exertion <= SPO2_GROUP_I and on_oxygen is not None and on_oxygen > exertion:
        return "I"
    conditions = list(values.get("oxygen_conditions") or [])
    hematocrit = values.get("hematocrit")
    if "Erythrocythemia" in conditions and not (hematocrit is not None and hematocrit > HEMATOCRIT_ERYTHROCYTHEMIA):
        conditions.remove("Erythrocythemia")
    pao2 = values.get("pao2")
    group_ii_test = SPO2_GROUP_II in (rest, exertion) or (pao2 is not None and PAO2_GROUP_II[0] <= pao2 <= PAO2_GROUP_II[1])
    return "II" if group_ii_test and conditions else None


def oxygen_problem(values: dict) -> str | None:
    """`values`: spo2_rest, spo2_exertion, spo2_on_oxygen, pao2, oxygen_conditions, hematocrit."""
    if oxygen_group(values) is not None:
        return None
    rest, exertion, on_oxygen, pao2 = (values.get(key) for key in ("spo2_rest", "spo2_exertion", "spo2_on_oxygen",
                                                                   "pao2"))
    given = ", ".join(f"{label} {value:g}" for label, value in (
        ("resting SpO2", rest), ("exercise SpO2", exertion), ("exercise SpO2 on oxygen", on_oxygen), ("PaO2", pao2))
        if value is not None) or "no test values"
    if exertion is not None and exertion <= SPO2_GROUP_I and (on_oxygen is None or on_oxygen <= exertion):
        given += "; no documented improvement on oxygen"
    return f"The oximetry ({given}) does not meet the criterion: {OXYGEN_CRITERION}."
