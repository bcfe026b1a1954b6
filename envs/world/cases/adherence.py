"""A PAP supplier's adherence (compliance) report, written from the case's nightly minutes.

Suppliers download the device's usage and send it as a report: the device and its set-up
date, their software's summary, and one row per night. The summary is the supplier's own
(the first 30 nights from set-up and the whole period, as the software counts them); a
payer's adherence rule may ask for another 30-day period, so the nightly rows are what a
coordinator counts.
"""
from __future__ import annotations

from datetime import date, timedelta

from admindesk.envs.world.documents import us_date

HOURS_COUNTED = 4  # the supplier's software counts nights with 4 hours or more
FIRST_PERIOD_NIGHTS = 30


def hours(minutes: int) -> str:
    """Minutes of use as the device reports them, h:mm."""
    return f"{minutes // 60}:{minutes % 60:02d}"


def _share(nights: int, of: int) -> str:
    return f"{nights} of {of} nights ({round(100 * nights / of)}%)"


def adherence_sections(setup: date, minutes: list[int], device: str, supplier: str) -> tuple[tuple[str, str], ...]:
    """The report's sections after its findings: device, the supplier's summary, the nightly rows."""
    counted = [m >= HOURS_COUNTED * 60 for m in minutes]
    used = [m for m in minutes if m > 0]
    last = setup + timedelta(days=len(minutes) - 1)
    first = counted[:FIRST_PERIOD_NIGHTS]
    first_end = setup + timedelta(days=len(first) - 1)
    summary = (f"First {len(first)} nights from set-up ({us_date(setup)} to {us_date(first_end)}): used "
               f"{HOURS_COUNTED} hours or more on {_share(sum(first), len(first))}; compliance "
               f"{'met' if sum(first) >= 0.7 * len(first) else 'not met'} (70% of nights). Whole report period "
               f"({us_date(setup)} to {us_date(last)}, {len(minutes)} nights): used on {len(used)} nights, "
               f"{HOURS_COUNTED} hours or more on {_share(sum(counted), len(minutes))}, average "
               f"{hours(sum(used) // max(len(used), 1))} on nights used.")
    rows = "\n".join(f"Night {night:>3}  {(setup + timedelta(days=night - 1)).strftime('%a')} "
                     f"{us_date(setup + timedelta(days=night - 1))}  {hours(m)}{'  *' if ok else ''}"
                     for night, (m, ok) in enumerate(zip(minutes, counted), start=1))
    return (("Device", f"{device}, set up {us_date(setup)} by {supplier}. Usage downloaded from the device "
                       f"modem through {us_date(last)}."),
            ("Supplier summary", summary),
            ("Nightly usage (night, date the night began, hours of use; * = 4 hours or more)", "\n" + rows))
