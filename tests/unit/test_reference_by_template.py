"""A template's reference solution is found by its name: `reference/<workflow>/<name>.py`, or
`reference/<workflow>/<group>/<name>.py` in a subfolder of its workflow."""
from __future__ import annotations

from pathlib import Path

import pytest

from admindesk.harness.agents.reference import solution_of_template
from admindesk.schema.task_model import TASKS_ROOT

TEMPLATES = sorted(f"{path.parent.name}/{path.name.removesuffix('.yaml.j2')}"
                   for path in Path(TASKS_ROOT, "templates").glob("*/*.yaml.j2"))


def test_the_suite_has_templates():
    assert len(TEMPLATES) >= 16


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_has_a_solution(template):
    assert callable(solution_of_template(template))


def test_a_solution_in_a_workflow_subfolder_is_found():
    solve = solution_of_template("prior_auth/site_of_care")
    assert solve.__module__.endswith(".prior_auth.clinical_criteria.site_of_care")


@pytest.mark.parametrize("template", ["dme/no_such_template", "prior_auth/clinical_criteria", "no_workflow/supplier_packet", "dme/steps",
                                      "../dme/supplier_packet", "", "dme"])
def test_a_name_without_a_solution_is_a_lookup_error(template):
    with pytest.raises(LookupError, match="no reference solution for template"):
        solution_of_template(template)
