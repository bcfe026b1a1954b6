"""A suite task through BrowserGym unchanged: two tabs, values read off one app's screen
and typed into another, rubric checks judged by a model judge over loopback HTTP; and a
PDF uploaded with BrowserGym's own `upload_file` action, stored by the app.

pa-easy-17 (template prior_auth/request_on_file): the request is already approved at the
payer. The EHR order holds the payer's case number; portal A, in a second tab, shows the
decision; it is copied onto the order, the order gets a comment, the work item is closed
and nothing is filed.
"""
from __future__ import annotations

import hashlib
import json

import pytest

pytest.importorskip("browsergym.core")

import gymnasium  # noqa: E402

from admindesk.envs.common.documents.pdf import render_pdf  # noqa: E402
from admindesk.harness.env.environment import DEFAULT_PASSWORD, DEFAULT_USERNAME  # noqa: E402
from admindesk.harness.integrations import browsergym as browsergym_adapter
from tests.integrations.browsergym_steps import BrowserGymSteps  # noqa: E402
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TASK = "browsergym/admindesk.pa-easy-17"
CHAT = "/v1/chat/completions"
RATIONALE = "The text gives the approval on file, its number and dates, and no resubmission."
PATIENT, DOB = "Brzezinski, Yolanda", "04/22/1958"


@pytest.fixture(scope="module", autouse=True)
def browsergym_driver_released():
    """Later tests in this process start Playwright drivers of their own in this thread."""
    yield
    browsergym_adapter.release_browsergym_driver()


@pytest.fixture
def passing_judge():
    """A judge spec for a loopback OpenAI-protocol server that passes every rubric."""
    with ProtocolServer() as server:
        server.respond(CHAT, lambda request: json_reply(chat_completion(
            json.dumps({"verdict": "pass", "reason": RATIONALE}))))
        yield server, f"openai-compatible:{server.url}/v1#loopback-judge"


def open_order(steps: BrowserGymSteps) -> None:
    """EHR: Patient Search by name, the row with the patient's DOB, Orders, the order."""
    steps.click("nav.activitybar a:has-text('Patient Search')")
    steps.fill("input[name=name]", PATIENT)
    steps.click("form[action='/patients'] button:text-is('Search')")
    steps.click(f"xpath=//tr[td[normalize-space()='{DOB}']]//a")
    steps.click("nav[aria-label='Chart sections'] a:text-is('Orders')")
    steps.click("main table a:has-text('ORD-')")


def look_up_on_portal_a(steps: BrowserGymSteps, portal_url: str, case_number: str) -> dict[str, str]:
    """A second tab: sign in to portal A, find the case; its determination as shown."""
    steps.step("new_tab()")
    steps.step(f"goto({portal_url!r})")
    steps.fill("input[name=username]", DEFAULT_USERNAME)
    steps.fill("input[name=password]", DEFAULT_PASSWORD)
    steps.click("form:has(input[name=username]) button[type=submit]")
    steps.fill("#quick-case", case_number)
    steps.click("form:has(#quick-case) button:text-is('Find case')")
    assert steps.text("main h1").split()[1] == case_number
    start, end = steps.fact("Approved dates").split("\u2013")
    return {"status": steps.fact("Status"), "auth_number": steps.fact("Authorization number"),
            "units": steps.fact("Approved units"), "start": start.strip(), "end": end.strip()}


def test_pa_easy_17_in_two_tabs_scores_1_with_a_judge_and_an_immediate_answer_scores_0(passing_judge):
    server, judge = passing_judge
    env = gymnasium.make(TASK, task_kwargs={"judge": judge})
    steps = BrowserGymSteps(env)
    try:
        obs, info = env.reset()
        assert "Yolanda Brzezinski" in obs["goal"]
        open_order(steps)
        case_number = steps.page.locator("input[name=reference_number]").input_value()
        payer = steps.fact("Billing coverage").split(" (")[0]
        assert case_number and payer == "Atlas Choice Health"

        decision = look_up_on_portal_a(steps, info["task_info"]["apps"]["payer_portal_a"], case_number)
        assert decision["status"] == "Approved" and decision["auth_number"]
        obs = steps.last[0]
        assert len(obs["open_pages_urls"]) == 2 and obs["active_page_index"][0] == 1

        steps.step("tab_focus(0)")  # back to the EHR order, typed from what portal A showed
        assert "/orders/" in steps.page.url
        steps.select("select[name=status]", decision["status"])
        steps.select("select[name=payer_id]", payer)
        for field, value in (("auth_number", decision["auth_number"]), ("approved_units", decision["units"]),
                             ("start_date", decision["start"]), ("end_date", decision["end"])):
            steps.fill(f"input[name={field}]", value)
        steps.click("button:text-is('Save authorization')")
        comment = (f"Request already on file at {payer}: case {case_number} is {decision['status']}, "
                   f"authorization {decision['auth_number']}, {decision['units']} unit(s), {decision['start']} "
                   f"to {decision['end']}. Recorded here; no new request was submitted.")
        steps.fill("#notes textarea[name=text]", comment)
        steps.click("#notes button:text-is('Add comment')")
        steps.click("section[aria-labelledby='owi-h'] a:has-text('Prior Auth item')")
        steps.click("button:text-is('Change status…')")
        steps.select("#status-dialog select[name=status]", "Auth Obtained")
        steps.click("#status-dialog button:text-is('Save status')")
        assert steps.fact("Status") == "Auth Obtained"
        _, reward, terminated, _, info = env.step("noop()")
        assert (reward, terminated) == (0.0, False)  # no message to the user yet

        _, reward, terminated, _, info = env.step(
            f"send_msg_to_user({'Already approved at the payer, not resubmitted: authorization ' + decision['auth_number']!r})")
        assert info["task_info"]["subtasks"] == {"review_order": "pass", "find_request": "pass",
                                                 "record_result": "pass", "close_item": "pass"}
        assert (reward, terminated) == (1.0, True), info["task_info"]["first_failing_subtask"]
        assert RATIONALE in json.dumps(info["task_info"]["task_result"])  # the judge's reason is kept
        judged = [request.body["messages"][1]["content"] for request in server.requests_to(CHAT)]
        assert any(decision["auth_number"] in prompt and comment[:40] in prompt for prompt in judged)

        env.reset()  # the apps are reset: answering at once leaves every check undone
        _, reward, terminated, _, info = env.step("send_msg_to_user('Done.')")
        assert (reward, terminated) == (0.0, True)
        assert info["task_info"]["subtasks"]["review_order"] == "fail"
    finally:
        env.close()


def test_a_pdf_uploaded_with_upload_file_is_stored_in_the_chart(tmp_path):
    pdf = tmp_path / "outside-records-brzezinski.pdf"
    pdf.write_bytes(render_pdf("Outside records", [("Patient", PATIENT), ("DOB", DOB)],
                               "Lumbar spine X-ray, 10/02/2026: degenerative changes at L4-L5."))
    env = gymnasium.make(TASK)
    steps = BrowserGymSteps(env)
    try:
        env.reset()
        steps.click("nav.activitybar a:has-text('Patient Search')")
        steps.fill("input[name=name]", PATIENT)
        steps.click("form[action='/patients'] button:text-is('Search')")
        steps.click(f"xpath=//tr[td[normalize-space()='{DOB}']]//a")
        steps.click("nav[aria-label='Chart sections'] a:text-is('Documents')")
        steps.click("main a:text-is('Upload PDF')")
        steps.select("select[name=kind]", "Outside Records")
        steps.fill("input[name=title]", "Outside lumbar X-ray")
        steps.fill("input[name=document_date]", "10/02/2026")
        steps.upload("input[type=file][name=file]", str(pdf))
        steps.click("main button:text-is('Upload document')")
        assert "Outside lumbar X-ray" in steps.text("main")  # the uploaded document's page

        stored = [document for document in env.unwrapped.task.services.snapshot_all()["ehr_web"]["documents"]
                  if document["source"] == "Uploaded"]
        assert len(stored) == 1
        digest = hashlib.sha256(pdf.read_bytes()).hexdigest()
        # The snapshot shows stored bytes by their hash: these are the file's own bytes.
        assert stored[0]["content"] == f"sha256:{digest}" and stored[0]["sha256"] == digest
        assert pdf.name in stored[0]["text"] and stored[0]["title"] == "Outside lumbar X-ray"
    finally:
        env.close()
