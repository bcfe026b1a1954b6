"""The `reference` agent: one scripted solution per task template, parametrised by the
task's case, acting only through `Env.step` (see work.py).

`make_agent("reference", skip="<subtask id>")` leaves one subtask's actions out (ablation).
"""
from __future__ import annotations

import importlib

from admindesk.harness.agents.reference.work import SkippedPhase, Work
from admindesk.harness.env.environment import Env
from admindesk.schema.task_model import Task

# Template ("workflow/name") -> module with `solve(work)`. A template missing here has no solution yet.
SOLUTIONS = {
    "prior_auth/portal_b_precert": "admindesk.harness.agents.reference.prior_auth.portal_b_precert",
    "prior_auth/portal_a_submit": "admindesk.harness.agents.reference.prior_auth.portal_a_submit",
    "prior_auth/pended_documents": "admindesk.harness.agents.reference.prior_auth.pended_documents",
    "prior_auth/stop_and_document": "admindesk.harness.agents.reference.prior_auth.stop_and_document",
    "prior_auth/no_auth_lookup": "admindesk.harness.agents.reference.prior_auth.no_auth_lookup",
    "prior_auth/fax_precert": "admindesk.harness.agents.reference.prior_auth.fax_precert",
    "prior_auth/request_on_file": "admindesk.harness.agents.reference.prior_auth.request_on_file",
    "appeals/past_deadline": "admindesk.harness.agents.reference.appeals.past_deadline",
    "appeals/duplicate_denial": "admindesk.harness.agents.reference.appeals.duplicate_denial",
    "appeals/fax_appeal": "admindesk.harness.agents.reference.appeals.fax_appeal",
    "appeals/portal_appeal": "admindesk.harness.agents.reference.appeals.portal_appeal",
    "appeals/corrected_claim": "admindesk.harness.agents.reference.appeals.corrected_claim",
    "appeals/cob_corrected_claim": "admindesk.harness.agents.reference.appeals.cob_corrected_claim",
    "dme/portal_b_request": "admindesk.harness.agents.reference.dme.portal_b_request",
    "dme/stop_and_document": "admindesk.harness.agents.reference.dme.stop_and_document",
    "dme/supplier_packet": "admindesk.harness.agents.reference.dme.supplier_packet",
}


def solution_for(task: Task):
    """The `solve` function of the task's template; LookupError when there is none."""
    name = task.template or ""
    if name not in SOLUTIONS:
        raise LookupError(f"no reference solution for template {task.template!r} (task {task.id})")
    return importlib.import_module(SOLUTIONS[name]).solve


class ReferenceAgent:
    """Drives the Env through the task's template solution; `skip` ablates one subtask."""

    name = "reference"

    def __init__(self, skip: str | None = None) -> None:
        self.skip = skip
        self.notes: list = []

    def drive(self, env: Env, task: Task) -> None:
        """Run the episode to its end (a `done` action).

        In an ablation, a step that needs what the skipped subtask would have read stops the
        work there, as a coordinator missing that fact would; the state so far is scored."""
        work = Work(env, task, skip=self.skip)
        try:
            solution_for(task)(work)
        except SkippedPhase as missing:
            if env.episode_over:
                raise
            work.finish(f"Stopped: {missing}")
