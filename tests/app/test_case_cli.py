"""`admindesk tasks case ID`: what a task's case puts in each app, read without serving anything."""
from __future__ import annotations

from click.testing import CliRunner

from admindesk.harness.cli.main import main
from tests.cases.examples import TASKS_DIR

from .conftest import TEMPLATE_CACHE


def run(*args):
    return CliRunner().invoke(main, ["tasks", "case", *args, "--tasks-dir", str(TASKS_DIR),
                                     "--cache-dir", str(TEMPLATE_CACHE)])


def test_case_lists_the_rows_each_app_gets():
    result = run("case-denial-auth-on-file")
    assert result.exit_code == 0, result.output
    sections = dict(part.split(":", 1) for part in result.output.split("\n") if part and not part.startswith(" "))
    assert sections["payer_portal_b"].strip().startswith("0 row(s)") and sections["fax"].strip().startswith("0 row")
    lines = result.output.splitlines()
    assert any(line.split()[:2] == ["patients", "E0390100"] and "last_name=Brennan" in line for line in lines)
    assert any(line.split()[0] == "claim_adjustments" and "carc=197" in line for line in lines)
    assert any(line.split()[0] == "members" and "member_id=ACH0390100" in line for line in lines)


def test_an_unknown_task_is_a_clear_error():
    result = run("no-such-task")
    assert result.exit_code != 0 and "unknown task 'no-such-task'" in result.output
