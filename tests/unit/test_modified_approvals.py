"""A modified approval on file (the payer approved fewer units, or another code, than the office
asked for) reads the same in portal A, Keystone and the EHR's in-basket: Partially Approved, with
what was approved and what was asked."""
from __future__ import annotations

from datetime import date, datetime

from admindesk.envs.ehr_web.seeding.seed_inbasket import LETTER_WORDING
from admindesk.envs.payer_portal_a.models import PaRequest, PaServiceLine
from admindesk.envs.payer_portal_a.seeding.seed import _modified_approval
from admindesk.envs.world.models import Authorization


def _auth(**changes) -> Authorization:
    fields = dict(auth_number="NWH26082280", payer_id="PYR-NWH", member_id="NWH0822800", mrn="E0822800", code="72158",
                  units=1, start=date(2026, 11, 12), end=date(2027, 1, 11), status="Approved",
                  order_id="ORD-0822800", case_number="PL-2026-08228000")
    return Authorization(**{**fields, **changes})


def _request(auth: Authorization, units: int = 1) -> PaRequest:
    return PaRequest(case_number=auth.case_number, status="Approved", submitted_at=datetime(2026, 11, 6, 10, 30),
                     lines=[PaServiceLine(line_no=1, code=auth.code, units=units, diagnosis_codes=["M51.16"],
                                          from_date=auth.start, to_date=auth.end, place_of_service="22")])


def test_an_unmodified_approval_grants_what_was_asked():
    auth = _auth()
    assert not auth.modified and (auth.granted_code, auth.granted_units) == ("72158", 1)


def test_another_code_denies_the_requested_line_and_approves_its_replacement():
    auth = _auth(approved_code="72148")
    request = _request(auth)
    _modified_approval(request, auth, "22")
    assert (request.status, request.auth_number, request.approved_units) == ("Partially Approved", "NWH26082280", 1)
    requested, approved = request.lines
    assert (requested.code, requested.status) == ("72158", "Denied") and "72148" in requested.decision_reason
    assert (approved.line_no, approved.code, approved.status, approved.approved_units) == (2, "72148", "Approved", 1)
    assert (approved.approved_start, approved.approved_end) == (auth.start, auth.end)


def test_fewer_units_approve_the_requested_line_in_part():
    auth = _auth(code="97110", units=12, approved_units=8)
    request = _request(auth, units=12)
    _modified_approval(request, auth, "11")
    [line] = request.lines
    assert (request.status, request.approved_units, line.status, line.approved_units) == (
        "Partially Approved", 8, "Approved", 8)
    assert line.decision_reason == "Approved for 8 of the 12 unit(s) requested."


def test_the_in_basket_letter_names_both_what_was_approved_and_what_was_asked():
    auth = _auth(approved_code="72148")
    _subject, body = LETTER_WORDING["Partially Approved"]
    text = body.format(auth=auth.auth_number, units=auth.granted_units, code=auth.granted_code,
                       requested_units=auth.units, requested_code=auth.code, start="11/12/2026", end="01/11/2027",
                       case=auth.case_number, reason="", appeal_days=180, items="")
    assert "covers 1 unit(s) of 72148" in text and "requested: 1 unit(s) of 72158" in text
