"""Portal A payers' diagnosis coverage policies for tests (data/diagnosis_coverage.yaml): which
ICD-10-CM codes a test is paid for. Portal A's provider manual states them and adjudicates a
replacement claim against them (corrected_claims.py); the world audit checks every CO-167 or
CO-11 denial of such a test against them, so what a coordinator reads is what is enforced."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

COVERAGE_FILE = Path(__file__).resolve().parent / "data" / "diagnosis_coverage.yaml"
DIAGNOSIS_CARCS = ("167", "11")  # diagnosis not covered; diagnosis inconsistent with the procedure
NOT_COVERED = ("CO-167: this diagnosis is not covered. Under our coverage policy for {code} ({title}) the line is paid "
               "only with a diagnosis the policy lists.")


class DiagnosisCoverage(BaseModel):
    """One test and the diagnoses (codes or the categories they begin with) it is paid for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str = Field(pattern=r"^\d{5}$")
    title: str = Field(min_length=1)
    covered: tuple[str, ...] = Field(min_length=1)

    def covers(self, diagnosis_codes: list[str]) -> bool:
        """Whether any of a line's diagnoses is one the policy lists."""
        return any(dx.upper().startswith(prefix) for dx in diagnosis_codes for prefix in self.covered)


POLICY_FILE = TypeAdapter(list[DiagnosisCoverage])


@lru_cache(maxsize=1)
def load_diagnosis_coverage(path: Path = COVERAGE_FILE) -> dict[str, DiagnosisCoverage]:
    """The policies by test code; a bad entry is an error naming the file, the entry and the field."""
    entries = yaml.safe_load(path.read_text())
    try:
        policies = POLICY_FILE.validate_python(entries)
    except ValidationError as exc:
        problems = "; ".join(f"{_where(entries, error['loc'])}: {error['msg']}" for error in exc.errors())
        raise ValueError(f"{path.name}: {problems}") from exc
    return {policy.code: policy for policy in policies}


def _where(entries: object, loc: tuple) -> str:
    """An error's place: the entry by its test code, and the field."""
    if not loc:
        return "the file"
    entry = entries[loc[0]] if isinstance(entries, list) else None
    name = f"entry {entry.get('code')!r}" if isinstance(entry, dict) else f"entry {loc[0] + 1}"
    return " ".join([name, *map(str, loc[1:])])


def uncovered_line(lines: list[dict]) -> DiagnosisCoverage | None:
    """The coverage policy of the first line (code, diagnosis_codes) whose diagnoses it does not list."""
    policies = load_diagnosis_coverage()
    for line in lines:
        policy = policies.get(line["code"])
        if policy is not None and not policy.covers(line["diagnosis_codes"]):
            return policy
    return None
