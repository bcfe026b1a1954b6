"""The world audit's injury checks: a denial for another carrier's injury and a first report of
injury agree with registration's accident records.

A claim denied CO-19 (workers' compensation) or CO-20 (liability) was billed as related to an
injury: registration holds an accident record of the patient dated on or before the date of
service. A first report of injury is about an injury registration recorded (the same date of
injury).
"""
from __future__ import annotations

from admindesk.envs.world.world import World

INJURY_CARCS = frozenset({"19", "20"})
KINDS = {
    "injury_denial_without_accident": "a CO-19/CO-20 denial whose patient has no accident registration dated on or "
                                      "before the date of service",
    "injury_report_without_accident": "a first report of injury whose date of injury no accident registration of "
                                      "the patient has",
}


def audit_injuries(world: World, report) -> None:
    """Add every injury inconsistency of `world` to `report` (an AuditReport)."""
    injury_dates: dict[str, set] = {}
    for accident in world.accidents:
        injury_dates.setdefault(accident.mrn, set()).add(accident.injury_date)
    for claim in world.claims:
        if not INJURY_CARCS & {a.carc for line in claim.lines for a in line.adjustments}:
            continue
        report.family_counts["injury"]["denials"] += 1
        if not any(day <= claim.service_date for day in injury_dates.get(claim.mrn, ())):
            report.add("injury_denial_without_accident", "injury", claim.claim_number,
                       f"no accident registration on or before {claim.service_date}")
    for doc in world.documents:
        if doc.kind != "injury_report":
            continue
        report.family_counts["injury"]["first reports"] += 1
        registered = {day.strftime("%m/%d/%Y") for day in injury_dates.get(doc.mrn, ())}
        if doc.fact("injury_date") not in registered:
            report.add("injury_report_without_accident", "injury", doc.id,
                       f"date of injury {doc.fact('injury_date')} is not registered")
