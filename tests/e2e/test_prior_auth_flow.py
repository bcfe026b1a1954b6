"""End to end, with the real apps: a prior authorization worked from EHR queue to payer portal
and back, through the public action space only, the way reference solutions will drive it."""
from __future__ import annotations

import re
import time
from datetime import datetime, timedelta

import pytest

from admindesk.envs.payer_portal_a.organizations import tax_id
from admindesk.harness.agents.scripted import ScriptedActor
from admindesk.harness.env.services import available_apps
from tests.e2e.prior_auth_case import (
    PORTAL_A_DOCUMENT_TYPE,
    PriorAuthCase,
    find_approvable_case,
    load_portal_a_policy,
    us_date,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not {"ehr_web", "payer_portal_a"} <= set(available_apps()),
                                 reason="needs the EHR and payer portal A apps")]

START_AT_EHR = {"id": "adhoc-prior-auth", "goal": "Obtain the prior authorization of a queued order",
                "start": {"app": "ehr_web", "path": "/", "login": True}, "max_steps": 150}
REQUESTED_DAYS = 60  # the span asked for: the planned date and the weeks after it


@pytest.fixture(scope="module")
def env():
    """One Env over the real apps for the module (they take ~10-15 s to start)."""
    from admindesk.harness.env.environment import Env

    with Env("screenshot", apps=["ehr_web", "payer_portal_a"]) as shared:
        yield shared


def fact(actor: ScriptedActor, label: str) -> str:
    """The value shown next to `label` in a definition list (the apps' fact panels)."""
    return actor.text(f"xpath=//dt[normalize-space()='{label}']/following-sibling::dd[1]")


def select_by_value(actor: ScriptedActor, selector: str, value: str) -> None:
    """Choose the option whose value is `value`, by typing its visible label."""
    label = actor.read(f"{selector} option[value='{value}']").inner_text().strip()
    actor.select_option(selector, label)


def open_work_item(actor: ScriptedActor, case: PriorAuthCase) -> None:
    """EHR: the Prior Auth queue, narrowed to the payer, paged until the item shows."""
    actor.click("nav.activitybar a:text-is('Prior Auth')")
    actor.select_option("select[name=payer]", case.payer_name)
    actor.click("button:text-is('Apply filters')")
    item_link = f"a[aria-label='Open item {case.work_item_id}']"
    while not actor.env.page_locator(item_link).count():
        actor.click("a[aria-label='Next page']")
    actor.click(item_link)


def read_order_and_download(actor: ScriptedActor, case: PriorAuthCase) -> dict:
    """EHR: read the item and its order, download each supporting document."""
    order = {"dob": fact(actor, "DOB"), "planned": fact(actor, "Planned date")}
    actor.click(f"a:text-is('{case.order_id}')")
    coverage = fact(actor, "Billing coverage")
    order.update(
        member_id=re.search(r"Member ID (\S+)", coverage).group(1), code=fact(actor, "Code").split()[0],
        units=fact(actor, "Units"), place_of_service=fact(actor, "Place of service"),
        diagnoses=", ".join(line.split()[0] for line in fact(actor, "Diagnoses").splitlines()),
        requesting_npi=fact(actor, "Provider NPI"), servicing_npi=fact(actor, "Facility NPI"))
    for document in case.documents:
        actor.click(f"a[aria-label='Download {document['title']} as PDF']")
    return order


def request_auth_in_portal_a(actor: ScriptedActor, case: PriorAuthCase, order: dict,
                             downloads: list[str]) -> dict:
    """Portal A in a new tab: log in, run the PA wizard, submit, read the determination."""
    actor.open_app("Payer Portal A", new_tab=True)
    actor.login()
    actor.click("nav.top-tabs a:text-is('Authorizations')")
    actor.click("nav.sub-tabs a:text-is('New Request')")
    # The header: the order's site submits under its own TIN, an outpatient request at its place of service.
    select_by_value(actor, "select[name=organization_npi]", order["servicing_npi"])
    select_by_value(actor, "select[name=tin]", tax_id(order["servicing_npi"]))
    actor.select_option("select[name=payer_id]", case.payer_name)
    actor.select_option("select[name=request_type]", "Outpatient")
    actor.select_option("select[name=service_type]", "Other outpatient service")
    select_by_value(actor, "select[name=place_of_service]", order["place_of_service"])
    actor.fill("input[name=member_id]", order["member_id"])
    actor.fill("input[name=dob]", order["dob"])
    actor.click("button:text-is('Next: Providers')")
    select_by_value(actor, "select[name=requesting_npi]", order["requesting_npi"])
    select_by_value(actor, "select[name=servicing_npi]", order["servicing_npi"])
    actor.click("button:text-is('Next: Services')")
    planned = datetime.strptime(order["planned"], "%m/%d/%Y").date()
    actor.fill("input[name=code]", order["code"])
    actor.fill("input[name=units]", order["units"])
    actor.fill("input[name=diagnosis_codes]", order["diagnoses"])
    actor.fill("input[name=from_date]", order["planned"])
    actor.fill("input[name=to_date]", us_date(planned + timedelta(days=REQUESTED_DAYS - 1)))
    select_by_value(actor, "select[name=place_of_service]", order["place_of_service"])
    actor.click("button:text-is('Add line')")
    actor.click("button:text-is('Next: Clinical questions')")
    for question, answer in case.answers.items():
        if actor.read(f"[name={question}]").evaluate("e => e.tagName") == "SELECT":
            actor.select_option(f"select[name={question}]", answer)
        else:
            actor.fill(f"input[name={question}]", answer)
    actor.click("button:text-is('Next: Attachments')")
    for document, file_name in zip(case.documents, downloads):
        actor.select_option("select[name=document_type]", PORTAL_A_DOCUMENT_TYPE[document["kind"]])
        if not actor.click("input[name=file]").file_dialog_open:
            raise AssertionError("clicking the file input did not open the file dialog")
        actor.choose_file(file_name)
        actor.click("button:text-is('Upload')")
    actor.click("button:text-is('Next: Review')")
    actor.click("input[name=attest]")
    actor.click("button:text-is('Submit request')")
    start, end = fact(actor, "Approved dates").split(" \u2013 ")
    return {"status": fact(actor, "Status"), "auth_number": fact(actor, "Authorization number"),
            "case_number": actor.text("h1").split()[1], "units": fact(actor, "Approved units"),
            "start": start, "end": end}


def record_auth_in_ehr(actor: ScriptedActor, case: PriorAuthCase, decision: dict) -> None:
    """Back in the EHR tab: the order's Authorization section, then the work item's status."""
    actor.switch_to_tab(0)
    actor.select_option("select[name=status]", "Approved")
    actor.select_option("select[name=payer_id]", case.payer_name)
    actor.fill("input[name=auth_number]", decision["auth_number"])
    actor.fill("input[name=reference_number]", decision["case_number"])
    actor.fill("input[name=approved_units]", decision["units"])
    actor.fill("input[name=start_date]", decision["start"])
    actor.fill("input[name=end_date]", decision["end"])
    actor.click("button:text-is('Save authorization')")
    actor.click(f"a:text-is('Prior Auth item {case.work_item_id}')")
    actor.click("button:text-is('Change status…')")
    actor.select_option("#status-dialog select[name=status]", "Auth Obtained")
    actor.click("#status-dialog button:text-is('Save status')")


def test_prior_auth_from_ehr_queue_to_portal_a_and_back(env):
    env.reset(START_AT_EHR)
    case = find_approvable_case(env.initial_snapshots["ehr_web"],
                                env.initial_snapshots["payer_portal_a"], load_portal_a_policy())
    actor = ScriptedActor(env)
    started = time.perf_counter()

    open_work_item(actor, case)
    order = read_order_and_download(actor, case)
    assert (order["member_id"], order["code"]) == (case.member_id, case.code)
    downloads = env.downloaded_files()
    assert [f.sha256 for f in downloads] == [d["sha256"] for d in case.documents]
    decision = request_auth_in_portal_a(actor, case, order, [f.name for f in downloads])
    assert decision["status"] == "Approved", decision
    record_auth_in_ehr(actor, case, decision)
    actor.do({"type": "done", "answer": f"auth {decision['auth_number']}"})
    print(f"\nprior auth flow: {len(env.record().trajectory) - 1} steps, "
          f"{time.perf_counter() - started:.1f} s")

    record = env.record()
    portal, ehr = record.final_snapshots["payer_portal_a"], record.final_snapshots["ehr_web"]
    request = next(r for r in portal["pa_requests"] if r["auth_number"] == decision["auth_number"])
    assert (request["status"], request["member_id"]) == ("Approved", case.member_id)
    assert [line["code"] for line in portal["pa_service_lines"]
            if line["request_id"] == request["id"]] == [case.code]
    attachments = [a for a in portal["pa_attachments"] if a["request_id"] == request["id"]]
    # `sha256` is the portal's own column; `content` is the stored bytes, hashed by the snapshot.
    assert [a["sha256"] for a in attachments] == [f.sha256 for f in downloads] \
        == [d["sha256"] for d in case.documents]
    assert [a["content"] for a in attachments] == [f"sha256:{f.sha256}" for f in downloads]
    authorization = next(a for a in ehr["order_authorizations"] if a["order_id"] == case.order_id)
    assert (authorization["auth_number"], authorization["status"]) == (decision["auth_number"], "Approved")
    item = next(w for w in ehr["work_items"] if w["id"] == case.work_item_id)
    assert item["status"] == "Auth Obtained"
    events = [e for e in ehr["audit_events"] if e["username"] == "coordinator"]
    assert any(e["action"] == "view" and e["record_id"] == case.order_id for e in events)
    for document in case.documents:
        assert any(e["record_id"] == document["id"] and "download" in e["action"] for e in events)


def test_noop_episode_leaves_the_order_without_an_auth_number(env):
    env.reset(START_AT_EHR)
    case = find_approvable_case(env.initial_snapshots["ehr_web"],
                                env.initial_snapshots["payer_portal_a"], load_portal_a_policy())
    env.step({"type": "done"})
    ehr = env.record().final_snapshots["ehr_web"]
    authorization = next(a for a in ehr["order_authorizations"] if a["order_id"] == case.order_id)
    assert authorization["auth_number"] is None
    assert next(w for w in ehr["work_items"] if w["id"] == case.work_item_id)["status"] == "New"
