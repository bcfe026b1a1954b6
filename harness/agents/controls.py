"""Shortcut controls: agents that must fail every task they run, proving the checks catch
the failure modes coordinators and agents fall into.

- `notes-only`: finds the patient and writes the right plan as a chart note, but never
  submits, records or closes anything.
- `wrong-patient`: does the reference work on another patient of the same payer (the
  first other item in the workflow's queue for that payer), as far as it gets.
- `do-it-anyway`: files the request regardless (for tasks where the right move is to
  file nothing: a stop, a request already on file, no auth required).
"""
from __future__ import annotations

import re

from playwright.sync_api import Error as PlaywrightError

from admindesk.harness.agents.reference import (
    api_solution_for,
    ehr_steps,
    fhir_calls,
    solution_for,
    solution_of_template,
)
from admindesk.harness.agents.reference.api_work import ApiWork
from admindesk.harness.agents.reference.portal_a import payer_name
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed
from admindesk.harness.env.environment import Env
from admindesk.schema.task_model import Task

# What do-it-anyway runs: the solution of the template that files at this payer, by workflow
# (Keystone Mutual has its own portal; the other payers are on portal A).
FILING_TEMPLATE = {
    ("prior_auth", "PYR-KMH"): "prior_auth/portal_b_precert", ("prior_auth", None): "prior_auth/portal_a_submit",
    ("appeals", None): "appeals/portal_appeal",
    ("dme", "PYR-KMH"): "dme/portal_b_request", ("dme", None): "dme/supplier_packet",
}


def filing_template(task: Task, payer: str) -> str:
    """The template whose solution files this workflow's request or appeal at `payer`."""
    return FILING_TEMPLATE.get((task.workflow, payer)) or FILING_TEMPLATE[(task.workflow, None)]


# The EHR work queue each workflow's items sit in, and how its rows name the item.
WORK_QUEUE = {"prior_auth": ("Prior Auth", r"ORD-\d+"), "dme": ("DME", r"ORD-\d+"),
              "appeals": ("Denials", r"CLM[\w-]+")}
# The same queues as the EHR's FHIR API codes its Task resources.
API_QUEUE = {"prior_auth": "prior-auth", "dme": "dme", "appeals": "denials"}
STOPPED = (ScriptFailed, LookupError, PlaywrightError)  # a control that cannot go on stops, as a stuck agent would


def plan_text(work: Work) -> str:
    """The right plan for the case, as a coordinator would jot it down: the task's own steps."""
    steps = " ".join(f"{n}. {step}" for n, step in enumerate(work.task.guidance, start=1))
    return f"Plan for {work.patient_name} (DOB {work.patient['dob']}): {work.task.goal} {steps}"


class NotesOnly:
    """Writes the plan as a patient note in the EHR chart and stops."""

    name = "notes-only"

    def __init__(self) -> None:
        self.notes: list = []

    def drive(self, env: Env, task: Task) -> None:
        if on_api(env):
            work = ApiWork(env, task)
            mrn = fhir_calls.find_patient(work)
            fhir_calls.add_note(work, mrn, None, plan_text(work))
        else:
            work = Work(env, task)
            ehr_steps.open_chart(work)
            ehr_steps.add_patient_note(work, plan_text(work))
        work.finish("Wrote the plan in the chart.")


def on_api(env) -> bool:
    """Whether the episode runs on the API channel (ApiEnv) rather than the screens."""
    return getattr(env, "channel", "screens") == "api"


class _OtherPatientWork(Work):
    """A Work whose patient and work item are another patient's, read off the pages."""

    def adopt(self, name: str, dob_us: str, mrn: str, item_id: str, order_id: str, member_id: str,
              document_ids: list[str]) -> None:
        last, first = [part.strip() for part in name.split(",", 1)]
        month, day, year = dob_us.split("/")
        self.case = {**self.case, "patient": {**self.case["patient"], "first_name": first, "last_name": last,
                                              "dob": f"{year}-{month}-{day}"}}
        keys = [d["key"] for d in self.case.get("documents", [])]
        claims = {key: item_id for key in self.ids["claims"]} if item_id.startswith("CLM") else self.ids["claims"]
        self.ids = {**self.ids, "mrn": mrn, "orders": {key: order_id for key in self.ids["orders"]}, "claims": claims,
                    "documents": dict(zip(keys, document_ids)),
                    "coverages": {key: {**value, "payer_member_id": member_id, "member_id": member_id}
                                  for key, value in self.ids["coverages"].items()}}


class WrongPatient:
    """The reference solution, worked on another patient of the same payer in the same queue."""

    name = "wrong-patient"

    def __init__(self) -> None:
        self.notes: list = []

    def drive(self, env: Env, task: Task) -> None:
        api = on_api(env)
        work = _OtherPatientApiWork(env, task) if api else _OtherPatientWork(env, task)
        try:
            if api:
                self._adopt_other_patient_api(work)
                api_solution_for(task)(work)
            else:
                self._adopt_other_patient(env, work)
                solution_for(task)(work)
        except STOPPED as stuck:
            if not env.episode_over:
                work.finish(f"Stopped: {stuck}")

    @staticmethod
    def _adopt_other_patient(env: Env, work: _OtherPatientWork) -> None:
        actor = work.actor
        queue, item_pattern = WORK_QUEUE[work.task.workflow]
        actor.click(f"nav.activitybar a:text-is('{queue}')")
        actor.select_option("select[name=payer]", payer_name(work.case["coverages"][0]["payer"]))
        actor.click("button:text-is('Apply filters')")
        rows = env.page_locator("table tbody tr").all_inner_texts()
        other = next((row for row in rows if work.ids["mrn"] not in row and re.search(item_pattern, row)), None)
        if other is None:
            raise ScriptFailed(f"no other patient's {queue} item for this payer")
        item_id = re.search(item_pattern, other).group(0)
        actor.click(f"xpath=//tr[contains(., '{item_id}')]//a[starts-with(@aria-label, 'Open item')]")
        name, dob, mrn = actor.fact("Patient"), actor.fact("DOB"), actor.fact("MRN")
        order_id = actor.fact("Order #")  # every item page shows the order the work is about
        actor.click(f"a:text-is('{order_id}')")
        found = re.search(r"Member ID (\S+)", actor.fact("Billing coverage"))
        member = found.group(1) if found else ""
        documents = [link.get_attribute("href").rsplit("/", 1)[-1] for link in env.page_locator(
            "section[aria-labelledby='odocs-h'] a[href^='/documents/']:not([aria-label])").all()]
        work.adopt(name, dob, mrn, item_id, order_id, member, documents)
        actor.click("nav.activitybar a:has-text('Home')")


    @staticmethod
    def _adopt_other_patient_api(work: "_OtherPatientApiWork") -> None:
        """The first open item of the workflow's queue whose order is billed to this payer, for
        another patient, read over the EHR's FHIR API."""
        payer, mine = work.case["coverages"][0]["payer"], work.ids["mrn"]
        for item in fhir_calls.search(work, "ehr", "Task", code=API_QUEUE[work.task.workflow], status="requested",
                                      _count="20"):
            mrn = item["for"]["reference"].split("/", 1)[1]
            if mrn == mine or item["status"] == "completed" or "focus" not in item:
                continue
            order = work.get("ehr", f"/fhir/{item['focus']['reference']}")
            coverage = work.get("ehr", f"/fhir/{order['insurance'][0]['reference']}") if order.get("insurance") else {}
            if not any(p.get("reference") == f"Organization/{payer}" for p in coverage.get("payor", [])):
                continue
            patient = work.get("ehr", f"/fhir/Patient/{mrn}")
            year, month, day = patient["birthDate"].split("-")
            documents = [d["id"] for d in fhir_calls.search(work, "ehr", "DocumentReference", patient=mrn)]
            work.adopt(f"{patient['name'][0]['family']}, {patient['name'][0]['given'][0]}", f"{month}/{day}/{year}",
                       mrn, item["id"], order["id"], coverage["subscriberId"], documents)
            return
        raise ScriptFailed(f"no other patient's {work.task.workflow} item for {payer}")


class _OtherPatientApiWork(_OtherPatientWork, ApiWork):
    """Another patient's work item, worked through the APIs."""


class DoItAnyway:
    """Files the request at the order's payer whatever the chart or the payer says."""

    name = "do-it-anyway"

    def __init__(self) -> None:
        self.notes: list = []

    def drive(self, env: Env, task: Task) -> None:
        work = Work(env, task)
        work.doing = lambda subtask: True  # every step of the filing solution, whatever the task's subtasks
        solve = solution_of_template(filing_template(task, work.case["coverages"][0]["payer"]))
        try:
            solve(work)
        except STOPPED as refused:  # the payer refused the filing: what it left behind is scored
            if not env.episode_over:
                work.finish(f"Stopped: {refused}")
