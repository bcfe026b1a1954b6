"""Portal A (the multi-payer clearinghouse portal) gestures: sign in, eligibility."""
from __future__ import annotations

from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

PORTAL_A_TAB = "Payer Portal A"
PAYER_NAMES = {"PYR-ACH": "Atlas Choice Health", "PYR-CSH": "Cascade Summit Health",
               "PYR-HSA": "Harborview Senior Advantage", "PYR-KMH": "Keystone Mutual Health",
               "PYR-NWH": "Northwind Health Plan", "PYR-PSM": "Prairie State Community Care",
               "PYR-SLH": "Silverline Health Partners"}
# A payer's id by the name the EHR and its remittances give it.
PAYER_IDS = {name: payer_id for payer_id, name in PAYER_NAMES.items()}


def payer_name(payer_id: str) -> str:
    """The payer's name as every app's payer lists show it."""
    if payer_id not in PAYER_NAMES:
        raise ScriptFailed(f"unknown payer {payer_id}")
    return PAYER_NAMES[payer_id]


def open_portal_a(work: Work) -> None:
    """Portal A in a new tab, signed in (once per episode)."""
    work.open_app_tab(PORTAL_A_TAB, "portal_a_tab")


def _payer_space_tab(work: Work, payer_id: str, tab: str) -> None:
    """Payer Spaces, the payer's space, then one of its tabs."""
    open_portal_a(work)
    actor = work.actor
    actor.click("nav.top-tabs a:has-text('Payer Spaces')")
    actor.click(f"main table a:text-is('{payer_name(payer_id)}')")
    actor.click(f"ul.tabs-local a:text-is('{tab}')")


def _section_text(work: Work, payer_id: str, selector: str, what: str) -> str:
    if not work.actor.count(selector):
        raise ScriptFailed(f"{payer_name(payer_id)}'s {what}")
    return " ".join(work.actor.text(selector).split())


def manual_chapter(work: Work, payer_id: str, title: str) -> str:
    """The payer's space (Payer Spaces), its provider manual, and the text of one chapter."""
    _payer_space_tab(work, payer_id, "Provider manual")
    chapter = f"xpath=//section[starts-with(@id, 'chapter-')][h3[contains(., '{title}')]]"
    return _section_text(work, payer_id, chapter, f"manual has no chapter {title!r}")


def payer_news(work: Work, payer_id: str, title: str) -> str:
    """The payer's space, its News & announcements, and the text of the item titled `title`."""
    _payer_space_tab(work, payer_id, "News & announcements")
    item = f"xpath=//article[h3[contains(., '{title}')]]/p"
    return _section_text(work, payer_id, item, f"announcements have no item {title!r}")


def medical_policy(work: Work, payer_id: str, code: str) -> str:
    """The payer's space, its Medical policy library, and the text of the code's row."""
    _payer_space_tab(work, payer_id, "Medical policy library")
    row = f"xpath=//table//tr[td[1][normalize-space()='{code}']]"
    return _section_text(work, payer_id, row, f"medical policy library has no row for {code}")


def check_eligibility(work: Work, member_id: str, payer_id: str, service_day: date) -> str:
    """An eligibility inquiry on portal A; returns the status shown (Active, Inactive...). With no
    `member_id` the member is searched by the patient's last and first name and date of birth."""
    open_portal_a(work)
    actor = work.actor
    actor.click("nav.top-tabs a:has-text('Eligibility')")
    actor.select_option("select[name=payer_id]", payer_name(payer_id))
    actor.fill("input[name=dob]", us_date(work.patient["dob"]))
    actor.fill("input[name=service_date]", us_date(service_day))
    if member_id:
        actor.fill("input[name=member_id]", member_id)
    else:
        actor.fill("input[name=last_name]", work.patient["last_name"])
        actor.fill("input[name=first_name]", work.patient["first_name"])
    actor.click("button:text-is('Submit inquiry')")
    if not actor.count("#coverage-heading"):
        raise ScriptFailed(f"the eligibility inquiry gave no result: {actor.text('main')[:400]}")
    return actor.text(".status")


CLAIM_TABS = {"remittance": "Remittance (EOB)", "appeals": "Appeals (", "timeline": "Status timeline"}


def find_claim(work: Work, claim_number: str) -> bool:
    """Claim Status, a search by the claim number: True with the claim open, False when the
    payer has no such claim on file."""
    open_portal_a(work)
    actor = work.actor
    actor.click("nav.top-tabs a:has-text('Claim Status')")
    actor.fill("input[name=claim_number]", claim_number)
    actor.click("form[role=search] button:text-is('Search')")
    return actor.text("main h1").split()[:2] == ["Claim", claim_number]


def open_claim(work: Work, claim_number: str, tab: str = "summary") -> None:
    """Claim Status, the claim by its number, then one of its tabs (summary, remittance,
    appeals, timeline)."""
    if not find_claim(work, claim_number):
        raise ScriptFailed(f"portal A found no claim {claim_number}: {work.actor.text('main')[:300]}")
    actor = work.actor
    if tab != "summary":
        actor.click(f"ul.tabs-local a:has-text('{CLAIM_TABS[tab]}')")


def claim_status(work: Work) -> str:
    """The open claim's status badge (Paid, Denied...)."""
    return work.actor.text("main h1 .status")


def appeals_on_claim(work: Work) -> list[str]:
    """The open claim's Appeals tab rows (their text); empty when none was filed."""
    rows = work.env.page_locator("main table.data tbody tr").all_inner_texts()
    return [row.strip() for row in rows if "No appeals filed" not in row]


# ---- prior-authorization requests (the wizard, status inquiry, pended cases) -------------
REQUESTED_DAYS = 60  # the span asked for: the planned date and the weeks after it


def _checked_step(work: Work, button: str, next_heading: str) -> None:
    """Click a wizard step's button; fail with the form's errors when the next step did not open."""
    actor = work.actor
    actor.click(button)
    if not actor.count(f"main h2:has-text('{next_heading}')"):
        errors = work.env.page_locator("main .field-error, main .errors li, main .alert").all_inner_texts()
        raise ScriptFailed(f"portal A stayed before {next_heading!r}: {' | '.join(errors)[:500]}")


def service_type_for(code: str) -> str:
    """The wizard's service type of a CPT/HCPCS code (radiology codes 70010-79999 are imaging)."""
    return "Diagnostic imaging" if code.isdigit() and 70010 <= int(code) <= 79999 else "Other outpatient service"


def fill_questionnaire(work: Work, answers: dict[str, str]) -> None:
    """Answer the questions the open questionnaire asks (selects by label, the rest typed);
    a required question without an answer leaves the form refused, which fails loudly."""
    actor = work.actor
    names = work.env.page_locator("main form select[name], main form input[name]:not([type=hidden]), "
                                  "main form textarea[name]").evaluate_all("els => els.map(e => e.name)")
    for name in names:
        if name not in answers:
            continue
        if actor.read(f"[name={name}]").evaluate("e => e.tagName") == "SELECT":
            labels = actor.read(f"select[name={name}]").evaluate("s => Array.from(s.options).map(o => o.text.trim())")
            answer = answers[name]
            if answer not in labels and "Yes" in labels:  # a kind asked as yes/no ("None" found -> No)
                answer = "No" if answer in ("None", "No") else "Yes"
            actor.select_option(f"select[name={name}]", answer)
        else:
            actor.fill(f"[name={name}]", answers[name])
    _checked_step(work, "button:text-is('Next: Attachments')", "Step 5")


def attach_to_request(work: Work, file_name: str, document_type: str, button: str = "Upload") -> None:
    """On an attachments form (wizard step or pended case): type, file from Downloads, upload."""
    actor = work.actor
    actor.select_option("select[name=document_type]", document_type)
    actor.upload("input[name=file]", file_name)
    actor.click(f"button:text-is('{button}')")
    if not actor.count(f"main :text('{file_name}')"):
        raise ScriptFailed(f"{file_name} was not attached: {actor.text('main')[:400]}")


def submit_prior_auth(work: Work, *, payer_id: str, member_id: str, answers: dict[str, str],
                      attachments: list[tuple[str, str]], performed_on: date | None = None,
                      emergent: bool = False, expedited: tuple[str, str] | None = None,
                      network_exception: tuple[str, str, str] | None = None) -> dict[str, str]:
    """Run portal A's PA wizard from the order read into work.notes (codes, units, NPIs,
    place of service, planned date) for one member, with (file name, document type)
    attachments; returns the case page's determination (see `case_decision`).

    `performed_on` makes it a retro request for a service already done: one line for that
    day, with the emergent attestation on the review step when `emergent` (the chart says so).
    `expedited` (attesting physician, clinical reason) files it for expedited review; else standard.
    `network_exception` (the practice's organization as its select label begins, the exception's reason,
    the in-network providers checked) files it for the order's out-of-network facility: the practice
    submits, the ordered facility is the servicing provider."""
    open_portal_a(work)
    actor, notes = work.actor, work.notes
    actor.click("nav.top-tabs a:has-text('Authorizations')")
    actor.click("nav.sub-tabs a:text-is('New Request')")
    if network_exception:
        actor.select_containing("select[name=organization_npi]", network_exception[0])
    else:
        actor.select_by_value("select[name=organization_npi]", notes["facility_npi"])
    organization = actor.read("select[name=organization_npi]").evaluate(
        "s => s.options[s.selectedIndex].text").split(" (NPI")[0]
    actor.select_containing("select[name=tin]", f" - {organization}")
    actor.select_option("select[name=payer_id]", payer_name(payer_id))
    actor.select_option("select[name=request_type]", "Outpatient")
    actor.select_option("select[name=service_type]", service_type_for(notes["code"]))
    actor.select_by_value("select[name=place_of_service]", notes["place_of_service"])
    actor.fill("input[name=member_id]", member_id)
    actor.fill("input[name=dob]", us_date(work.patient["dob"]))
    _checked_step(work, "button:text-is('Next: Providers')", "Step 2")
    actor.select_by_value("select[name=requesting_npi]", notes["provider_npi"])
    actor.select_by_value("select[name=servicing_npi]", notes["facility_npi"])
    _checked_step(work, "button:text-is('Next: Services')", "Step 3")
    start = performed_on or parse_us_date(notes["planned"])
    end = performed_on or start + timedelta(days=REQUESTED_DAYS - 1)
    actor.fill("input[name=code]", notes["code"])
    actor.fill("input[name=units]", notes["units"])
    actor.fill("input[name=diagnosis_codes]", notes["diagnoses"])
    actor.fill("input[name=from_date]", us_date(start))
    actor.fill("input[name=to_date]", us_date(end))
    # The line's place of service starts as the header's, which is the order's.
    actor.click("button:text-is('Add line')")
    _checked_step(work, "button:text-is('Next: Clinical questions')", "Step 4")
    fill_questionnaire(work, answers)
    for file_name, document_type in attachments:
        attach_to_request(work, file_name, document_type)
    _checked_step(work, "button:text-is('Next: Review')", "Step 6")
    if emergent:
        actor.set_checkbox("input[name=emergent]")
    if expedited:
        actor.select_by_value("select[name=urgency]", "Expedited")
        actor.fill("input[name=attesting_physician]", expedited[0])
        actor.fill("textarea[name=expedited_reason]", expedited[1])
    if network_exception:
        actor.select_by_value("select[name=network_exception]", network_exception[1])
        actor.fill("textarea[name=in_network_checked]", network_exception[2])
    actor.set_checkbox("input[name=attest]")
    actor.click("button:text-is('Submit request')")
    if not actor.count("#determination-heading"):
        raise ScriptFailed(f"portal A did not take the request: {actor.text('main')[:600]}")
    return case_decision(work)


def require_approval(work: Work, decision: dict[str, str]) -> None:
    """Stop unless the payer approved: these references expect an approval at once."""
    if decision["status"] != "Approved":
        raise ScriptFailed(f"{payer_name(work.notes['payer_id'])} did not approve: {decision}")


def record_decision(work: Work, decision: dict[str, str]) -> None:
    """The payer's approval on the order's authorization in the EHR."""
    if not decision:
        raise ScriptFailed("no decision to record")
    ehr_steps.record_approval(work, payer_name(work.notes["payer_id"]), decision)


def case_decision(work: Work) -> dict[str, str]:
    """The open case page's determination: case_number, status, reason, missing (information
    needed) and, once approved, auth_number, units, start and end (MM/DD/YYYY)."""
    actor = work.actor
    scope = "section[aria-labelledby='determination-heading']"  # its labels are the page's only ones
    decision = {"case_number": actor.text("main h1").split()[1], "status": actor.fact("Status"),
                "reason": actor.fact("Reason")}
    if actor.count(f"{scope} dt:text-is('Information needed')"):
        decision["missing"] = actor.fact("Information needed")
    if actor.count(f"{scope} dt:text-is('Authorization number')"):
        start, end = actor.fact("Approved dates").split("\u2013")
        decision.update(auth_number=actor.fact("Authorization number"), units=actor.fact("Approved units"),
                        start=start.strip(), end=end.strip())
    return decision


def open_case(work: Work, case_number: str, tab: str = "") -> dict[str, str]:
    """The header's "Find a case" box (a status inquiry by case number, which opens the case),
    then one of the case's tabs if asked (label prefix: "Documents", "History", "Letters");
    returns the determination."""
    open_portal_a(work)
    actor = work.actor
    actor.fill("#quick-case", case_number)
    actor.click("form:has(#quick-case) button:text-is('Find case')")
    if not actor.count("#determination-heading") or actor.text("main h1").split()[1] != case_number:
        raise ScriptFailed(f"portal A found no case {case_number}: {actor.text('main')[:300]}")
    decision = case_decision(work)
    if tab:
        actor.click(f"ul.tabs-local a:has-text('{tab}')")
    return decision


# Chart document kinds (case `type`) -> portal A's attachment document types.
DOCUMENT_TYPES = {"progress_note": "Clinical notes", "addendum": "Clinical notes", "pt_note": "Physical therapy notes",
                  "imaging_report": "Imaging report", "sleep_study": "Sleep study report",
                  "face_to_face": "Face-to-face evaluation", "written_order": "Standard written order",
                  "lab_result": "Lab results", "medication_history": "Medication history"}


def _chart_date(value: object) -> str:
    """A fact's date as the wizard takes it (MM/DD/YYYY), from ISO or chart text."""
    text = str(value)
    return us_date(text) if len(text) == 10 and text[4] == "-" else text


def questionnaire_answers(facts: dict, documents: list[dict]) -> dict[str, str]:
    """Portal A's clinical answers from the chart's facts (later documents, such as an
    addendum, override earlier ones): numbers and dates as the chart states them, a finding
    the chart does not record answered "No"/"None" (not documented)."""
    answers: dict[str, str] = {}
    for fact, question in (("conservative_therapy_weeks", "conservative_therapy_weeks"),
                           ("symptom_duration_months", "symptom_duration_months"), ("ahi", "ahi"),
                           ("epworth_score", "epworth_score"), ("stop_bang_score", "stop_bang_score"),
                           ("spo2_rest", "spo2_room_air"),
                           ("spo2_exertion", "spo2_exertion"), ("hba1c", "hba1c"),
                           ("insulin_injections_per_day", "insulin_injections_per_day"),
                           ("prior_therapy_weeks", "prior_therapy_weeks")):
        if facts.get(fact) is not None:
            answers[question] = str(facts[fact]).rstrip("%")
    for fact, question in (("prior_imaging_date", "prior_imaging_date"), ("study_date", "sleep_study_date"),
                           ("face_to_face_date", "face_to_face_date")):
        if facts.get(fact):
            answers[question] = _chart_date(facts[fact])
    red_flags = str(facts.get("red_flags") or "none")
    answers["red_flag_symptoms"] = "None" if red_flags.lower() in ("none", "no") else red_flags
    imaged = bool(facts.get("prior_imaging_date")) or any(d["type"] == "imaging_report" for d in documents)
    answers["prior_imaging"] = "X-ray" if imaged else "None"  # lumbar MRI asks which; knee MRI asks yes/no
    answers["mechanical_symptoms"] = "Yes" if facts.get("mcmurray_test") == "positive" else "No"
    deficit = str(facts.get("focal_neurologic_deficit") or "none")
    answers["focal_neurologic_deficit"] = "No" if deficit.lower() in ("none", "no", "absent") else "Yes"
    answers["known_condition"] = "No"
    for fact in ("qualifying_symptoms", "can_use_cane_safely"):
        if facts.get(fact):
            answers[fact] = "Yes" if str(facts[fact]).lower().startswith("yes") else "No"
    if facts.get("tb_screen"):
        answers["tb_screen"] = str(facts["tb_screen"]).capitalize()
    return answers


def file_appeal(work: Work, claim_number: str, *, appeal_type: str, reason: str, letter: str,
                contact_name: str, contact_phone: str, cited_auth: str = "", proof_of_filing: str = "",
                attachment: tuple[str, str] | None = None, level: str = "1") -> dict[str, str]:
    """From the claim's page, "File an appeal or reconsideration" at `level` (1, 2 or External): type, reason,
    contact, the auth cited or the proof-of-filing date (MM/DD/YYYY), the typed letter and an
    optional (file name, document type) attachment. Returns the appeal's reference number,
    status, decision (or "") and submission date (MM/DD/YYYY) as shown."""
    actor = work.actor
    if actor.text("main h1").split()[:2] != ["Claim", claim_number]:
        open_claim(work, claim_number)
    actor.click("a:has-text('File an appeal or reconsideration')")
    if actor.count("main .alert-error"):
        raise ScriptFailed(f"portal A refuses an appeal: {actor.text('main .alert-error')}")
    actor.select_option("select[name=appeal_type]", appeal_type)
    if actor.read("select[name=level]").input_value() != level:  # the form proposes the next level
        actor.select_by_value("select[name=level]", level)
    actor.select_option("select[name=reason]", reason)
    actor.fill("input[name=contact_name]", contact_name)
    actor.fill("input[name=contact_phone]", contact_phone)
    if cited_auth:
        actor.fill("input[name=cited_auth_number]", cited_auth)
    if proof_of_filing:
        actor.fill("input[name=proof_of_filing_date]", proof_of_filing)
    actor.fill("textarea[name=letter_text]", letter)
    if attachment:
        file_name, document_type = attachment
        actor.select_option("select[name=attachment_type]", document_type)
        actor.upload("input[name=attachment_file]", file_name)
    actor.click("main form button:text-is('Submit appeal')")
    if actor.count("main form textarea[name=letter_text]") or not actor.count("main h1:has-text('Appeal ')"):
        raise ScriptFailed(f"the appeal was refused: {actor.text('main')[:600]}")
    shown = {"reference": actor.text("main h1").split()[1], "status": actor.fact("Status"),
             "decision": actor.fact("Decision") if actor.count("xpath=//dt[normalize-space()='Decision']") else "",
             "submitted": actor.fact("Submitted").split()[0], "decision_due": actor.fact("Decision due")}
    return shown
