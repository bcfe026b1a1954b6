"""Keystone Mutual's inpatient utilization management (policy KM-UM-201, data/inpatient.yaml).

Notification: an inpatient admission is notified by the end of the next business day after the
admit date; a later notification is still accepted and flagged "Late notification". On
notification the nurse approves the initial days for the admitting diagnosis's category, counted
from the admit date, and sets the next review on the admit date plus the days approved.

Concurrent review: a clinical update that states continued-stay findings (from at least two of
the policy's groups: oxygen need, IV treatment, unstable vital signs, new findings) gets the days
requested, up to the policy's maximum per review; one that states none is pended and adds no days.
A discharge report (date and disposition) closes the case: no more days are requested.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parent.parent / "data" / "inpatient.yaml"
LATE_FLAG = "Late notification"


@cache
def policy() -> dict:
    """The inpatient policy's data (data/inpatient.yaml)."""
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


def notification_due(admitted_at: datetime) -> date:
    """The last day a notification of this admission is on time: the admit date's next business day."""
    day, left = admitted_at.date(), policy()["notification_business_days"]
    while left:
        day += timedelta(days=1)
        if day.weekday() < 5:
            left -= 1
    return day


def is_late(admitted_at: datetime, notified_at: datetime) -> bool:
    return notified_at.date() > notification_due(admitted_at)


def initial_days(diagnosis: str) -> int:
    """The days approved on notification for an admitting diagnosis."""
    days = policy()["initial_days"]
    return days["by_category"].get(diagnosis.strip().upper()[:3], days["default"])


def next_review(admitted_at: datetime, approved_days: int) -> date:
    return admitted_at.date() + timedelta(days=approved_days)


def findings_stated(update: str) -> list[str]:
    """The continued-stay finding groups a clinical update states."""
    return [group for group, pattern in policy()["continued_stay_findings"].items()
            if re.search(pattern, update, re.IGNORECASE)]


@dataclass(frozen=True)
class ReviewDecision:
    """A concurrent review's outcome: "Approved" with the days added, or "Pended" with none."""

    outcome: str
    days: int
    reason: str


def decide_review(update: str, days_requested: int) -> ReviewDecision:
    """Keystone's decision on a concurrent review's clinical update."""
    rules = policy()
    groups = findings_stated(update)
    if len(groups) < rules["min_finding_groups"]:
        return ReviewDecision("Pended", 0, "The clinical update does not state continued-stay findings (current "
                                           "oxygen need, IV treatment, vital signs or new findings). The case was "
                                           "referred to the medical director; no days were added.")
    days = min(days_requested, rules["max_days_per_review"])
    return ReviewDecision("Approved", days, f"Continued stay meets criteria ({', '.join(g.replace('_', ' ') for g in groups)}); "
                                            f"{days} additional day(s) approved.")
