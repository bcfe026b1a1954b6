"""Every defensible way of doing a task's work is credited, and only those: checks of the
committed task files run over hand-made snapshots holding one route each (the state a
coordinator would leave), next to the near misses that must still fail."""
from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import pytest

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import Task, load_task_file
from admindesk.verifiers.checks import run_check
from admindesk.verifiers.episode import EpisodeView
from admindesk.verifiers.records import EpisodeRecord

TASKS = Path(__file__).resolve().parents[2] / "tasks"


@cache
def _task(task_id: str) -> Task:
    workflow = {"pa": "prior_auth", "appeal": "appeals", "dme": "dme"}[task_id.split("-")[0]]
    return load_task_file(TASKS / workflow / f"{task_id}.yaml")


def ids(task_id: str) -> dict:
    """The task's record ids (as the world numbers them)."""
    return case_values(_task(task_id))["ids"]


def check_passes(task_id: str, description: str, final: dict) -> bool:
    """Whether the task's check (or guard) with this description passes on the final snapshots
    (the initial ones: the same apps with empty tables)."""
    task = _task(task_id)
    checks = [check for subtask in task.subtasks for check in subtask.checks] + list(task.guards)
    matching = [check for check in checks if check.description == description]
    assert len(matching) == 1, f"{task_id} has {len(matching)} checks described {description!r}"
    initial = {app: {table: [] for table in tables} for app, tables in final.items()}
    record = EpisodeRecord(task_id=task_id, initial_snapshots=copy.deepcopy(initial),
                           final_snapshots=copy.deepcopy(final))
    result = run_check(matching[0], EpisodeView(record=record, case=case_values(task)))
    return result.passed


# ---- dates in free text, however a letter writes them ---------------------------------------

FIRST_FILED = "the explanation gives the claim's first filing date"


def appeal_letter(task_id: str, text: str) -> dict:
    claim = ids(task_id)["claims"]["denied"]
    return {"payer_portal_b": {"appeals": [{"appeal_id": "APL-1", "claim_number": claim, "explanation": text}]}}


@pytest.mark.parametrize("written", [
    "April 20, 2026", "Apr 20 2026", "Apr. 20, 2026", "April 20th, 2026", "20 April 2026",
    "20th of April 2026", "20-Apr-2026", "4/20/2026", "04/20/2026", "4/20/26", "2026-04-20", "2026/04/20",
])
def test_the_first_filing_date_is_found_in_any_common_form(written):
    letter = f"The claim was first accepted by the clearinghouse on {written}, within the limit."
    assert check_passes("appeal-hard-12", FIRST_FILED, appeal_letter("appeal-hard-12", letter))


@pytest.mark.parametrize("written", ["April 16, 2026", "4/16/2026", "20 April 2025", "April 2026"])
def test_another_date_is_not_the_first_filing_date(written):
    letter = f"The claim was first sent to the clearinghouse on {written}."
    assert not check_passes("appeal-hard-12", FIRST_FILED, appeal_letter("appeal-hard-12", letter))


# ---- a note where a coordinator would put it ---------------------------------------------

WRONG_CODE_NAMED = "the note names the ordered code that is wrong"
STOP_EXPLAINED = "the note explains why nothing was filed (a note exists)"
EXPLANATION = ("Not submitted: order is for CPT 29881 right knee arthroscopy but the visit note asks for the "
               "LEFT knee. Routed back to Orthopedics to correct the order.")


def ehr_note(task_id: str, subject_type: str, subject_id: str, text: str = EXPLANATION, mrn: str = "") -> dict:
    return {"id": 1, "mrn": mrn or ids(task_id)["mrn"], "subject_type": subject_type, "subject_id": subject_id,
            "author": "coordinator", "text": text}


@pytest.mark.parametrize("subject_type", ["order", "work_item", "patient"])
def test_the_explanation_counts_as_an_order_comment_work_item_note_or_patient_note(subject_type):
    subject_id = {"order": ids("pa-medium-12")["orders"]["svc"], "work_item": "1",
                  "patient": ids("pa-medium-12")["mrn"]}[subject_type]
    final = {"ehr_web": {"notes": [ehr_note("pa-medium-12", subject_type, subject_id)]}}
    assert check_passes("pa-medium-12", WRONG_CODE_NAMED, final)
    assert check_passes("pa-medium-12", STOP_EXPLAINED, final)


def test_a_note_elsewhere_does_not_count():
    other_order = ehr_note("pa-medium-12", "order", "ORD-0000001")
    other_patient = ehr_note("pa-medium-12", "patient", "E0000001", mrn="E0000001")
    for note in (other_order, other_patient):
        final = {"ehr_web": {"notes": [note]}}
        assert not check_passes("pa-medium-12", WRONG_CODE_NAMED, final)
        assert not check_passes("pa-medium-12", STOP_EXPLAINED, final)


def test_a_note_without_the_ordered_code_does_not_name_it():
    note = ehr_note("pa-medium-12", "work_item", "1", text="Not submitted: wrong side. Routed back.")
    assert not check_passes("pa-medium-12", WRONG_CODE_NAMED, {"ehr_web": {"notes": [note]}})



@pytest.mark.parametrize("task_id, description, subject_type", [
    ("dme-easy-03", "the note records the referral (a note exists)", "patient"),
    ("appeal-hard-12", "the note records the appeal (a claim, work-item or patient note exists)", "patient"),
    ("appeal-hard-12", "the note records the appeal (a claim, work-item or patient note exists)", "claim"),
])
def test_a_patient_note_counts_in_every_workflow(task_id, description, subject_type):
    final = {"ehr_web": {"notes": [ehr_note(task_id, subject_type, ids(task_id)["mrn"], text="Appeal filed.")]}}
    assert check_passes(task_id, description, final)


# ---- telling the physician by a note or by a staff message ----------------------------------

PHYSICIAN_TOLD = "the physician is told when the call is (a note or a staff message exists)"
EHR_COLLATERAL = "EHR writes stay on this patient's authorization, queue item, notes, messages and coverage"


def staff_message(task_id: str, mrn: str = "") -> dict:
    return {"id": 1, "sender": "coordinator", "to_npi": "1234567893", "message_type": "Peer-to-peer requested",
            "priority": "High", "subject": "Peer-to-peer booked", "mrn": mrn or ids(task_id)["mrn"],
            "order_id": ids(task_id)["orders"]["svc"], "body": "Peer-to-peer P2P-1 on 11/20 at 10:30."}


def test_a_staff_message_to_the_physician_tells_them_as_a_note_does():
    message = {"ehr_web": {"staff_messages": [staff_message("pa-medium-15")], "notes": []}}
    note = {"ehr_web": {"staff_messages": [], "notes": [ehr_note("pa-medium-15", "patient", ids("pa-medium-15")["mrn"])]}}
    assert check_passes("pa-medium-15", PHYSICIAN_TOLD, message)
    assert check_passes("pa-medium-15", PHYSICIAN_TOLD, note)
    empty = {"ehr_web": {"staff_messages": [], "notes": []}}
    assert failing_guards("pa-medium-15", message, empty) == []


def test_a_staff_message_about_another_patient_neither_tells_nor_stays_on_this_patient():
    message = {"ehr_web": {"staff_messages": [staff_message("pa-medium-15", mrn="E0000001")], "notes": []}}
    assert not check_passes("pa-medium-15", PHYSICIAN_TOLD, message)
    assert EHR_COLLATERAL in failing_guards("pa-medium-15", message, {"ehr_web": {"staff_messages": [], "notes": []}})


# ---- answering a pend the way the payer's letter asks ---------------------------------------

def failing_guards(task_id: str, final: dict, initial: dict) -> list[str]:
    """The descriptions of the task's guards over the given apps that fail on the snapshots."""
    task = _task(task_id)
    record = EpisodeRecord(task_id=task_id, initial_snapshots=copy.deepcopy(initial),
                           final_snapshots=copy.deepcopy(final))
    view = EpisodeView(record=record, case=case_values(task))
    return [guard.description for guard in task.guards
            if getattr(guard, "app", None) in final and not run_check(guard, view).passed]


PEND_LETTER_NUMBER, OTHER_NUMBER = "8885550124", "8005550199"
NOTE_SHA, OTHER_SHA = "1" * 64, "2" * 64


def pend_answered_by_fax(to_number: str = PEND_LETTER_NUMBER, sha256: str = NOTE_SHA) -> tuple[dict, dict]:
    """Initial and final snapshots around one fax to `to_number` carrying the file `sha256`."""
    rfi = ids("pa-hard-20")["faxes"]["rfi"]
    ehr = {"documents": [{"id": ids("pa-hard-20")["documents"]["visit"], "mrn": ids("pa-hard-20")["mrn"],
                          "sha256": NOTE_SHA}]}
    initial_fax = {"inbound_faxes": [{"id": rfi, "from_number": PEND_LETTER_NUMBER}],
                   "outbound_faxes": [], "fax_attachments": []}
    final_fax = copy.deepcopy(initial_fax)
    final_fax["outbound_faxes"] = [{"id": 1, "to_number": to_number, "status": "Sent"}]
    final_fax["fax_attachments"] = [{"id": 1, "outbound_fax_id": 1, "sha256": sha256}]
    return {"ehr_web": ehr, "fax": initial_fax}, {"ehr_web": ehr, "fax": final_fax}


def test_the_requested_note_faxed_to_the_number_the_pend_letter_gives_is_no_harm():
    initial, final = pend_answered_by_fax()
    assert failing_guards("pa-hard-20", final, initial) == []


@pytest.mark.parametrize("to_number, sha256", [(OTHER_NUMBER, NOTE_SHA), (PEND_LETTER_NUMBER, OTHER_SHA)])
def test_a_fax_elsewhere_or_with_another_document_still_fails(to_number, sha256):
    initial, final = pend_answered_by_fax(to_number, sha256)
    assert failing_guards("pa-hard-20", final, initial)


# ---- a corrected document sent with or without the one it corrects ----------------------------

ORIGINAL_SHA, ADDENDUM_SHA = "3" * 64, "4" * 64
# task -> (the check that the right document went out, the corrected document's key, its addendum's key)
CORRECTED = {
    "pa-medium-14": ("the chart document was attached to the request", "visit", "addendum"),
    "appeal-medium-07": ("the proof was attached to the appeal", "lmn", "addendum"),
}
SENT_TABLES = {"pa-medium-14": ("payer_portal_a", "pa_attachments", {"stage": "Initial"}),
               "appeal-medium-07": ("payer_portal_a", "appeal_attachments", {})}


def documents_sent(task_id: str, shas: list[str]) -> dict:
    _, original, addendum = CORRECTED[task_id]
    documents = ids(task_id)["documents"]
    ehr = {"documents": [{"id": documents[original], "sha256": ORIGINAL_SHA},
                         {"id": documents[addendum], "sha256": ADDENDUM_SHA}]}
    app, table, fields = SENT_TABLES[task_id]
    return {"ehr_web": ehr, app: {table: [{"id": n, **fields, "sha256": sha} for n, sha in enumerate(shas, 1)]}}


@pytest.mark.parametrize("task_id", sorted(CORRECTED))
@pytest.mark.parametrize("shas", [[ADDENDUM_SHA], [ORIGINAL_SHA, ADDENDUM_SHA]], ids=["addendum", "both"])
def test_the_addendum_alone_or_with_the_note_it_corrects_is_sent(task_id, shas):
    assert check_passes(task_id, CORRECTED[task_id][0], documents_sent(task_id, shas))


@pytest.mark.parametrize("task_id", sorted(CORRECTED))
def test_the_uncorrected_document_alone_is_not_enough(task_id):
    assert not check_passes(task_id, CORRECTED[task_id][0], documents_sent(task_id, [ORIGINAL_SHA]))


# ---- any appeal kind the payer's own rules accept for the denial --------------------------------

def appeal_filed(task_id: str, app: str, **fields) -> dict:
    claim = ids(task_id)["claims"]["denied"]
    return {app: {"appeals": [{"claim_number": claim, "level": "1", **fields}]}}


@pytest.mark.parametrize("task_id, app, field, kind", [
    ("appeal-hard-12", "payer_portal_b", "kind", "Reconsideration"),
    ("appeal-hard-12", "payer_portal_b", "kind", "Formal appeal"),
])
def test_a_level_one_reconsideration_or_formal_appeal_is_accepted_for_a_clerical_denial(task_id, app, field, kind):
    assert check_passes(task_id, "the appeal is a reconsideration or a formal appeal",
                        appeal_filed(task_id, app, **{field: kind}))


@pytest.mark.parametrize("kind, credited", [("Reconsideration", True), ("Formal Appeal", True),
                                            ("Clinical Appeal", False)])
def test_portal_a_takes_a_reconsideration_or_formal_appeal_of_an_enrollment_denial(kind, credited):
    final = appeal_filed("appeal-medium-15", "payer_portal_a", appeal_type=kind)
    assert check_passes("appeal-medium-15", "it is a level-1 reconsideration or formal appeal", final) is credited


@pytest.mark.parametrize("task_id, app, field, kind", [
    ("appeal-hard-12", "payer_portal_b", "kind", "Clinical appeal"),
])
def test_a_clinical_appeal_is_not_the_kind_for_a_clerical_denial(task_id, app, field, kind):
    assert not check_passes(task_id, "the appeal is a reconsideration or a formal appeal",
                            appeal_filed(task_id, app, **{field: kind}))


# ---- a pended request's result: the EHR must say what the payer decided --------------------

PAYER_DECISION = "the order records the decision and auth number the payer gave (none when denied)"


def pend_result(task_id: str, ehr_status: str, ehr_auth: str | None, payer_status: str,
                payer_auth: str | None) -> dict:
    task_ids = ids(task_id)
    member = task_ids["coverages"]["primary"]["payer_member_id"]
    return {"ehr_web": {"order_authorizations": [{"order_id": task_ids["orders"]["svc"], "status": ehr_status,
                                                  "auth_number": ehr_auth}]},
            "payer_portal_a": {"pa_requests": [{"member_id": member, "status": payer_status,
                                                "auth_number": payer_auth}]}}


@pytest.mark.parametrize("task_id", ["pa-medium-03", "pa-hard-20"])
@pytest.mark.parametrize("ehr,payer", [
    (("Approved", "A123"), ("Approved", "A123")),
    (("Approved", "A123"), ("Partially Approved", "A123")),  # the EHR records a partial approval as Approved
    (("Denied", None), ("Denied", None)),
])
def test_the_ehr_recording_the_payers_own_decision_passes(task_id, ehr, payer):
    assert check_passes(task_id, PAYER_DECISION, pend_result(task_id, *ehr, *payer))


@pytest.mark.parametrize("ehr,payer", [
    (("Approved", "A123"), ("Denied", None)),
    (("Denied", None), ("Approved", "A123")),
    (("Approved", "A124"), ("Approved", "A123")),
    (("Approved", None), ("Approved", "A123")),
    (("Denied", None), ("Pended", None)),
])
def test_a_decision_or_number_the_payer_did_not_give_fails(ehr, payer):
    assert not check_passes("pa-medium-03", PAYER_DECISION, pend_result("pa-medium-03", *ehr, *payer))


# ---- the denial read wherever the EHR shows it --------------------------------------------

APPEALS = sorted(path.stem for path in (TASKS / "appeals").glob("appeal-*.yaml"))


def denial_reads(task_id: str) -> list:
    """The task's checks that the denied claim or its remittance was read in the EHR."""
    claim_ids = ids(task_id)
    denied = {claim_ids["claims"]["denied"], claim_ids.get("remittances", {}).get("denied")}
    task = _task(task_id)
    view = EpisodeView(record=EpisodeRecord(task_id=task_id), case=case_values(task))
    return [check for check in task.checks() if check.kind == "audit" and check.app == "ehr_web"
            and check.match.get("record_type") in ("claim", "remittance")
            and view.resolve(check.match.get("record_id")) in denied]


def page_views(task_id: str, page: str) -> dict:
    """The access-log rows one opening of the page writes (the page's record, then the claim it shows)."""
    claim = ids(task_id)["claims"]["denied"]
    own = {"work_item": ("work_item", "1"), "claim": ("claim", claim), "remittance": ("remittance", "ERA-1")}[page]
    rows = [{"id": 1, "action": "view", "record_type": own[0], "record_id": own[1], "path": f"/{page}"}]
    if page != "claim":
        rows.append({"id": 2, "action": "view", "record_type": "claim", "record_id": claim, "path": f"/{page}",
                     "detail": {"shown_on": page}})
    return {"ehr_web": {"audit_events": rows}}


@pytest.mark.parametrize("page", ["work_item", "claim", "remittance"])
@pytest.mark.parametrize("task_id", APPEALS)
def test_the_denial_counts_as_read_on_any_page_that_shows_it(task_id, page):
    for check in denial_reads(task_id):
        assert check_passes(task_id, check.description, page_views(task_id, page)), (task_id, check.id)


@pytest.mark.parametrize("task_id", APPEALS)
def test_reading_on_the_way_is_only_the_denial_read_that_the_page_tests_prove(task_id):
    proven = {check.id for check in denial_reads(task_id)}
    for subtask in _task(task_id).subtasks:
        if subtask.read_on_the_way:
            assert {check.id for check in subtask.checks} <= proven, (task_id, subtask.id)


def test_the_denial_is_not_read_without_opening_it():
    reads = denial_reads("appeal-medium-10")
    assert reads and not any(check_passes("appeal-medium-10", check.description, {"ehr_web": {"audit_events": []}})
                             for check in reads)


PORTALS = ("payer_portal_a", "payer_portal_b")


def payer_claim_views(task_id: str) -> list:
    """The task's checks that the denied claim was looked up in a payer's portal."""
    task = _task(task_id)
    view = EpisodeView(record=EpisodeRecord(task_id=task_id), case=case_values(task))
    return [check for check in task.checks() if check.kind == "audit" and check.app in PORTALS
            and check.match.get("record_type") == "claim"
            and view.resolve(check.match.get("record_id")) == ids(task_id)["claims"]["denied"]]


@pytest.mark.parametrize("task_id", APPEALS)
def test_the_claim_looked_up_at_the_payer_on_any_tab_counts(task_id):
    claim = ids(task_id)["claims"]["denied"]
    for check in payer_claim_views(task_id):
        if "tab" in check.match:
            # Only a confirmation that the appeal window closed asks for the tab where the payer states it.
            assert "deadline" in check.description, (task_id, check.id)
            continue
        for tab in ("summary", "timeline", "corrected_claim"):
            view = {"id": 1, "action": "view", "record_type": "claim", "record_id": claim, "tab": tab, "path": "/c"}
            assert check_passes(task_id, check.description, {check.app: {"audit_events": [view]}}), (task_id, tab)
