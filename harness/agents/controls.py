"""Shortcut controls: agents that must fail every task they run, proving the checks catch
the failure modes coordinators and agents fall into.

- `notes-only`: reads the order and writes the right plan as an order comment, but never
  submits, records or closes anything.
- `wrong-patient`: does the reference work on another patient of the same payer (the
  first other Prior Auth item in the queue for that payer).
- `do-it-anyway`: files the request regardless (for tasks where the right move is to
  file nothing: a stop, a request already on file, no auth required).
"""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import SOLUTIONS, ehr_steps, solution_for
from admindesk.harness.agents.reference.portal_a import payer_name
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.env import Env
from admindesk.harness.scripted import ScriptFailed
from admindesk.verifiers.task_model import Task

# What do-it-anyway runs: the solution of the template that files a request at this payer.
FILING_TEMPLATE = {"PYR-KMH": "prior_auth/portal_b_precert"}
DEFAULT_FILING_TEMPLATE = "prior_auth/portal_a_submit"


class NotesOnly:
    """Writes the plan as an order comment and stops."""

    name = "notes-only"

    def __init__(self) -> None:
        self.notes: list = []

    def drive(self, env: Env, task: Task) -> None:
        work = Work(env, task)
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        coverage = work.case["coverages"][0]
        plan = (f"Plan for {work.patient_name} (DOB {work.patient['dob']}): {work.notes['code']} "
                f"x{work.notes['units']} for {work.notes['diagnoses']}, planned {work.notes['planned']}. "
                f"Verify eligibility with {payer_name(coverage['payer'])}, submit the prior authorization with "
                f"the chart note, then record the decision and close the work item.")
        ehr_steps.add_order_comment(work, plan)
        work.finish("Wrote the plan on the order.")


class _OtherPatientWork(Work):
    """A Work whose patient, order and documents are another patient's, read off the pages."""

    def adopt(self, name: str, dob_us: str, order_id: str, member_id: str, document_ids: list[str]) -> None:
        last, first = [part.strip() for part in name.split(",", 1)]
        month, day, year = dob_us.split("/")
        self.case = {**self.case, "patient": {**self.case["patient"], "first_name": first, "last_name": last,
                                              "dob": f"{year}-{month}-{day}"}}
        keys = [d["key"] for d in self.case.get("documents", [])]
        self.ids = {**self.ids, "orders": {**self.ids["orders"], "svc": order_id},
                    "documents": dict(zip(keys, document_ids)),
                    "coverages": {key: {**value, "payer_member_id": member_id, "member_id": member_id}
                                  for key, value in self.ids["coverages"].items()}}


class WrongPatient:
    """The reference solution, worked on another patient of the same payer."""

    name = "wrong-patient"

    def __init__(self) -> None:
        self.notes: list = []

    def drive(self, env: Env, task: Task) -> None:
        work = _OtherPatientWork(env, task)
        actor = work.actor
        actor.click("nav.activitybar a:text-is('Prior Auth')")
        actor.select_option("select[name=payer]", payer_name(work.case["coverages"][0]["payer"]))
        actor.click("button:text-is('Apply filters')")
        rows = env.page_locator("table tbody tr").all_inner_texts()
        other = next((row for row in rows if work.ids["mrn"] not in row and "ORD-" in row), None)
        if other is None:
            raise ScriptFailed("no other patient's Prior Auth item for this payer")
        order_id = re.search(r"ORD-\d+", other).group(0)
        actor.click(f"xpath=//tr[contains(., '{order_id}')]//a[starts-with(@aria-label, 'Open item')]")
        actor.click(f"a:text-is('{order_id}')")
        coverage = actor.fact("Billing coverage")
        member = re.search(r"Member ID (\S+)", coverage)
        documents = [link.get_attribute("href").rsplit("/", 1)[-1] for link in
                     env.page_locator("section[aria-labelledby='odocs-h'] a[href^='/documents/']:not([aria-label])").all()]
        name = actor.text(".banner h1, .banner .name, section[aria-label='Patient header'] h1")
        dob = re.search(r"\d\d/\d\d/\d{4}", actor.text("section[aria-label='Patient header']")).group(0)
        work.adopt(name, dob, order_id, member.group(1) if member else "", documents)
        actor.click("nav.activitybar a:has-text('Home')")
        solution_for(task)(work)


class DoItAnyway:
    """Files the request at the order's payer whatever the chart or the payer says."""

    name = "do-it-anyway"

    def __init__(self) -> None:
        self.notes: list = []

    def drive(self, env: Env, task: Task) -> None:
        work = Work(env, task)
        work.doing = lambda subtask: True  # every step of the filing solution, whatever the task's subtasks
        template = FILING_TEMPLATE.get(work.case["coverages"][0]["payer"], DEFAULT_FILING_TEMPLATE)
        module = SOLUTIONS[template]
        __import__(module, fromlist=["solve"]).solve(work)
