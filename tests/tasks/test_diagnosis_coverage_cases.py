"""The cases of template appeals/diagnosis_coverage hold together: a portal A test line denied
CO-167 or CO-11 with a diagnosis the payer's list for the test does not cover; the encounter note of
the date of service codes a covered condition exactly when the case is `covered` (and it is
`vars.documented`); and each case's trap is there: a covered code on the problem list (from
`orders.prior`) that the note does not address."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from admindesk.envs.case_rows import case_rows
from admindesk.envs.world.codes import load_codes
from admindesk.envs.world.diagnosis_coverage import DIAGNOSIS_CARCS, load_diagnosis_coverage
from admindesk.schema.task_model import TASKS_ROOT
from tests.app.conftest import TEMPLATE_CACHE

TABLE = Path(TASKS_ROOT) / "templates" / "appeals" / "diagnosis_coverage.cases.yml"
ASSESSED = re.compile(r"\(([A-Z]\d{2}(?:\.[0-9A-Z]{1,4})?)\)")
IDS = ["appeal-medium-10", "appeal-medium-11"]


@pytest.fixture(scope="module")
def rows():
    return {row["id"]: row for row in yaml.safe_load(TABLE.read_text())["rows"]}


def _note(row) -> str:
    [visit] = [d for d in row["case"]["documents"] if d["key"] == "visit"]
    assert visit["date"] == row["case"]["claims"][0]["service_date"]
    return visit["narrative"]


def test_the_template_converts_two_medium_ids_one_infeasible(rows):
    assert set(rows) == set(IDS)
    assert all(row["difficulty"] == "medium" and row["template"] == "diagnosis_coverage" for row in rows.values())
    assert [row.get("feasible", True) for row in (rows[i] for i in IDS)] == [True, False]


@pytest.mark.parametrize("task_id", IDS)
def test_the_line_is_denied_for_a_diagnosis_the_policy_does_not_list(rows, task_id):
    row = rows[task_id]
    [claim] = row["case"]["claims"]
    [line] = claim["lines"]
    policy = load_diagnosis_coverage()[line["code"]]
    assert [a["carc"] for a in line["adjustments"]] in ([carc] for carc in DIAGNOSIS_CARCS)
    assert not policy.covers(line["diagnoses"])
    assert row["case"]["coverages"][0]["payer"] != "PYR-KMH"  # portal A states and enforces the lists


@pytest.mark.parametrize("task_id", IDS)
def test_the_note_codes_a_covered_condition_only_when_the_case_is_covered(rows, task_id):
    row = rows[task_id]
    policy = load_diagnosis_coverage()[row["case"]["claims"][0]["lines"][0]["code"]]
    assessed = ASSESSED.findall(_note(row).split("Assessment and plan:")[1])
    covered = [code for code in assessed if policy.covers([code])]
    assert covered == ([row["vars"]["documented"]] if row["vars"]["covered"] else [])
    assert set(assessed) <= set(load_codes().icd10)


@pytest.mark.parametrize("task_id", IDS)
def test_a_covered_problem_list_code_is_one_the_note_does_not_address(rows, task_id):
    row = rows[task_id]
    problem = row["vars"]["problem"]
    [prior] = [o for o in row["case"]["orders"] if o["key"] == "prior"]
    policy = load_diagnosis_coverage()[row["case"]["claims"][0]["lines"][0]["code"]]
    assert prior["diagnoses"] == [problem] and policy.covers([problem])
    assert problem not in _note(row) and prior["ordered_on"] < row["case"]["claims"][0]["service_date"]


def test_the_chart_problem_list_shows_the_prior_condition_not_the_screening_code():
    tables = {t.table: t.rows for t in case_rows("appeal-medium-10", Path(TASKS_ROOT), TEMPLATE_CACHE)["ehr_web"]}
    assert [(p["icd10_code"], p["status"]) for p in tables["problems"]] == [("E04.1", "Active")]
