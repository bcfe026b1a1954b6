"""A case's appeals on file (`payer_history.appeals`) as world records.

The case model already checked what needs no world (claims exist, levels in order,
dates in order); here the checks that need the claims as adjudicated: a level 1 appeal
was filed by the remittance's appeal deadline, and a decision pays only unpaid lines.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from admindesk.envs.world.cases.ids import CaseIds
from admindesk.envs.world.models import Appeal, Claim, Remittance
from admindesk.schema.case_model import AppealOnFileSpec

# What the payer wrote when the case gives no `reason`.
DEFAULT_REASONS = {
    "upheld": "The documentation submitted does not support reversing the original determination; "
              "the denial stands.",
    "overturned": "On review, the documentation supports the service as billed; the original denial is reversed.",
    "partially_overturned": "On review, the denial is reversed for line(s) {lines}; the other line(s) stand "
                            "as originally processed.",
}


def appeals_on_file(specs: list[AppealOnFileSpec], claims: dict[str, tuple[Claim, Remittance | None]],
                    payer_portals: dict[str, str], ids: CaseIds, fail: Callable[[str, str], None]) -> list[Appeal]:
    """The appeal records, oldest filing first (a later level follows the one it appeals).

    `claims` maps a case claim key to the claim as the payer holds it with its remittance;
    `payer_portals` maps a payer id to its portal; `fail(field, message)` raises.
    """
    appeals = []
    for index, spec in enumerate(specs):
        field = f"payer_history.appeals.{index}"
        claim, remittance = claims[spec.claim]
        if spec.level == 1 and spec.filed_on > remittance.appeal_deadline:
            fail(f"{field}.filed_on", f"is after the appeal deadline of claim {spec.claim!r} "
                                      f"({remittance.appeal_deadline}); the payer would not have accepted it")
        unpaid = tuple(line.line_no for line in claim.lines if line.paid < line.charge)
        if spec.decision in ("overturned", "partially_overturned") and not unpaid:
            fail(f"{field}.decision", f"claim {spec.claim!r} is paid in full; there is nothing to overturn")
        paid_lines = tuple(spec.paid_lines) if spec.decision == "partially_overturned" else ()
        if set(paid_lines) - set(unpaid):
            fail(f"{field}.paid_lines", f"only unpaid lines can be paid on appeal (claim {spec.claim!r}'s "
                                        f"unpaid lines: {', '.join(map(str, unpaid))})")
        if spec.decision == "overturned":
            paid_lines = unpaid
        reason = spec.reason or (DEFAULT_REASONS[spec.decision].format(lines=", ".join(map(str, paid_lines)))
                                 if spec.decision else "")
        appeals.append(Appeal(
            reference=ids.appeal_reference(payer_portals[claim.payer_id], spec.filed_on, index),
            claim_number=claim.claim_number, payer_id=claim.payer_id, level=str(spec.level), kind=spec.kind,
            filed_on=spec.filed_on, status=spec.status, due_on=spec.due_on, decision=spec.decision,
            decided_on=spec.decided_on, reason=reason, paid_lines=paid_lines))
    return sorted(appeals, key=lambda appeal: appeal.filed_on)


def as_filed(appeal: Appeal) -> Appeal:
    """The appeal as the desk that filed it knows it: its reference and filing date, in review
    (the decision is the payer's to tell)."""
    return replace(appeal, status="in_review", due_on=None, decision=None, decided_on=None, reason="",
                   paid_lines=())
