"""Portal A payers' diagnosis coverage policies for tests (data/diagnosis_coverage.yaml): which
ICD-10-CM codes a test is paid for. Portal A's provider manual states them and adjudicates a
replacement claim against them (corrected_claims.py); the world audit checks every CO-167 or
CO-11 denial of such a test against them, so what a coordinator reads is what is enforced."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

COVERAGE_FILE = Path(__file__).resolve().parent / "data" / "diagnosis_coverage.yaml"
KEYS = {"code", "title", "covered"}
DIAGNOSIS_CARCS = ("167", "11")  # diagnosis not covered; diagnosis inconsistent with the procedure
NOT_COVERED = ("CO-167: this diagnosis is not covered. Under our coverage policy for {code} ({title}) the line is paid "
               "only with a diagnosis the policy lists.")


@dataclass(frozen=True)
class DiagnosisCoverage:
    """One test and the diagnoses (codes or the categories they begin with) it is paid for."""

    code: str
    title: str
    covered: tuple[str, ...]

    def covers(self, diagnosis_codes: list[str]) -> bool:
        """Whether any of a line's diagnoses is one the policy lists."""
        return any(dx.upper().startswith(prefix) for dx in diagnosis_codes for prefix in self.covered)


@lru_cache(maxsize=1)
def load_diagnosis_coverage(path: Path = COVERAGE_FILE) -> dict[str, DiagnosisCoverage]:
    """The policies by test code; a key the file does not know is an error naming the entry."""
    policies: dict[str, DiagnosisCoverage] = {}
    for entry in yaml.safe_load(path.read_text()):
        unknown = set(entry) - KEYS
        if unknown:
            raise ValueError(f"{path.name}: entry {entry.get('code')!r} has unknown keys {sorted(unknown)}")
        policies[str(entry["code"])] = DiagnosisCoverage(str(entry["code"]), entry["title"],
                                                         tuple(str(p) for p in entry["covered"]))
    return policies


def uncovered_line(lines: list[dict]) -> DiagnosisCoverage | None:
    """The coverage policy of the first line (code, diagnosis_codes) whose diagnoses it does not list."""
    policies = load_diagnosis_coverage()
    for line in lines:
        policy = policies.get(line["code"])
        if policy is not None and not policy.covers(line["diagnosis_codes"]):
            return policy
    return None
