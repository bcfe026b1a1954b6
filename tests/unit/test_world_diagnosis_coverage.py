"""Portal A's covered-diagnosis lists for tests (envs/world/diagnosis_coverage.py) and the world
audit's check that a CO-167/CO-11 denial of a listed test carries no covered diagnosis."""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from types import SimpleNamespace

import pytest

from admindesk.envs.world.audit_rules.diagnosis import audit_diagnosis_denials
from admindesk.envs.world.codes import load_codes
from admindesk.envs.world.diagnosis_coverage import load_diagnosis_coverage, uncovered_line


def test_each_policy_covers_listed_codes_by_category_and_never_screening():
    policies = load_diagnosis_coverage()
    assert set(policies) == {"83036", "84443", "80061", "93880"}
    assert policies["84443"].covers(["Z13.29", "R00.2"]) and policies["80061"].covers(["I65.23"])
    assert not any(p.covers(["Z00.00", "Z13.29"]) for p in policies.values())


def test_only_a_listed_test_without_a_covered_diagnosis_is_uncovered():
    assert uncovered_line([{"code": "84443", "diagnosis_codes": ["Z13.29"]}]).code == "84443"
    assert uncovered_line([{"code": "84443", "diagnosis_codes": ["E04.1"]}]) is None
    assert uncovered_line([{"code": "99213", "diagnosis_codes": ["Z00.00"]}]) is None


def test_the_cases_codes_are_in_the_code_set():
    icd10 = load_codes().icd10
    assert {"Z13.29", "R00.2", "E04.1", "I65.23", "Z00.00"} <= set(icd10)


def test_an_unknown_key_names_the_entry(tmp_path):
    bad = tmp_path / "coverage.yaml"
    bad.write_text('- {code: "84443", title: TSH, covered: [E03], covred: [E05]}\n')
    with pytest.raises(ValueError, match="84443.*covred"):
        load_diagnosis_coverage.__wrapped__(bad)


@pytest.mark.parametrize("text, message", [
    ('- {code: "84443", title: TSH}\n', "entry '84443' covered: Field required"),
    ('- {code: "8444", title: TSH, covered: [E03]}\n', "entry '8444' code: String should match"),
    ('- just a line\n', "entry 1: Input should be a valid dictionary"),
    ('code: "84443"\n', "the file: Input should be a valid list"),
])
def test_a_bad_policy_file_names_the_entry_and_the_field(tmp_path, text, message):
    bad = tmp_path / "coverage.yaml"
    bad.write_text(text)
    with pytest.raises(ValueError, match=re.escape(f"coverage.yaml: {message}")):
        load_diagnosis_coverage.__wrapped__(bad)


class _Report:
    def __init__(self):
        self.found, self.family_counts = [], defaultdict(Counter)

    def add(self, kind, family, record, detail):
        self.found.append((kind, record))


def _claim(number, code, diagnoses, carc):
    adjustment = SimpleNamespace(group="CO", carc=carc, rarc=None, amount=0.0)
    line = SimpleNamespace(line_no=1, code=code, diagnosis_codes=tuple(diagnoses), adjustments=(adjustment,))
    return SimpleNamespace(claim_number=number, lines=(line,))


def test_the_audit_flags_a_diagnosis_denial_of_a_covered_line_only():
    world = SimpleNamespace(claims=[_claim("C1", "84443", ["Z13.29"], "11"), _claim("C2", "80061", ["E78.5"], "167"),
                                    _claim("C3", "80061", ["E78.5"], "45")])
    report = _Report()
    audit_diagnosis_denials(world, report)
    assert report.found == [("diagnosis_denial_covered", "C2")]
