"""Every task's case agrees with the world's rules (`python -m admindesk.envs.world.audit`)."""

from __future__ import annotations

from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_cases
from admindesk.schema.task_model import load_tasks


def test_no_case_contradicts_the_world():
    report = audit_cases(build_world(), load_tasks())
    assert [f"{finding.kind} {finding.record}: {finding.detail}" for finding in report.findings] == []
