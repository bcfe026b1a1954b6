"""Identifiers of case records (see admindesk.schema.case_ids, which the verifiers share).

The numbering lives with the verifiers, which must not import the world, so that a check
can name a case's rows; the world adds the payer-portal case number format it owns.
"""
from __future__ import annotations

from datetime import date

from admindesk.envs.world.identifiers import case_number_format
from admindesk.schema.case_ids import SLOTS, CaseIds as _SharedCaseIds, case_slot

__all__ = ["SLOTS", "CaseIds", "case_slot"]


class CaseIds(_SharedCaseIds):
    """The shared case ids plus the numbers a payer's portal issues (case number, appeal reference)."""

    def case_number(self, portal: str, decided: date, index: int) -> str:
        return case_number_format(portal, decided, int(self._tail(index, 3)))

    def appeal_reference(self, portal: str, filed_on: date, index: int) -> str:
        """An appeal reference in the portal's own format, its six-digit serial starting
        with 9: ProviderLink's APL<yy><serial>, Keystone's KM-A-<yy>-<serial> (both
        portals count their serials up from 000001)."""
        serial = f"9{self._tail(index, 1)}"
        return f"APL{filed_on:%y}{serial}" if portal == "a" else f"KM-A-{filed_on:%y}-{serial}"
