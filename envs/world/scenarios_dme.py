"""Sleep and DME cases: sleep study, CPAP, home oxygen, glucose monitors, mobility.

DME orders carry the documents suppliers and payers ask for: a face-to-face note, a
written order, and the qualifying test (AHI, SpO2, HbA1c) stated in numbers.
"""

from __future__ import annotations

from datetime import timedelta

from admindesk.envs.world.clinical import ChartBuilder
from admindesk.envs.world.documents import progress_note, report, us_date
from admindesk.envs.world.models import Encounter, Order, Provider


def _dme_paperwork(cb: ChartBuilder, doc: Provider, enc: Encounter, order: Order,
                   findings: str, facts: dict[str, str], length_of_need: str) -> None:
    """Face-to-face note and written order, both dated the day of the visit."""
    rng, patient, day = cb.rng, cb.patient, enc.date
    cb.document("face_to_face", f"Face-to-face evaluation for {order.description}", doc, day, report(
        patient, doc, day, "Face-to-face encounter for durable medical equipment", (
            ("Reason", f"In-person evaluation on {us_date(day)} to assess the need for {order.description} "
                       f"(HCPCS {order.code})."),
            ("Findings", findings),
            ("Medical necessity", "The equipment is required for use in the home, and the patient or caregiver "
                                  "has been instructed in its safe use. The patient is able and willing to use it."),
            ("Diagnoses", ", ".join(f"{c} {cb.icd10[c]}" for c in order.diagnosis_codes)))),
        {**facts, "face_to_face_date": us_date(day)}, enc, order)
    cb.document("written_order", f"Standard written order - {order.code}", doc, day, report(
        patient, doc, day, "Standard written order (DME)", (
            ("Item", f"{order.description}, HCPCS {order.code}, quantity {order.units}."),
            ("Order date", us_date(day)),
            ("Length of need", length_of_need),
            ("Ordering practitioner", f"{doc.display_name}, NPI {doc.npi}, phone {doc.phone}, fax {doc.fax}."),
            ("Patient address", f"{patient.address}, {patient.city}, {patient.state} {patient.zip}; "
                                f"phone {patient.phone}."),
            ("Attestation", f"I have personally evaluated this patient; rx #{rng.randrange(10000, 99999)}."))),
        {"hcpcs": order.code, "length_of_need": length_of_need, "order_date": us_date(day)}, enc, order)


def sleep_study(cb: ChartBuilder) -> None:
    """Polysomnography (95810) or home sleep test (95806) for suspected apnea."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    doc = cb.provider("Pulmonology/Sleep Medicine")
    in_lab = rng.random() < 0.6
    code, desc = ("95810", "Attended in-lab polysomnography") if in_lab else ("95806", "Home sleep apnea test")
    epworth, bmi, stop_bang = rng.randrange(6, 20), round(rng.uniform(27, 44), 1), rng.randrange(2, 8)
    comorbid = rng.choice(("none", "congestive heart failure", "COPD", "neuromuscular disease"))
    dx = ("G47.33", "R06.83")
    enc = cb.encounter(doc, day, "Office Visit", "Snoring and daytime sleepiness", dx)
    order = cb.order(enc, code, desc, "sleep", 1, dx, "FAC-SLP", state, needs_auth=True)
    facts = {"epworth_score": str(epworth), "bmi": str(bmi), "stop_bang_score": str(stop_bang),
             "cardiopulmonary_comorbidity": comorbid}
    text = progress_note(
        rng, patient, doc, day, "Sleep medicine consultation",
        hpi=(f"Loud snoring, witnessed apneas and daytime sleepiness. Epworth Sleepiness Scale {epworth}/24. "
             f"STOP-BANG score {stop_bang}/8. Significant cardiopulmonary comorbidity: {comorbid}."),
        exam=f"Neck circumference {rng.randrange(38, 48)} cm, Mallampati class {rng.choice('34')}, BMI {bmi}.",
        assessment="High pretest probability of obstructive sleep apnea (G47.33).",
        plan=f"{desc} (CPT {code}); an in-lab study is preferred when significant comorbidity is present.",
        bmi=bmi,
    )
    cb.document("progress_note", "Sleep medicine consultation", doc, day, text, facts, enc, order)


def cpap(cb: ChartBuilder) -> None:
    """CPAP (E0601) after a diagnostic sleep study with a stated AHI."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    doc = cb.provider("Pulmonology/Sleep Medicine")
    ahi = round(rng.choice((rng.uniform(5.0, 14.9), rng.uniform(15, 60), rng.uniform(15, 60))), 1)
    sleepy = rng.random() < 0.6
    study_day = day - timedelta(days=rng.randrange(7, 60))
    lowest = rng.randrange(74, 90)
    dx = ("G47.33",)
    study_enc = cb.encounter(doc, study_day, "Outpatient Procedure", "Diagnostic polysomnography", dx, "FAC-SLP")
    enc = cb.encounter(doc, day, "Office Visit", "Sleep study results and CPAP", dx)
    order = cb.order(enc, "E0601", "CPAP device", "dme", 1, dx, "FAC-HOM", state, needs_auth=True)
    severity = "mild" if ahi < 15 else "moderate" if ahi < 30 else "severe"
    cb.document("sleep_study", "Polysomnography report", doc, study_day, report(
        patient, doc, study_day, "Diagnostic polysomnography report (95810)", (
            ("Study", f"Attended overnight polysomnography performed on {us_date(study_day)}; total "
                      f"sleep time {rng.randrange(310, 420)} minutes, sleep efficiency {rng.randrange(70, 92)}%."),
            ("Respiratory events", f"Apnea-Hypopnea Index (AHI): {ahi} events/hour. Obstructive events "
                                   "predominate; central apnea index below 5 events/hour."),
            ("Oximetry", f"Lowest oxygen saturation {lowest}%."),
            ("Interpretation", f"Findings are consistent with {severity} obstructive sleep apnea. "
                               "A trial of positive airway pressure is recommended when clinically indicated."))),
        {"ahi": str(ahi), "study_date": us_date(study_day), "lowest_spo2": str(lowest), "severity": severity},
        study_enc, order)
    symptoms = ("excessive daytime sleepiness" if sleepy else "none")
    _dme_paperwork(cb, doc, enc, order,
                   f"Sleep study on {us_date(study_day)} showed an AHI of {ahi} events/hour. Daytime "
                   f"symptoms (sleepiness, insomnia, hypertension or mood disorder): {symptoms}.",
                   {"ahi": str(ahi), "qualifying_symptoms": symptoms}, "99 months (lifetime)")


def oxygen(cb: ChartBuilder) -> None:
    """Home oxygen concentrator (E1390) for COPD or chronic hypoxic respiratory failure."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    doc = cb.provider(rng.choice(("Pulmonology/Sleep Medicine", "Primary Care")))
    rest = rng.choice((85, 86, 87, 88, 88, 89, 90, 91))
    exertion = rest - rng.randrange(1, 5)
    flow = rng.choice((1, 2, 2, 3))
    dx = rng.choice((("J44.1", "J96.11"), ("J44.9", "J96.11"), ("J84.10", "R09.02")))
    enc = cb.encounter(doc, day, "Office Visit", "Shortness of breath, hypoxemia", dx)
    order = cb.order(enc, "E1390", "Oxygen concentrator, stationary", "dme", 1, dx, "FAC-HOM", state,
                     needs_auth=True, priority=rng.choice(("Routine", "Urgent")))
    facts = {"spo2_rest": f"{rest}%", "spo2_exertion": f"{exertion}%", "flow_rate_lpm": str(flow)}
    text = progress_note(
        rng, patient, doc, day, "Pulmonary visit - hypoxemia",
        hpi=(f"Progressive dyspnea on exertion. Resting SpO2 on room air: {rest}%. SpO2 with ambulation "
             f"on room air: {exertion}%. Testing was done while the patient was clinically stable, "
             "not during an acute illness."),
        exam="Diminished breath sounds bilaterally, prolonged expiration, no accessory muscle use.",
        assessment=f"{cb.icd10[dx[0]]} ({dx[0]}) with chronic hypoxemia.",
        plan=f"Home oxygen at {flow} L/min by nasal cannula, continuous with sleep and exertion (HCPCS E1390).",
    )
    cb.document("progress_note", "Pulmonary visit - hypoxemia", doc, day, text, facts, enc, order)
    _dme_paperwork(cb, doc, enc, order,
                   f"Resting SpO2 on room air: {rest}%; with exertion {exertion}%. Oxygen prescribed at "
                   f"{flow} L/min.", facts, "12 months")


def glucose_monitor(cb: ChartBuilder) -> None:
    """Continuous glucose monitor (E2103 receiver, A4239 supply allowance or A9276 sensors) for diabetes."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    doc = cb.provider(rng.choice(("Endocrinology", "Primary Care")))
    code, desc = rng.choice((("E2103", "Continuous glucose monitor receiver"),
                             ("A9276", "CGM sensors, one month supply"),
                             ("A4239", "Non-adjunctive CGM supply allowance, one month")))
    units = 30 if code == "A9276" else 1
    type1 = rng.random() < 0.35
    dx = ("E10.65", "Z79.4") if type1 else rng.choice((("E11.65", "Z79.4"), ("E11.65",), ("E11.649", "Z79.4")))
    injections = rng.choice((0, 1, 3, 4)) if not type1 else 4
    hba1c = round(rng.uniform(6.8, 11.2), 1)
    hypo = rng.choice(("none", "2 level 2 events in the past month", "1 level 3 event requiring assistance"))
    enc = cb.encounter(doc, day, "Office Visit", "Diabetes management", dx)
    order = cb.order(enc, code, desc, "dme", units, dx, "FAC-HOM", state, needs_auth=True)
    lab_day = day - timedelta(days=rng.randrange(3, 40))
    facts = {"hba1c": f"{hba1c}%", "insulin_injections_per_day": str(injections), "hypoglycemia": hypo}
    text = progress_note(
        rng, patient, doc, day, "Endocrinology follow-up",
        hpi=(f"{'Type 1' if type1 else 'Type 2'} diabetes. Insulin injections per day: {injections}. "
             f"Most recent HbA1c {hba1c}% on {us_date(lab_day)}. Problematic hypoglycemia: {hypo}. "
             "Checking fingerstick glucose several times daily with wide swings."),
        exam="Feet: intact skin, monofilament sensation reduced at the toes. Injection sites without lipohypertrophy.",
        assessment=f"{cb.icd10[dx[0]]} ({dx[0]}).",
        plan=f"Start continuous glucose monitoring ({desc}, HCPCS {code}); diabetes education referral.",
    )
    cb.document("progress_note", "Endocrinology follow-up", doc, day, text, facts, enc, order)
    cb.document("lab_result", "Hemoglobin A1c", doc, lab_day, report(
        patient, doc, lab_day, "Laboratory result - hemoglobin A1c (83036)", (
            ("Result", f"Hemoglobin A1c {hba1c}% (reference 4.0-5.6%)."),
            ("Collected", us_date(lab_day)))),
        {"hba1c": f"{hba1c}%", "collected": us_date(lab_day)}, None, order)


def mobility(cb: ChartBuilder) -> None:
    """Wheelchair (K0001), walker (E0143) or hospital bed (E0260)."""
    rng = cb.rng
    state, day = cb.timeline()
    doc = cb.provider(rng.choice(("Physical Medicine & Rehabilitation", "Primary Care")))
    code, desc = rng.choice((("K0001", "Standard manual wheelchair"), ("E0143", "Folding wheeled walker"),
                             ("E0260", "Semi-electric hospital bed")))
    dx = rng.choice((("R26.2", "M17.0"), ("I69.351", "R26.81"), ("G20.A1", "Z74.09"), ("M16.11", "R26.2")))
    cane = rng.choice(("yes", "no"))
    enc = cb.encounter(doc, day, "Office Visit", "Mobility limitation", dx)
    order = cb.order(enc, code, desc, "dme", 1, dx, "FAC-HOM", state, needs_auth=code != "E0143")
    facts = {"can_use_cane_safely": cane, "mobility_limitation": "mobility-related daily activities impaired"}
    _dme_paperwork(cb, doc, enc, order,
                   f"Gait is slow and unsteady; the patient cannot complete mobility-related daily activities "
                   f"at home (mobility-related daily activities impaired). Can use a cane safely: {cane}. "
                   f"Timed up-and-go {rng.randrange(14, 40)} seconds.",
                   facts, "99 months (lifetime)")
