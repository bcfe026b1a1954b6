"""Imaging and office cases: lumbar, knee and brain MRI, cardiac testing, routine care.

Facts vary on purpose so some cases meet typical payer criteria (six weeks of failed
conservative therapy, or a red flag) and some do not.
"""

from __future__ import annotations

from datetime import timedelta

from admindesk.envs.world.clinical import ChartBuilder
from admindesk.envs.world.documents import progress_note, report, us_date

LUMBAR_RED_FLAGS = ("progressive left foot weakness", "new urinary retention",
                    "saddle anesthesia", "history of cancer with night pain")
NSAIDS = ("naproxen 500 mg twice daily", "ibuprofen 600 mg three times daily",
          "meloxicam 15 mg daily", "diclofenac 75 mg twice daily")


def lumbar_mri(cb: ChartBuilder) -> None:
    """MRI lumbar spine (72148) for low back pain with or without radiculopathy."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    doc = cb.provider(rng.choice(("Orthopedics", "Primary Care", "Physical Medicine & Rehabilitation")))
    radicular = rng.random() < 0.7
    dx = ("M54.16", "M51.26") if radicular else ("M54.50",)
    weeks = rng.choice((2, 3, 4, 5, 6, 6, 8, 8, 10, 12))
    red_flag = rng.choice(LUMBAR_RED_FLAGS) if rng.random() < 0.18 else "none"
    nsaid = rng.choice(NSAIDS)
    did_pt = weeks >= 4 and rng.random() < 0.8
    pt_weeks = min(weeks, rng.choice((4, 6, 8))) if did_pt else 0
    xray_day = day - timedelta(days=weeks * 7 - rng.randrange(0, 7))
    enc = cb.encounter(doc, day, "Office Visit", "Low back pain" + (" with leg pain" if radicular else ""), dx)
    order = cb.order(enc, "72148", "MRI lumbar spine without contrast", "imaging", 1, dx,
                     "FAC-OPI", state, needs_auth=True, priority="Urgent" if red_flag != "none" else "Routine")
    leg = f"radiating down the {rng.choice(('left', 'right'))} leg below the knee" if radicular else "without radiation"
    therapy = (f"completed {pt_weeks} weeks of physical therapy and {nsaid}" if did_pt
               else f"taken {nsaid} (physical therapy: none)")
    facts = {"conservative_therapy_weeks": str(weeks), "red_flags": red_flag, "nsaid_trial": nsaid,
             "physical_therapy_weeks": str(pt_weeks) if did_pt else "none",
             "prior_imaging_date": us_date(xray_day)}
    text = progress_note(
        rng, patient, doc, day, "Office visit - low back pain",
        hpi=(f"{patient.first_name} reports low back pain {leg} for {weeks + 2} weeks. Over the "
             f"past {weeks} weeks of conservative therapy the patient has {therapy} without "
             f"meaningful improvement (conservative therapy: {weeks} weeks). Pain is rated "
             f"{rng.randrange(5, 9)}/10 and limits sitting and sleep. Red-flag symptoms: {red_flag}."),
        exam=(f"Lumbar paraspinal tenderness. Straight leg raise {'positive' if radicular else 'negative'}. "
              + ("Weakness of ankle dorsiflexion 4/5 on the affected side." if "weakness" in red_flag
                 else "Strength 5/5 in both lower extremities, reflexes symmetric.")),
        assessment=f"{cb.icd10[dx[0]]} ({dx[0]}). Lumbar X-ray on {us_date(xray_day)} showed degenerative changes only.",
        plan=("Order MRI of the lumbar spine without contrast (CPT 72148) to evaluate for nerve root "
              "compression and to guide possible epidural steroid injection. Prior authorization to be obtained."),
    )
    cb.document("progress_note", "Office visit - low back pain", doc, day, text, facts, enc, order)
    cb.document("imaging_report", "X-ray lumbar spine, 2-3 views", None, xray_day, report(
        patient, None, xray_day, "X-ray lumbar spine (72100)", (
            ("Indication", "Low back pain."),
            ("Technique", "AP and lateral views of the lumbar spine."),
            ("Findings", "Alignment is preserved. Mild disc space narrowing at L4-L5 and L5-S1 with small "
                         "anterior osteophytes. No fracture, no destructive lesion, no spondylolisthesis."),
            ("Impression", f"Mild lumbar spondylosis, study date {us_date(xray_day)}. MRI may be considered if "
                           "symptoms persist despite conservative care."))),
        {"study_date": us_date(xray_day)}, None, order)
    if did_pt:
        pt = cb.provider("Physical Therapy")
        pt_day = day - timedelta(days=rng.randrange(2, 6))
        sessions = pt_weeks * 2
        cb.document("pt_note", "Physical therapy progress summary", pt, pt_day, report(
            patient, pt, pt_day, "Physical therapy progress summary", (
                ("Course", f"The patient attended {sessions} sessions over {pt_weeks} weeks of physical "
                           "therapy focused on core stabilization, McKenzie extension exercises, manual "
                           "therapy and a home exercise program."),
                ("Outcome", f"Oswestry Disability Index {rng.randrange(36, 62)}% at discharge versus "
                            f"{rng.randrange(40, 66)}% at evaluation. Pain unchanged; patient has not met goals."),
                ("Recommendation", "Return to the referring provider for further work-up; therapy has not "
                                   "resolved the symptoms."))),
            {"physical_therapy_weeks": str(pt_weeks), "sessions": str(sessions)}, None, order)


def knee_mri(cb: ChartBuilder) -> None:
    """MRI knee (73721) for a suspected meniscus tear."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    doc = cb.provider(rng.choice(("Orthopedics", "Primary Care")))
    side = rng.choice(("right", "left"))
    dx = ("S83.241A", "M25.561") if side == "right" else ("S83.242A", "M25.562")
    weeks = rng.choice((1, 2, 3, 4, 6, 8))
    # Catching or locking is what makes a meniscal tear likely; without it (and with a
    # short trial of conservative care) a payer can rightly deny the MRI.
    mechanical = rng.random() < 0.7
    mcmurray = "positive" if mechanical else "negative"
    xray_day = day - timedelta(days=rng.randrange(5, 30))
    enc = cb.encounter(doc, day, "Office Visit", f"{side.title()} knee pain after twisting injury", dx)
    order = cb.order(enc, "73721", f"MRI {side} knee without contrast", "imaging", 1, dx,
                     "FAC-OPI", state, needs_auth=True)
    facts = {"conservative_therapy_weeks": str(weeks), "mcmurray_test": mcmurray,
             "mechanical_symptoms": "catching and locking" if mechanical else "none",
             "laterality": side, "prior_imaging_date": us_date(xray_day)}
    symptoms = ("catching and intermittent locking (mechanical symptoms: catching and locking)" if mechanical
                else "pain with stairs and squatting; no catching, locking or giving way (mechanical symptoms: none)")
    text = progress_note(
        rng, patient, doc, day, "Orthopedic visit - knee pain",
        hpi=(f"Twisting injury of the {side} knee with medial joint line pain, {symptoms}. Conservative "
             f"therapy for {weeks} weeks (rest, ice, bracing and NSAIDs) has not relieved the pain."),
        exam=f"Small effusion of the {side} knee, medial joint line tenderness, McMurray test {mcmurray}. Ligaments stable.",
        assessment=f"Suspected medial meniscus tear, {side} knee ({dx[0]}). Knee X-ray on {us_date(xray_day)}: no fracture.",
        plan=f"MRI of the {side} knee without contrast (CPT 73721). Consider arthroscopy depending on findings.",
    )
    cb.document("progress_note", "Orthopedic visit - knee pain", doc, day, text, facts, enc, order)


def brain_mri(cb: ChartBuilder) -> None:
    """MRI brain with and without contrast (70553) for headache, MS or seizure."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    doc = cb.provider("Neurology")
    reason, dx = rng.choice((("Chronic headaches", ("G43.909", "R51.9")),
                             ("Multiple sclerosis surveillance", ("G35.A",)),
                             ("New-onset seizure", ("G40.909", "R56.9")),
                             ("Dizziness and visual disturbance", ("R42", "H53.9"))))
    deficit = rng.choice(("none", "none", "left arm numbness", "right-sided visual field loss", "gait ataxia"))
    months = rng.randrange(1, 24)
    enc = cb.encounter(doc, day, "Office Visit", reason, dx)
    order = cb.order(enc, "70553", "MRI brain with and without contrast", "imaging", 1, dx,
                     "FAC-OPI", state, needs_auth=True)
    facts = {"symptom_duration_months": str(months), "focal_neurologic_deficit": deficit}
    text = progress_note(
        rng, patient, doc, day, "Neurology consultation",
        hpi=(f"Referred for {reason.lower()}. Symptoms have been present for {months} months. "
             f"Focal neurologic deficit: {deficit}. Triptans, topiramate or prior treatments were "
             "reviewed as relevant; no prior MRI is available in our records."),
        exam="Alert and oriented, cranial nerves II-XII intact except as noted; coordination and gait assessed.",
        assessment=f"{cb.icd10[dx[0]]} ({dx[0]}).",
        plan="MRI brain with and without contrast (CPT 70553); follow up after imaging to discuss results.",
    )
    cb.document("progress_note", "Neurology consultation", doc, day, text, facts, enc, order)


def cardiac_testing(cb: ChartBuilder) -> None:
    """Nuclear stress test (78452), coronary CTA (75574) or echo (93306)."""
    rng, patient = cb.rng, cb.patient
    state, day = cb.timeline()
    doc = cb.provider("Cardiology")
    code, desc, needs_auth = rng.choice((("78452", "Nuclear myocardial perfusion study, rest and stress", True),
                                         ("75574", "CT angiography of the coronary arteries", True),
                                         ("93306", "Transthoracic echocardiogram, complete", False)))
    dx = rng.choice((("R07.9", "I25.10"), ("I50.22",), ("I48.91", "R00.2"), ("R07.89", "E78.5")))
    can_exercise = rng.choice(("yes", "no"))
    ecg = rng.choice(("normal sinus rhythm", "left bundle branch block", "nonspecific ST changes"))
    enc = cb.encounter(doc, day, "Office Visit", "Cardiology evaluation", dx)
    order = cb.order(enc, code, desc, "imaging", 1, dx, "FAC-OPI", state, needs_auth=needs_auth)
    facts = {"able_to_exercise": can_exercise, "baseline_ecg": ecg}
    text = progress_note(
        rng, patient, doc, day, "Cardiology consultation",
        hpi=(f"Evaluation for {cb.icd10[dx[0]].lower()}. Exertional symptoms over several weeks. "
             f"Able to exercise on a treadmill: {can_exercise}. Baseline ECG shows {ecg}."),
        exam="Regular rhythm, no murmur, lungs clear, no peripheral edema.",
        assessment=f"{cb.icd10[dx[0]]} ({dx[0]}); intermediate pretest probability of coronary disease.",
        plan=f"{desc} (CPT {code}). Continue aspirin and statin; return after testing.",
    )
    cb.document("progress_note", "Cardiology consultation", doc, day, text, facts, enc, order)


def routine_outpatient(cb: ChartBuilder) -> None:
    """Labs, a chest X-ray or therapy visits that rarely need authorization."""
    rng = cb.rng
    state, day = cb.timeline()
    doc = cb.provider("Primary Care")
    code, desc, category, units, dx, facility, needs_auth = rng.choice((
        ("80053", "Comprehensive metabolic panel", "lab", 1, ("I10", "E78.5"), "FAC-HBG", False),
        ("83036", "Hemoglobin A1c", "lab", 1, ("E11.9",), "FAC-HBG", False),
        ("71046", "Chest X-ray, 2 views", "imaging", 1, ("R05.9", "R06.02"), "FAC-OPI", False),
        ("77080", "DXA bone density", "imaging", 1, ("M81.0",), "FAC-OPI", False),
        ("97110", "Physical therapy, therapeutic exercise", "therapy", 12, ("M54.50", "M62.81"), "FAC-HBG", True),
    ))
    enc = cb.encounter(doc, day, "Office Visit", cb.icd10[dx[0]], dx)
    cb.order(enc, code, desc, category, units, dx, facility, state, needs_auth=needs_auth)
