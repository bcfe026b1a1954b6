"""The world audit's diagnosis coverage check: a test line denied CO-167 or CO-11 under a payer's
covered-diagnosis list (envs/world/diagnosis_coverage.py) carries no diagnosis the list covers.

A denial of a line whose diagnoses the policy lists is one the payer would not give, and a case
built on it would have no right answer.
"""
from __future__ import annotations

from admindesk.envs.world.diagnosis_coverage import DIAGNOSIS_CARCS, load_diagnosis_coverage
from admindesk.envs.world.world import World

KINDS = {"diagnosis_denial_covered": "a CO-167/CO-11 denial of a test whose line carries a diagnosis the payer's "
                                     "coverage policy for the test lists"}


def audit_diagnosis_denials(world: World, report) -> None:
    """Add every diagnosis denial of a listed test whose line the policy covers to `report` (an AuditReport)."""
    policies = load_diagnosis_coverage()
    for claim in world.claims:
        for line in claim.lines:
            policy = policies.get(line.code)
            if policy is None or not any(a.carc in DIAGNOSIS_CARCS for a in line.adjustments):
                continue
            report.family_counts["lab"]["diagnosis coverage denials"] += 1
            if policy.covers(list(line.diagnosis_codes)):
                report.add("diagnosis_denial_covered", "lab", claim.claim_number,
                           f"line {line.line_no} ({line.code}) carries {', '.join(line.diagnosis_codes)}, covered by "
                           f"the {policy.title} policy")
