"""The authoring guide's example, executed: its policy entry changes what the portal answers,
and its commands draft, render, validate and build the example task (in a copy of tasks/)."""
from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from admindesk.envs.payer_portal_a.policy import POLICY_FILE, PolicyError, parse_policy
from admindesk.harness.cli.main import main
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"
EXAMPLE = re.compile(r"<!-- example: (\w+)(?: ([\w.-]+))? -->\n```\w+\n(.*?)```", re.DOTALL)


def examples(kind: str) -> list[tuple[str | None, str]]:
    """The guide's example blocks of `kind`: (label, text)."""
    return [(label or None, text) for found, label, text in EXAMPLE.findall(GUIDE.read_text()) if found == kind]


def run_commands(block: str, tasks_dir: Path) -> list[str]:
    """Run each `admindesk ...` line of a block against `tasks_dir`; their outputs."""
    outputs = []
    for line in block.strip().splitlines():
        argv = shlex.split(line.split("#")[0])
        assert argv[0] == "admindesk", line
        result = CliRunner().invoke(main, [*argv[1:], "--tasks-dir", str(tasks_dir)])
        assert result.exit_code == 0, f"{line}\n{result.output}"
        outputs.append(result.output)
    return outputs


def test_the_guides_policy_entry_exempts_one_payers_hmo_home_tests_only():
    [(code, entry)] = examples("policy")
    data = yaml.safe_load(POLICY_FILE.read_text())
    raw = data["services"][code]
    data["services"][code] = {**raw, "exceptions": [*raw.get("exceptions", []), *yaml.safe_load(entry)]}
    before = parse_policy(yaml.safe_load(POLICY_FILE.read_text())).service(code)
    after = parse_policy(data).service(code)
    assert before.requires_auth("HMO", "12", "PYR-NWH") and not after.requires_auth("HMO", "12", "PYR-NWH")
    assert after.requires_auth("HMO", "19", "PYR-NWH")  # the sleep lab still needs authorization
    assert after.requires_auth("HMO", "12", "PYR-CSH")  # the other payers' rules are their own
    assert not after.requires_auth("PPO", "19", "PYR-CSH")  # the old exemptions stay


@pytest.mark.parametrize("where, edit", [
    ("services.95806.exceptions[0]", lambda data: data["services"]["95806"]["exceptions"][0].update(product=["HMO"])),
    ("services.95806", lambda data: data["services"]["95806"].update(auth_requried=False)),
    ("services.95806.approval", lambda data: data["services"]["95806"]["approval"].update(weeks=4)),
    ("questionnaires.sleep_study", lambda data: data["questionnaires"]["sleep_study"].update(titel="x")),
    ("(top level)", lambda data: data.update(service={})),
])
def test_an_unknown_key_in_the_policy_file_is_an_error_naming_where(where, edit):
    data = yaml.safe_load(POLICY_FILE.read_text())
    edit(data)
    with pytest.raises(PolicyError, match=re.escape(f"medical_policy.yaml: {where}: unknown key")):
        parse_policy(data)


@pytest.mark.slow
def test_the_guides_example_task_is_drafted_rendered_validated_and_built(tmp_path):
    tasks_dir = tmp_path / "tasks"
    shutil.copytree(TASKS_ROOT, tasks_dir)
    draft_commands, later_commands = [text for _, text in examples("commands")]
    [(task_id, case_text)] = examples("case")

    run_commands(draft_commands, tasks_dir)
    table = tasks_dir / "templates" / "prior_auth" / "authored.cases.yml"
    rows = yaml.safe_load(table.read_text())
    [row] = [row for row in rows["rows"] if row["id"] == task_id]
    row["case"] = yaml.safe_load(case_text)  # the guide's edit of the drafted row
    table.write_text(yaml.safe_dump(rows, sort_keys=False))
    generated, validated, case_rows = run_commands(later_commands, tasks_dir)

    assert f"prior_auth/{task_id}.yaml" in generated
    assert "valid" in validated
    assert "ehr_web:" in case_rows and "orders" in case_rows
    task = next(task for task in load_tasks(tasks_dir) if task.id == task_id)
    assert task.template == "prior_auth/no_auth_lookup"
    assert "Rosalind Achterberg" in task.goal
    assert task.case.coverages[0].plan == "PLN-NWH-HMO" and task.case.orders[0].facility == "FAC-HOM"


@pytest.mark.parametrize("template,task_id,message", [
    ("prior_auth/no_such_template", "pa-new-01", "no template"),
    ("billing/no_auth_lookup", "pa-new-01", "<workflow>/<name>"),
    ("prior_auth/no_auth_lookup", "pa-easy-09", "is taken"),
    ("prior_auth/no_auth_lookup", "PA New", "lowercase letters"),
])
def test_tasks_new_refuses_bad_input_and_writes_nothing(tmp_path, template, task_id, message):
    tasks_dir = tmp_path / "tasks"
    shutil.copytree(TASKS_ROOT, tasks_dir)
    before = sorted(str(path) for path in tasks_dir.rglob("*"))
    result = CliRunner().invoke(main, ["tasks", "new", "--tasks-dir", str(tasks_dir),
                                       "--template", template, "--id", task_id])
    assert result.exit_code == 1 and message in result.output
    assert sorted(str(path) for path in tasks_dir.rglob("*")) == before
