"""The National Correct Coding Initiative (NCCI) edits the world's claims meet (data/ncci_edits.yaml),
over a claim's lines of one date of service.

A line is bundled when another line of the claim is its column-1 code (procedure-to-procedure
pair) and it lacks a modifier the pair allows, or when it is an office visit beside a minor
procedure without modifier 25. Keystone Mutual adjudicates corrected claims with these edits (its
rules/claim_rules.py): a replacement that still bills a bundled line is denied CO-97, as the
original was; the world audit checks every CO-97 denial against them.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parent / "data" / "ncci_edits.yaml"


@cache
def edits() -> dict:
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Bundled:
    """A line (0-based) included in another line's code, and the modifiers that would unbundle it."""

    line: int
    code: str
    into: str
    modifiers: tuple[str, ...]

    def reason(self) -> str:
        allowed = " or ".join(self.modifiers) if self.modifiers else "no modifier"
        return (f"Line {self.line + 1} ({self.code}) is included in {self.into} billed on the same date (NCCI); "
                f"it is paid separately only with {allowed}, when the record documents it.")


def _modifiers(line: dict) -> set[str]:
    value = line.get("modifiers") or ""
    parts = value if isinstance(value, (list, tuple)) else value.replace(",", " ").split()
    return {str(part).strip().upper() for part in parts if str(part).strip()}


def bundled_lines(lines: list[dict]) -> list[Bundled]:
    """The lines (dicts with `code` and `modifiers`, a list or comma-separated) the edits bundle."""
    rules = edits()
    codes = [str(line["code"]).strip().upper() for line in lines]
    found = []
    for index, (code, line) in enumerate(zip(codes, lines)):
        present = _modifiers(line)
        for pair in rules["procedure_pairs"]:
            if pair["column2"] == code and pair["column1"] in codes:
                allowed = tuple(rules["ptp_modifiers"]) if pair["indicator"] == 1 else ()
                if not present & set(allowed):
                    found.append(Bundled(index, code, pair["column1"], allowed))
        procedure = next((c for c in codes if c in rules["minor_procedures"]), None)
        if code in rules["office_visits"] and procedure and rules["visit_modifier"] not in present:
            found.append(Bundled(index, code, procedure, (rules["visit_modifier"],)))
    return found
