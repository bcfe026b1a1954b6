"""Claim lines and the denials a payer can give a claim, with when each one applies.

A denial reason only appears where it is true: CO-97 bundles an E/M billed without
modifier 25 into a same-day procedure (drug administration), CO-151 needs more than one
unit, OA-22 needs another coverage active on the date, N386/N115 (national or local
coverage determination) only come from Medicare and Medicare Advantage plans.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from admindesk.envs.world.models import Adjustment, ClaimLine
from admindesk.envs.world.review_rules import MEDICARE_PRODUCTS

BASE_CHARGE = {"imaging": (850, 3200), "procedure": (1200, 9000), "drug": (18, 95), "dme": (180, 1400),
               "sleep": (900, 2600), "therapy": (45, 90), "lab": (25, 140), "office": (110, 320)}
EVALUATION_AND_MANAGEMENT = frozenset({"99212", "99213", "99214", "99215"})
# Drug administration billed with each infused or injected drug (a procedure with its own
# E/M bundling edit: a same-day visit needs modifier 25).
ADMINISTRATION = {"J0135": "96372", "J9312": "96413", "J9271": "96413", "J9355": "96413"}
DEFAULT_ADMINISTRATION = "96365"
PROCEDURE_CODES = frozenset(ADMINISTRATION.values()) | {DEFAULT_ADMINISTRATION}
MEDICARE_COVERAGE_REMARKS = ("N386", "N115")

# Claim-level denials after coverage and authorization checks: (group, carc), weight.
_DENIALS = ((("CO", "50"), 5), (("CO", "16"), 6), (("CO", "29"), 3), (("CO", "4"), 2), (("CO", "11"), 2),
            (("CO", "167"), 1), (("CO", "18"), 2), (("OA", "22"), 1), (("CO", "204"), 1), (("CO", "151"), 1))
_REMARKS = {"16": ("N290", "M127", "MA130"), "4": ("N657",), "11": ("M76",), "167": ("N130",),
            "22": ("MA04",), "204": ("N130",), "151": ("N362",), "29": (None,), "18": (None,)}


def pick_denial(rng: random.Random, *, product: str, units: int, has_auth: bool,
                other_coverage_active: bool) -> tuple[str, str, str | None]:
    """A claim denial (group, CARC, RARC) that fits the claim's plan and facts."""
    applicable = [(denial, weight) for denial, weight in _DENIALS
                  if not (denial[1] == "50" and has_auth)          # an approved auth settled necessity
                  and not (denial[1] == "151" and units < 2)
                  and not (denial[1] == "22" and not other_coverage_active)]
    (group, carc), = rng.choices(*zip(*applicable))
    if carc == "50":
        remarks = MEDICARE_COVERAGE_REMARKS if product in MEDICARE_PRODUCTS else ("N130", None)
    else:
        remarks = _REMARKS[carc]
    return group, carc, rng.choice(remarks)


def paid_line(rng: random.Random, line_no: int, code: str, units: int, charge: float, dx: Sequence[str],
              payer_share: float, modifiers: Sequence[str] = ()) -> ClaimLine:
    """A paid line: contractual write-off (CO-45) and, sometimes, patient responsibility."""
    allowed = round(charge * payer_share, 2)
    patient = round(allowed * rng.choice((0.0, 0.1, 0.2, 0.2)), 2)
    adjustments = [Adjustment("CO", "45", None, round(charge - allowed, 2))]
    if patient:
        adjustments.append(Adjustment("PR", rng.choice(("1", "2", "2", "3")), None, patient))
    return ClaimLine(line_no, code, tuple(modifiers), units, charge, tuple(dx), round(allowed - patient, 2),
                     tuple(adjustments))


def denied_line(line: ClaimLine, denial: tuple[str, str, str | None]) -> ClaimLine:
    """The same service line with its whole charge denied."""
    group, carc, rarc = denial
    return ClaimLine(line.line_no, line.code, line.modifiers, line.units, line.charge, line.diagnosis_codes, 0.0,
                     (Adjustment(group, carc, rarc, line.charge),))


def pending_line(line: ClaimLine) -> ClaimLine:
    """The line as submitted, not yet adjudicated."""
    return ClaimLine(line.line_no, line.code, line.modifiers, line.units, line.charge, line.diagnosis_codes, 0.0, ())
