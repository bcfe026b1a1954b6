"""Identifiers of case records (see admindesk.verifiers.case_ids, which the verifiers share).

The numbering lives with the verifiers, which must not import the world, so that a check
can name a case's rows; the world adds the payer-portal case number format it owns.
"""
from __future__ import annotations

from datetime import date

from admindesk.verifiers.case_ids import SLOTS, case_slot
from admindesk.verifiers.case_ids import CaseIds as _SharedCaseIds

from ..identifiers import case_number_format

__all__ = ["SLOTS", "CaseIds", "case_slot"]


class CaseIds(_SharedCaseIds):
    """The shared case ids plus the prior-auth case number a payer's portal issues."""

    def case_number(self, portal: str, decided: date, index: int) -> str:
        return case_number_format(portal, decided, int(self._tail(index, 3)))
