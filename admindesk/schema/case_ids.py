"""Identifiers of case records, from a range the background world never draws from, and
the case as checks see it (with those identifiers under `ids`).

The world numbers its records from 1 upward in fixed-width fields (MRN E1xxxxxx,
ORD-1xxxxxx, a member id's seven digits from 1000000...). A case puts a 0 where the
world's first digit is never 0 (or a 9 where the world counts up from 000001 and would
need a million records to get there), then the case's slot (four digits from a hash of
the task id), then the record's index in the case. Same task, same ids; ids of one task
never meet the world's, and a case only ever appears in its own task's episodes.

This module uses only hashlib, so the verifiers can name a case's rows (its MRN, its
order id) without importing the world: `{case: ids.orders.mri}` in a check.
"""
from __future__ import annotations

import hashlib
from datetime import date
from typing import Any

SLOTS = 10_000


def case_slot(task_id: str) -> int:
    """The task's four-digit slot (stable across runs and machines)."""
    return int(hashlib.sha256(task_id.encode()).hexdigest()[:8], 16) % SLOTS


class CaseIds:
    """Issues the case's ids; `index` is the record's position among its kind in the case."""

    def __init__(self, task_id: str, slot: int | None = None):
        self.slot = case_slot(task_id) if slot is None else slot

    def _tail(self, index: int, width: int) -> str:
        if not 0 <= index < 10 ** width:
            raise ValueError(f"a case holds at most {10 ** width} records of one kind")
        return f"{self.slot:04d}{index:0{width}d}"

    def mrn(self, index: int) -> str:
        return f"E0{self._tail(index, 2)}"

    def coverage(self, index: int) -> str:
        return f"COV-9{self._tail(index, 1)}"

    def member_id(self, payer_id: str, index: int) -> str:
        return f"{payer_id.removeprefix('PYR-')}0{self._tail(index, 2)}"

    def group_number(self, group_prefix: str) -> str:
        return f"{group_prefix}0{self.slot:04d}"

    def encounter(self, index: int) -> str:
        return f"ENC-0{self._tail(index, 3)}"

    def order(self, index: int) -> str:
        return f"ORD-0{self._tail(index, 2)}"

    def document(self, index: int) -> str:
        return f"DOC-0{self._tail(index, 2)}"

    def auth_number(self, payer_code: str, decided: date, index: int) -> str:
        return f"{payer_code[:3]}{decided:%y}0{self._tail(index, 1)}"

    def claim_number(self, service_date: date, index: int) -> str:
        return f"CLM{service_date:%y}-0{self._tail(index, 2)}"

    def remittance(self, paid_on: date, index: int) -> str:
        return f"ERA-{paid_on:%y%m%d}-9{self._tail(index, 1)}"

    def check_number(self, index: int) -> str:
        return f"EFT0{self._tail(index, 5)}"

    def fax(self, index: int) -> str:
        return f"FAX-9{self._tail(index, 1)}"


def case_record_ids(task_id: str, case: dict[str, Any]) -> dict[str, Any]:
    """The ids the world gives a case's records, keyed as the case keys them.

    `mrn`, `lookalike_mrns` (in case order), `coverages.<key>` (`id`, `member_id` as the
    EHR has it, `payer_member_id` as the payer has it), `orders.<key>`, `documents.<key>`,
    `claims.<key>`, `remittances.<claim key>` and `checks.<claim key>` (the check/EFT number; claims with a
    remittance) and `faxes.<key>`.
    Mirrors envs/world/cases/builder.py's numbering.
    """
    ids = CaseIds(task_id, case.get("slot"))
    coverages = {}
    for index, spec in enumerate(case.get("coverages", [])):
        member_id = spec.get("member_id") or ids.member_id(spec["payer"], index)
        at_payer = spec.get("at_payer") or {}
        coverages[spec["key"]] = {"id": ids.coverage(index), "member_id": member_id,
                                  "payer_member_id": at_payer.get("member_id") or member_id}
    return {
        "mrn": ids.mrn(0),
        "lookalike_mrns": [ids.mrn(index) for index in range(1, len(case.get("lookalikes", [])) + 1)],
        "coverages": coverages,
        "orders": {spec["key"]: ids.order(index) for index, spec in enumerate(case.get("orders", []))},
        "documents": {spec["key"]: ids.document(index) for index, spec in enumerate(case.get("documents", []))},
        "claims": {spec["key"]: ids.claim_number(date.fromisoformat(spec["service_date"]), index)
                   for index, spec in enumerate(case.get("claims", []))},
        "remittances": {spec["key"]: ids.remittance(date.fromisoformat(spec["remittance"]["paid_on"]), index)
                        for index, spec in enumerate(case.get("claims", [])) if spec.get("remittance")},
        "checks": {spec["key"]: ids.check_number(index)
                   for index, spec in enumerate(case.get("claims", [])) if spec.get("remittance")},
        "faxes": {spec["key"]: ids.fax(index) for index, spec in enumerate(case.get("faxes", []))},
    }


def case_values(task) -> dict[str, Any] | None:
    """A task's case as checks read it: the case as JSON plus `ids` (see case_record_ids)."""
    if task.case is None:
        return None
    case = task.case.model_dump(mode="json")
    return {**case, "ids": case_record_ids(task.id, case)}
