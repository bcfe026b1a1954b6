"""Task skills: a closed vocabulary (documented in docs/authoring.md) that the loader and the
case tables enforce, that `tasks list`/`run --tasks` select on, and that every suite task has."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.cli.run import select_tasks
from admindesk.harness.task_tools.generation import GenerationError, read_table
from admindesk.harness.task_tools.suite import suite_problems
from admindesk.schema.skills import SKILLS
from admindesk.schema.task_model import Task, TaskFileError, load_task_file

AUTHORING = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"
TASKS = [{"id": "pa-1", "workflow": "prior_auth", "template": "prior_auth/portal_a_submit",
          "skills": ["portal_submission", "cob"]},
         {"id": "pa-2", "workflow": "prior_auth", "template": "prior_auth/stop_and_document",
          "skills": ["stop_and_document"]},
         {"id": "dme-1", "workflow": "dme", "template": "dme/stop_and_document", "skills": ["stop_and_document"]},
         {"id": "ap-1", "workflow": "appeals", "template": "appeals/cob_corrected_claim",
          "skills": ["corrected_claim", "cob"]}]


def test_the_documented_vocabulary_is_the_one_the_loader_enforces():
    documented = re.findall(r"^\| `([a-z0-9_]+)` \|", AUTHORING.read_text(encoding="utf-8"), flags=re.M)
    assert documented == list(SKILLS)


def test_a_task_file_with_an_unknown_skill_is_refused_naming_file_field_and_skill(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"id": "bad", "skills": ["level1_appeal", "level3_appeal"]}), encoding="utf-8")
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    message = str(caught.value)
    assert str(path) in message and "skills.1" in message and "unknown skill 'level3_appeal'" in message
    assert "docs/authoring.md" in message


def test_a_skill_listed_twice_is_refused():
    with pytest.raises(ValueError, match="skill cob is listed twice"):
        Task.model_validate({"id": "twice", "skills": ["cob", "corrected_claim", "cob"]})


def test_a_case_row_with_an_unknown_skill_is_refused_naming_the_row(tmp_path):
    table = tmp_path / "easy.cases.yml"
    table.write_text(yaml.safe_dump({"rows": [{"id": "pa-x-01", "template": "portal_a_submit", "difficulty": "easy",
                                               "skills": ["peer2peer"], "case": {}}]}), encoding="utf-8")
    with pytest.raises(GenerationError, match=r"row pa-x-01: skills\.0: .*unknown skill 'peer2peer'"):
        read_table(table)


def test_a_workflow_task_without_skills_is_a_suite_problem():
    problems = suite_problems([Task.model_validate({"id": "pa-none", "workflow": "prior_auth"})])
    assert any(problem.startswith("pa-none: no skills") for problem in problems)
    assert not any("no skills" in problem for problem in suite_problems([Task(id="adhoc-1")]))


def test_selection_filters_on_skill_and_on_template_by_either_name():
    tasks = [Task.model_validate(task) for task in TASKS]
    assert [t.id for t in select_tasks("skill=cob", tasks)] == ["pa-1", "ap-1"]
    assert [t.id for t in select_tasks("skill=cob,workflow=appeals", tasks)] == ["ap-1"]
    assert [t.id for t in select_tasks("skill=cob,skill=stop_and_document", tasks)] == ["pa-1", "pa-2", "dme-1", "ap-1"]
    assert [t.id for t in select_tasks("template=stop_and_document", tasks)] == ["pa-2", "dme-1"]
    assert [t.id for t in select_tasks("template=dme/stop_and_document", tasks)] == ["dme-1"]
    with pytest.raises(ValueError, match="no skill 'cobb'"):
        select_tasks("skill=cobb", tasks)


def test_tasks_list_selects_like_run_and_gives_template_and_skills(tmp_path):
    for task in TASKS:
        (tmp_path / f"{task['id']}.yaml").write_text(yaml.safe_dump(task), encoding="utf-8")
    result = CliRunner().invoke(main, ["tasks", "list", "skill=cob", "--tasks-dir", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["tasks"]
    assert [(row["id"], row["template"], row["skills"]) for row in rows] == [
        ("ap-1", "appeals/cob_corrected_claim", ["corrected_claim", "cob"]),
        ("pa-1", "prior_auth/portal_a_submit", ["portal_submission", "cob"])]
    refused = CliRunner().invoke(main, ["tasks", "list", "colour=red", "--tasks-dir", str(tmp_path)])
    assert refused.exit_code == 1 and "cannot filter on 'colour'" in refused.output
