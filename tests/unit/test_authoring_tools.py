"""A designer's look-ups: `admindesk world ids` (the ids case rows and policy files name
things by) and `admindesk tasks affected --by FILE` (the tasks a change could affect)."""
from __future__ import annotations

import json
import shutil

import pytest
import yaml
from click.testing import CliRunner

from admindesk.envs.world import build_world
from admindesk.harness.cli.main import main
from admindesk.harness.task_tools.affected import REPOSITORY
from admindesk.schema.task_model import TASKS_ROOT, load_tasks


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def suite():
    return load_tasks(TASKS_ROOT)


def affected(path: str, *extra: str) -> dict:
    result = invoke("tasks", "affected", "--by", path, "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_world_ids_lists_every_kind_with_the_worlds_ids():
    result = invoke("world", "ids", "--json")
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    world = build_world()
    assert [row["id"] for row in listed["payers"]] == [payer.id for payer in world.payers]
    assert [row["id"] for row in listed["plans"]] == [plan.id for plan in world.plans]
    assert [row["id"] for row in listed["facilities"]] == [facility.id for facility in world.facilities]
    assert [row["id"] for row in listed["providers"]] == [provider.npi for provider in world.providers]
    assert [row["id"] for row in listed["suppliers"]] == [supplier.id for supplier in world.suppliers]


def test_world_ids_of_one_kind_as_text_names_what_each_id_is():
    result = invoke("world", "ids", "facilities")
    assert result.exit_code == 0 and result.output.startswith("facilities (")
    home = next(line for line in result.output.splitlines() if "FAC-HOM" in line)
    assert "place of service 12" in home and "payers" not in result.output


def test_world_ids_refuses_an_unknown_kind():
    result = invoke("world", "ids", "patients")
    assert result.exit_code == 2 and "'patients' is not one of" in result.output


def test_a_template_affects_its_tasks_and_a_task_file_only_itself(suite):
    found = affected("tasks/templates/prior_auth/no_auth_lookup.yaml.j2")
    assert found["tasks"] == sorted(t.id for t in suite if t.template == "prior_auth/no_auth_lookup") != []
    assert affected("harness/agents/reference/prior_auth/no_auth_lookup.py")["tasks"] == found["tasks"]
    assert affected(str(TASKS_ROOT / "dme" / "dme-easy-01.yaml"))["tasks"] == ["dme-easy-01"]
    selection = invoke("tasks", "affected", "--by", "tasks/templates/prior_auth/no_auth_lookup.yaml.j2", "--selection")
    assert selection.output.strip() == ",".join(found["tasks"])  # what `tasks check` and `run --tasks` take


def test_a_case_table_affects_the_tasks_of_its_rows(suite):
    table = "tasks/templates/appeals/easy.cases.yml"
    rows = yaml.safe_load((REPOSITORY / table).read_text(encoding="utf-8"))["rows"]
    found = affected(table)
    assert len(rows) >= 2 and found["tasks"] == sorted(row["id"] for row in rows)
    assert set(found["tasks"]) <= {t.id for t in suite if t.workflow == "appeals" and t.difficulty == "easy"}


def test_a_payer_portals_policy_affects_the_tasks_of_its_payers_and_the_world_every_task(suite):
    found = affected("envs/payer_portal_b/precert_service.py")
    keystone = {t.id for t in suite if t.case and any(c.payer == "PYR-KMH" for c in t.case.coverages)}
    assert keystone and keystone <= set(found["tasks"]) and "PYR-KMH" in found["reason"]
    assert len(affected("envs/world/claims.py")["tasks"]) == len(suite)


def test_affected_counts_task_paths_from_a_copy_of_tasks(tmp_path):
    copy = tmp_path / "tasks"
    shutil.copytree(TASKS_ROOT / "dme", copy / "dme")
    found = affected(str(copy / "dme" / "dme-hard-02.yaml"), "--tasks-dir", str(copy))
    assert found["tasks"] == ["dme-hard-02"]


def test_a_file_outside_the_repository_is_a_clear_error(tmp_path):
    outside = tmp_path / "notes.txt"
    result = invoke("tasks", "affected", "--by", str(outside))
    assert result.exit_code == 1 and f"{outside} is not a file of the repository" in result.output
    assert str(REPOSITORY) in result.output
