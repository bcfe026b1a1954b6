"""Cases: a task's situation (admindesk.schema.case_model.Case) turned into world records.

    from admindesk.envs.world.cases import build_case
    records = build_case(build_world(), "pa-hard-07", task.case)
    records.chart, records.payer      # small worlds holding only the case's records

Ids come from a range the background world never uses (see ids.py).
"""
from admindesk.envs.world.cases.builder import CaseError, CaseRecords, build_case
from admindesk.envs.world.cases.ids import CaseIds, case_slot

__all__ = ["CaseError", "CaseIds", "CaseRecords", "build_case", "case_slot"]
