"""The cases of template dme/hospital_bed hold together with Keystone Mutual's hospital bed policy
(KM-DME-404 on LCD L33820), measured by the portal's own rules: the feasible case's face-to-face
note documents a condition and position changes within 6 months of the written order, and names a
supplier Keystone does not contract with; the stop case's note documents comfort only."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
import yaml

from admindesk.envs.payer_portal_b.rules.dme_bed import BED_INDICATIONS, POSITION_CHANGES, bed_problem
from admindesk.harness.agents.reference.dme.hospital_bed import CONDITIONS, POSITION_CHANGES as CHANGES_TEXT
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "dme/hospital_bed"


@pytest.fixture(scope="module")
def cases():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _vars(task_id: str) -> dict:
    rows = yaml.safe_load(Path(TASKS_ROOT, "templates", "dme", "hospital_bed.cases.yml").read_text())["rows"]
    return next(row["vars"] for row in rows if row["id"] == task_id)


def _doc(task, key):
    return next(d for d in task.case.documents if d.key == key)


def _documented(narrative: str) -> tuple[str, str]:
    condition = next((name for name, pattern in CONDITIONS.items() if pattern.search(narrative)), BED_INDICATIONS[3])
    return condition, POSITION_CHANGES[0] if CHANGES_TEXT.search(narrative) else POSITION_CHANGES[1]


def test_the_template_holds_a_request_and_a_stop_at_keystone(cases):
    assert {t.id: (t.feasible, t.difficulty, t.revision) for t in cases.values()} == {
        "dme-easy-02": (False, "easy", 2), "dme-medium-03": (True, "medium", 2)}
    for task in cases.values():
        assert task.case.coverages[0].payer == "PYR-KMH" and task.case.orders[0].code == "E0260"
        assert "mobility_bed" in task.skills
        f2f, order = _doc(task, "f2f"), _doc(task, "wo")
        assert order.date - timedelta(days=182) <= f2f.date <= order.date  # the visit is in the window


def test_the_feasible_note_documents_a_condition_and_position_changes(cases):
    task = cases["dme-medium-03"]
    documented = _documented(_doc(task, "f2f").narrative)
    assert documented[1] == POSITION_CHANGES[0]
    assert documented[0] == "Head of bed elevated more than 30 degrees"
    assert documented[0] in yaml.safe_load(_vars(task.id)["indications"])
    assert bed_problem("E0260", *documented) is None
    assert task.case.orders[0].supplier == "SUP-CMS"  # not contracted with Keystone: the request names SUP-HCE


def test_the_stop_note_documents_comfort_only(cases):
    task = cases["dme-easy-02"]
    narrative = _doc(task, "f2f").narrative
    assert "more comfortable" in narrative
    assert "No qualifying condition" in bed_problem("E0260", *_documented(narrative))
