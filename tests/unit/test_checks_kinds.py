"""Each check kind passes on the work done right and fails on near misses, saying why."""
import pytest
from pydantic import TypeAdapter, ValidationError

from admindesk.schema.check_kinds import CHECK_KINDS, Check
from admindesk.schema.guards import GUARD_KINDS
from admindesk.verifiers.checks import EVALUATORS, run_check
from admindesk.verifiers.episode import EpisodeView, QueryError
from tests.unit.fixtures.episodes import (
    AUTH_NUMBER,
    CASE,
    DISCONNECTED_FAX,
    INBOUND_SHA,
    LOOKALIKE_MEMBER_ID,
    LOOKALIKE_NOTE_SHA,
    MEMBER,
    PA_FAX,
    TITLE,
    good_record,
    untouched_record,
)

CHECK = TypeAdapter(Check)


def run(spec: dict, record=None):
    return run_check(CHECK.validate_python(spec), EpisodeView(record=record or good_record(), case=CASE))


def broken(mutate) -> object:
    record = good_record()
    mutate(record.final_snapshots)
    return record


APPROVED_START = {"kind": "query", "app": "payer_portal_a", "op": "date_equals",
                  "query": "pa_requests[?member_id=={{m}}].approved_start | [0]", "params": {"m": MEMBER},
                  "expected": "11/17/2026"}


def test_every_kind_is_registered_in_the_union():
    assert set(CHECK_KINDS) == {"query", "cross_app", "file", "audit", "state_diff", "answer", "rubric"}
    with pytest.raises(ValidationError, match="does not match any of the expected tags"):
        CHECK.validate_python({"kind": "sql", "query": "select 1"})


def test_every_declared_kind_and_guard_has_an_evaluator():
    declared = set(CHECK_KINDS.values()) | set(GUARD_KINDS.values())
    assert set(EVALUATORS) == declared



def test_date_equals_passes_across_formats_and_fails_off_by_one_day():
    assert run(APPROVED_START).passed
    late = broken(lambda s: s["payer_portal_a"]["pa_requests"][0].update(approved_start="2026-11-18"))
    result = run(APPROVED_START, late)
    assert not result.passed
    assert "expected the date 2026-11-17" in result.explanation and "2026-11-18" in result.explanation


@pytest.mark.parametrize("start, ok", [("2026-11-18", True), ("11/18/2026", True), ("2026-11-17", False),
                                       ("2026-11-16", False), (None, False)])
def test_date_after_needs_a_later_date_in_any_format(start, ok):
    spec = {**APPROVED_START, "op": "date_after", "expected": "11/17/2026"}
    record = broken(lambda s: s["payer_portal_a"]["pa_requests"][0].update(approved_start=start))
    result = run(spec, record)
    assert result.passed is ok
    assert "a date after 2026-11-17" in result.explanation


def test_equals_fails_on_the_right_number_for_the_wrong_patient():
    spec = {"kind": "query", "app": "payer_portal_a", "query": "pa_requests[?member_id=={{m}}].auth_number | [0]",
            "params": {"m": MEMBER}, "op": "equals", "expected": AUTH_NUMBER}
    assert run(spec).passed
    wrong_patient = broken(lambda s: s["payer_portal_a"]["pa_requests"][0].update(member_id=LOOKALIKE_MEMBER_ID))
    result = run(spec, wrong_patient)
    assert not result.passed and result.evidence["actual"] is None
    assert f'expected "{AUTH_NUMBER}", found nothing' in result.explanation


@pytest.mark.parametrize("op, expected, bounds, ok", [
    ("contains", "auth", {}, True), ("contains", "aut", {}, False),
    ("regex", r"NWH\d{7}", {}, True), ("regex", r"^PA\d+", {}, False),
    ("one_of", ["Approved"], {}, True), ("one_of", ["Denied", "Pended"], {}, False),
])
def test_text_ops(op, expected, bounds, ok):
    query = "notes[0].text" if op == "contains" else (
        "pa_requests[0].auth_number" if op == "regex" else "pa_requests[0].status")
    app = "ehr_web" if op == "contains" else "payer_portal_a"
    assert run({"kind": "query", "app": app, "query": query, "op": op, "expected": expected, **bounds}).passed is ok


def test_count_and_range():
    count = {"kind": "query", "app": "payer_portal_a", "query": "pa_requests", "op": "count", "expected": 1}
    assert run(count).passed
    assert not run(count, untouched_record()).passed
    assert "expected exactly 1, found 0 item(s)" in run(count, untouched_record()).explanation
    near = {"kind": "query", "app": "payer_portal_a", "query": "pa_requests[0].id", "op": "range", "min": 2, "max": 5}
    assert "expected at least 2 and at most 5, found 1" in run(near).explanation


@pytest.mark.parametrize("spec, message", [
    ({"op": "range"}, "needs `min`"), ({"op": "count"}, "either `expected`"),
    ({"op": "one_of", "expected": "Approved"}, "list of values"), ({"op": "regex", "expected": "("}, "missing"),
    ({"op": "equals"}, "needs `expected`"),
])
def test_query_ops_need_their_fields(spec, message):
    with pytest.raises(ValidationError, match=message):
        CHECK.validate_python({"kind": "query", "app": "fax", "query": "outbound_faxes", **spec})


def test_fax_to_a_disconnected_line_fails_a_sent_to_active_line_check():
    spec = {"kind": "query", "app": "fax", "op": "count", "min": 1,
            "query": "outbound_faxes[?status=='Sent' && to_number==`\"8005550101\"`]"}
    assert run(spec).passed
    moved = broken(lambda s: s["fax"]["outbound_faxes"][0].update(to_number=DISCONNECTED_FAX))
    assert not run(spec, moved).passed


def test_cross_app_equality():
    spec = {"kind": "cross_app", "left": {"app": "ehr_web", "query": "order_authorizations[0].auth_number"},
            "right": {"app": "payer_portal_a", "query": "pa_requests[0].auth_number"}}
    assert run(spec).passed
    typo = broken(lambda s: s["ehr_web"]["order_authorizations"][0].update(auth_number="NWH2601243"))
    result = run(spec, typo)
    assert not result.passed and '"NWH2601243" in ehr_web vs "NWH2601234" in payer_portal_a' in result.explanation
    assert not run(spec, untouched_record()).passed


def test_file_check_catches_the_wrong_document_attached():
    spec = {"kind": "file", "sent": {"app": "fax", "query": "fax_attachments[].sha256"},
            "source": {"app": "ehr_web", "query": "documents[?title=={{t}}].sha256", "params": {"t": TITLE}}}
    assert run(spec).passed
    wrong = broken(lambda s: s["fax"]["fax_attachments"][0].update(sha256=LOOKALIKE_NOTE_SHA))
    result = run(spec, wrong)
    assert not result.passed and "a different document" in result.explanation
    assert result.evidence["sent_sha256"] == [LOOKALIKE_NOTE_SHA]
    assert "found no file sent" in run(spec, untouched_record()).explanation


def test_file_check_against_an_inbound_fax_reads_snapshot_blob_hashes():
    spec = {"kind": "file", "sent": {"app": "payer_portal_a", "query": "pa_attachments[].content"},
            "source": {"app": "fax", "query": "inbound_faxes[0].sha256"}}
    forwarded = broken(lambda s: s["payer_portal_a"]["pa_attachments"][0].update(content="sha256:" + INBOUND_SHA))
    assert run(spec, forwarded).passed
    assert not run(spec).passed


def test_audit_check_counts_only_views_made_in_the_episode():
    spec = {"kind": "audit", "app": "ehr_web", "match": {"record_type": "order", "tab": "documents"}}
    assert run(spec).passed
    # The world's history holds an old view of another order's documents: not this episode's.
    result = run(spec, untouched_record())
    assert not result.passed and "found 0 among 0 new event(s)" in result.explanation
    other_tab = broken(lambda s: s["ehr_web"]["audit_events"][-1].update(tab="summary"))
    assert not run(spec, other_tab).passed


def test_state_diff_reports_rows_changed_outside_the_allowed_tables():
    spec = {"kind": "state_diff", "app": "ehr_web", "allowed": {"order_authorizations": None, "notes": None}}
    assert run(spec).passed
    edited = broken(lambda s: s["ehr_web"]["patients"][2].update(last_name="Belle"))
    result = run(spec, edited)
    assert not result.passed
    assert result.evidence["changes"] == [{"table": "patients", "change": "changed", "key": {"mrn": "E1000001"}}]


def test_state_diff_row_filter_allows_only_the_case_rows():
    spec = {"kind": "state_diff", "app": "ehr_web",
            "allowed": {"order_authorizations": {"order_id": "ORD-0123400"}, "notes": None}}
    assert run(spec).passed
    other_order = broken(lambda s: s["ehr_web"]["order_authorizations"][0].update(order_id="ORD-0123401"))
    assert not run(spec, other_order).passed


@pytest.mark.parametrize("op, expected, ok", [
    ("contains", AUTH_NUMBER, True), ("contains", "NWH260123", False),
    ("contains", "2026-11-17", True), ("contains", "2026-11-16", False),
    ("equals", "approved auth nwh2601234 from 11/17/2026", True),
    ("one_of", ["denied", "pended"], False), ("regex", r"auth\s+NWH\d{7}", True),
])
def test_answer_is_normalised(op, expected, ok):
    assert run({"kind": "answer", "op": op, "expected": expected}).passed is ok


def test_answer_missing_fails_with_reason():
    result = run({"kind": "answer", "expected": "approved"}, untouched_record())
    assert not result.passed and "found none" in result.explanation


def test_answer_expected_value_from_the_case():
    assert run({"kind": "answer", "expected": {"case": "patient.last_name"}},
               good_record(answer="Whitfield approved")).passed


def test_missing_final_snapshot_fails_the_check_with_the_reason():
    record = good_record(snapshot_errors={"fax": "the app did not answer"})
    result = run({"kind": "query", "app": "fax", "query": "outbound_faxes", "op": "count", "expected": 1}, record)
    assert not result.passed and "the app did not answer" in result.explanation


def test_a_param_without_a_value_is_a_task_error():
    with pytest.raises(QueryError, match="no value in `params`"):
        run({"kind": "query", "app": "fax", "query": "outbound_faxes[?to_number=={{n}}]", "op": "count",
             "expected": 1})


def test_params_are_literals_not_query_text():
    # A value holding JMESPath syntax is compared as text, never run as part of the query.
    spec = {"kind": "query", "app": "fax", "query": "outbound_faxes[?to_number=={{n}}]", "op": "count",
            "expected": 1, "params": {"n": "x` || `true"}}
    assert not run(spec).passed
    assert run({**spec, "params": {"n": PA_FAX}}).passed
