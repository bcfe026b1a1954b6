"""`admindesk tasks stats`: the suite's shape, computed on a small folder of task files."""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.task_tools.suite_stats import is_mri, service_category, service_code
from admindesk.schema.task_model import TASKS_ROOT, load_tasks, read_task_yaml
from tests.cases.examples import TASKS_DIR

CASE = read_task_yaml(TASKS_DIR / "denial-auth-on-file.yaml")["case"]


def _task(task_id: str, workflow: str, template: str, skills: list[str], *codes: str) -> dict:
    """A task whose case orders `codes` (the first keyed `svc` when there are two)."""
    case = copy.deepcopy(CASE)
    template_order = case["orders"][0]
    case["orders"] = [{**template_order, "key": f"order{index}", "code": code} for index, code in enumerate(codes)]
    if len(codes) > 1:
        case["orders"][0]["key"] = "svc"
    for claim in case["claims"]:
        claim["order"] = case["orders"][0]["key"]
    for document in case["documents"]:
        document["order"] = case["orders"][0]["key"]
    case["payer_history"]["requests"][0]["order"] = case["orders"][0]["key"]
    return {"id": task_id, "workflow": workflow, "template": template, "skills": skills, "case": case}


FIXTURE = [
    _task("pa-1", "prior_auth", "prior_auth/portal_b_precert", ["portal_submission"], "72148"),
    _task("pa-2", "prior_auth", "prior_auth/portal_b_precert", ["portal_submission", "cob"], "73721"),
    _task("pa-3", "prior_auth", "prior_auth/no_auth_lookup", ["auth_lookup"], "95806"),
    # The service is the order keyed `svc`, not the first order: a drug, not the MRI.
    _task("pa-4", "prior_auth", "prior_auth/fax_precert", ["fax_precert"], "J0135", "70553"),
    _task("ap-1", "appeals", "appeals/portal_appeal", ["level1_appeal", "cob"], "70553"),
]


@pytest.fixture
def tasks_dir(tmp_path):
    for task in FIXTURE:
        (tmp_path / f"{task['id']}.yaml").write_text(yaml.safe_dump(task), encoding="utf-8")
    return tmp_path


def _stats(*args: str) -> str:
    result = CliRunner().invoke(main, ["tasks", "stats", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_figures_of_a_small_suite(tasks_dir):
    figures = json.loads(_stats("--tasks-dir", str(tasks_dir), "--json"))
    assert figures["tasks"] == 5 and figures["templates"] == 4
    assert figures["tasks_per_template"] == {"appeals/portal_appeal": 1, "prior_auth/fax_precert": 1,
                                             "prior_auth/no_auth_lookup": 1, "prior_auth/portal_b_precert": 2}
    assert figures["max_tasks_per_template"] == 2 and figures["largest_templates"] == ["prior_auth/portal_b_precert"]
    used = {skill: count for skill, count in figures["tasks_per_skill"].items() if count}
    assert used == {"portal_submission": 2, "cob": 2, "auth_lookup": 1, "fax_precert": 1, "level1_appeal": 1}
    assert "peer_to_peer" in figures["unused_skills"] and figures["tasks_per_skill"]["peer_to_peer"] == 0
    assert figures["prior_auth_tasks"] == 4 and figures["prior_auth_mri_tasks"] == 2
    assert figures["prior_auth_mri_share"] == 0.5
    assert figures["prior_auth_categories"] == {"mri": 2, "drug": 1, "sleep": 1}


def test_the_printed_figures_and_a_selection(tasks_dir):
    printed = _stats("--tasks-dir", str(tasks_dir))
    assert "5 task(s), 4 template(s); the largest template has 2 task(s) (prior_auth/portal_b_precert)" in printed
    assert "prior auth: 4 task(s), MRI 2 (50.0%), 3 service categories:" in printed
    figures = json.loads(_stats("skill=cob", "--tasks-dir", str(tasks_dir), "--json"))
    assert figures["tasks"] == 2 and figures["prior_auth_mri_share"] == 1.0


@pytest.mark.parametrize("code, category", [("72148", "mri"), ("71250", "imaging"), ("64483", "pain procedure"),
                                            ("62323", "pain procedure"), ("27447", "surgery"), ("29881", "surgery"),
                                            ("93458", "cardiology"), ("33208", "cardiology"),
                                            ("78452", "cardiology"), ("75574", "cardiology"),
                                            ("95886", "neurodiagnostics"), ("96413", "drug administration"),
                                            ("95810", "sleep"), ("J1745", "drug"), ("99223", "inpatient"),
                                            ("99233", "inpatient"), ("81162", "genetic testing"),
                                            ("81435", "genetic testing")])
def test_a_service_category_names_a_procedure_by_its_clinical_area(code, category):
    assert service_category(code) == category


@pytest.mark.parametrize("code, mri", [("70553", True), ("72148", True), ("73721", True), ("74183", True),
                                       ("70450", False), ("95806", False), ("E0601", False)])
def test_mri_codes_are_cpts_magnetic_resonance_ranges(code, mri):
    assert is_mri(code) is mri


def test_the_suites_inpatient_stays_count_as_inpatient_not_mri():
    stays = {task.id: service_category(service_code(task)) for task in load_tasks(TASKS_ROOT)
             if task.template == "prior_auth/concurrent_review"}
    assert stays == {"pa-medium-13": "inpatient", "pa-hard-08": "inpatient"}


def test_the_suites_genetic_tests_count_as_their_own_category():
    tests = {task.id: service_category(service_code(task)) for task in load_tasks(TASKS_ROOT)
             if task.template == "prior_auth/genetic_testing"}
    assert tests == {"pa-easy-02": "genetic testing", "pa-medium-08": "genetic testing"}
