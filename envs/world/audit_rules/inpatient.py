"""The world audit's inpatient checks: a stay and its notification at the payer agree.

A stay (an "Inpatient Admission" encounter) is admitted, and discharged, no later than today; its
documents fall within it; a notification on file follows the admission and comes no later than
today, is of the stay's order and coverage, and its next review is the admit date plus the days
approved; a stay still in hospital has its next review today or later (a review date that passed
with nobody reviewing would leave days unapproved).
"""
from __future__ import annotations

from datetime import date, timedelta

from admindesk.envs.world.world import World

KINDS = {
    "inpatient_stay_inconsistent": "an inpatient stay admitted or discharged after today, or a document of it "
                                   "dated outside it",
    "inpatient_notice_inconsistent": "an inpatient notification not of its stay's order and coverage, before the "
                                     "admission or after today, whose next review is not the admit date plus the "
                                     "days approved, or lapsed for a stay still in hospital",
}


def audit_inpatient(world: World, report, today: date) -> None:
    """Add every inpatient inconsistency of `world` as of `today` to `report` (an AuditReport)."""
    stays = {e.id: e for e in world.encounters if e.admitted_at is not None}
    for stay in stays.values():
        report.family_counts["inpatient"]["stays"] += 1
        last = stay.discharged_on or today
        if stay.admitted_at.date() > today or last > today:
            report.add("inpatient_stay_inconsistent", "inpatient", stay.id, f"admitted {stay.admitted_at}, "
                                                                            f"discharged {stay.discharged_on}")
        for doc in world.documents:
            if doc.encounter_id == stay.id and not stay.admitted_at.date() <= doc.date <= last:
                report.add("inpatient_stay_inconsistent", "inpatient", doc.id, f"dated {doc.date}, outside the stay")
    orders = {o.id: o for o in world.orders}
    for notice in world.inpatient_notices:
        stay, order = stays.get(notice.encounter_id), orders.get(notice.order_id)
        coverage = world.coverage(order.coverage_id) if order is not None else None
        problems = []
        if stay is None or order is None or order.encounter_id != stay.id:
            problems.append("not of an inpatient stay's order")
        elif coverage is None or (coverage.payer_id, coverage.member_id) != (notice.payer_id, notice.member_id):
            problems.append("not of the order's coverage")
        if stay is not None and not stay.admitted_at <= notice.notified_at:
            problems.append(f"notified {notice.notified_at}, before the admission")
        if notice.notified_at.date() > today:
            problems.append(f"notified {notice.notified_at}, after today")
        if notice.next_review != notice.admitted_at.date() + timedelta(days=notice.approved_days):
            problems.append(f"next review {notice.next_review} is not the admit date plus {notice.approved_days} days")
        if stay is not None and stay.discharged_on is None and notice.next_review < today:
            problems.append(f"next review {notice.next_review} passed with the member still in hospital")
        for problem in problems:
            report.add("inpatient_notice_inconsistent", "inpatient", notice.case_number, problem)
