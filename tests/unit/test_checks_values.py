"""Expected values: case references, date and text normalisation, equality."""
from datetime import date

import pytest

from admindesk.schema.values import CaseRef, CaseReferenceError, resolve
from admindesk.verifiers.values import normalise_text, parse_date, text_contains, values_equal
from tests.unit.fixtures.episodes import CASE, MEMBER_ID


def test_case_reference_resolves_against_the_case():
    assert resolve(CaseRef(case="coverages.0.member_id"), CASE) == MEMBER_ID
    assert resolve([CaseRef(case="patient.last_name"), "x"], CASE) == ["Whitfield", "x"]


@pytest.mark.parametrize("path, message", [
    ("coverages.3.member_id", "indexes 0..0"),
    ("patient.middle_name", "has no 'middle_name'"),
    ("patient.suffix", "has no 'suffix'"),
])
def test_a_bad_case_path_names_what_is_there(path, message):
    with pytest.raises(CaseReferenceError, match=message):
        resolve(CaseRef(case=path), CASE)


def test_a_reference_without_a_case_is_an_error():
    with pytest.raises(CaseReferenceError, match="no case"):
        resolve(CaseRef(case="patient.dob"), None)


@pytest.mark.parametrize("text", ["2026-11-16", "11/16/2026", "11/16/26", "Nov 16, 2026", "November 16, 2026",
                                  "16 Nov 2026", "2026-11-16T09:00:00", "20261116", "Nov. 16th, 2026",
                                  "November 16,2026", "16th of November, 2026", "16-Nov-2026", "2026/11/16"])
def test_common_date_formats_parse_to_one_date(text):
    assert parse_date(text) == date(2026, 11, 16)


def test_abbreviated_months_and_impossible_days():
    assert parse_date("Sept. 3, 2026") == date(2026, 9, 3)
    assert parse_date("February 30, 2026") is None
    assert parse_date("Smarch 3, 2026") is None


def test_dates_in_free_text_compare_in_any_common_form():
    assert text_contains("Filed April 20th, 2026 with the clearinghouse.", "2026-04-20")
    assert text_contains("filed on the 20th of April, 2026", "04/20/2026")
    assert not text_contains("filed April 20, 2025", "2026-04-20")


def test_text_normalisation_drops_case_punctuation_and_date_format():
    assert normalise_text("Auth #PA-4471,  approved 11/16/2026") == normalise_text("auth pa4471 APPROVED 2026-11-16")


def test_contains_needs_whole_words():
    assert text_contains("auth NWH2601234 approved", "nwh2601234")
    assert not text_contains("auth NWH26012345 approved", "NWH2601234")


def test_equality_ignores_case_and_spacing_but_not_identifier_punctuation():
    assert values_equal(" Approved ", "approved")
    assert not values_equal("PA-1", "PA1")
    assert values_equal("12.50", 12.5)
    assert not values_equal(1, True)
    assert not values_equal(None, "")
