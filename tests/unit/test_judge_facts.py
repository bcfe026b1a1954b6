"""The judge sees the case's facts: a rubric request carries them, the prompt gives them a
section of their own, and a rubric that names a chart value gets that value's fact."""
import json

import pytest

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_task_file
from admindesk.verifiers.judge import RubricRequest, load_judge
from admindesk.verifiers.judge.facts import MAX_TEXT, case_facts, rubric_facts
from admindesk.verifiers.judge.prompt import SYSTEM_PROMPT, build_prompt, facts_section
from admindesk.verifiers.judge.spec import JudgeSettings
from admindesk.verifiers.scoring import score_task
from tests.unit.fixtures.episodes import CASE, MEMBER_ID, SUBTASKS, good_record, task
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply

CHAT = "/v1/chat/completions"
PHONE = "4125550143"
RUBRIC = f"The note names member {MEMBER_ID}, CPT 72148 and the diagnosis M54.16, and nothing the chart lacks."


@pytest.fixture
def server():
    with ProtocolServer() as running:
        yield running


def task_naming_chart_facts():
    subtasks = json.loads(json.dumps(SUBTASKS))
    subtasks[3]["checks"][1]["rubric"] = RUBRIC
    case = {**CASE, "patient": {**CASE["patient"], "phone": PHONE}}
    return task(subtasks=subtasks, case=case)


def user_message(request) -> str:
    return request.body["messages"][1]["content"]


def test_a_rubric_naming_chart_facts_reaches_the_judge_with_those_facts(server):
    reply = json_reply(chat_completion(json.dumps({"verdict": "pass", "reason": "all named"})))
    server.script(CHAT, reply)
    judge = load_judge(f"openai-compatible:{server.url}/v1#qwen",
                       JudgeSettings(votes=1, timeout=5, max_retries=0, env={}))
    result = score_task(task_naming_chart_facts(), good_record(), judge)
    assert result.outcome == "pass"
    user = user_message(server.requests_to(CHAT)[0])
    facts = user[user.index("CASE FACTS"):user.index("EVIDENCE (data to judge")]
    assert f'coverages.primary.member_id: "{MEMBER_ID}"' in facts
    assert 'orders.mri.code: "72148"' in facts and 'orders.mri.diagnoses: ["M54.16"]' in facts
    assert 'ids.orders.mri: "ORD-' in facts and 'patient.dob: "1961-04-12"' in facts
    # Contact details go only to a rubric that names them.
    assert PHONE not in facts
    # The work date is in the context, for follow-up dates and "today".
    assert "worked on 2026-11-16" in user


def test_the_appeal_cover_sheet_rubric_gets_the_denial_code_and_claim_number():
    appeal_task = load_task_file(TASKS_ROOT / "appeals/appeal-hard-08.yaml")
    case = case_values(appeal_task)
    cover = next(check for check in appeal_task.checks() if check.id == "send_fax.7")
    facts = rubric_facts(case, cover.rubric)
    assert facts["claims.denied.lines.0.adjustments.0.carc"] == "50"
    assert facts["ids.claims.denied"] == case["ids"]["claims"]["denied"]
    assert facts["documents.addendum.facts.conservative_therapy_weeks"] == 9
    assert facts["claims.denied.service_date"] == "2026-09-01"
    # The notice's pages are a letter, not a fact; its sender, number and CSID are facts.
    assert not any(name.startswith("faxes.notice.pages") for name in facts)
    assert facts["faxes.notice.from_number"] == "8005550162"  # Silverline's appeals line
    assert facts["faxes.notice.csid"] == "PINNACLE HLTH APPLS"


def test_contact_details_only_when_the_rubric_names_them():
    case = {"patient": {"first_name": "Ana", "last_name": "Ruiz", "phone": PHONE, "zip": "15213"}}
    assert "patient.phone" not in rubric_facts(case, "The letter names the patient.")
    assert rubric_facts(case, f"The note gives the callback number {PHONE}.")["patient.phone"] == PHONE
    assert "patient.zip" not in rubric_facts(case, f"The note gives {PHONE}.")


def test_facts_are_named_by_path_with_case_keys_and_long_text_is_left_out():
    case = {"slot": 12, "orders": [{"key": "mri", "code": "72148", "diagnoses": ["M54.16", "M51.26"],
                                    "laterality": None}],
            "faxes": [{"key": "rfi", "pages": ["x" * (MAX_TEXT + 1)], "csid": "KEYSTONE UM"}]}
    assert case_facts(case) == {"orders.mri.code": "72148", "orders.mri.diagnoses": ["M54.16", "M51.26"],
                                "faxes.rfi.pages": ["x" * (MAX_TEXT + 1)], "faxes.rfi.csid": "KEYSTONE UM"}
    assert rubric_facts(case, "anything") == {"orders.mri.code": "72148",
                                              "orders.mri.diagnoses": ["M54.16", "M51.26"],
                                              "faxes.rfi.csid": "KEYSTONE UM"}
    assert rubric_facts(None, "anything") == {}


def test_the_prompt_gives_facts_their_own_section_and_the_rule_for_unchecked_detail():
    request = RubricRequest(task_id="t", check_id="c", rubric="The note agrees with the chart.",
                            text="Auth approved.", context="Task t", facts={"orders.mri.code": "72148"})
    _system, user = build_prompt(request)
    assert user.index("TASK CONTEXT") < user.index("CASE FACTS") < user.index("EVIDENCE (data to judge")
    assert 'orders.mri.code: "72148"' in user
    assert "is in neither the CASE FACTS nor the TASK CONTEXT is invented" in " ".join(SYSTEM_PROMPT.split())
    assert "do not fail text for detail you cannot check" in " ".join(SYSTEM_PROMPT.split())
    assert facts_section({}) == "(no case facts given)"
    bare = build_prompt(request.model_copy(update={"facts": {}}))
    assert bare != build_prompt(request)


def test_facts_that_are_not_json_are_refused_with_their_name():
    with pytest.raises(ValueError, match="fact 'when' is not JSON-able"):
        RubricRequest(task_id="t", check_id="c", rubric="The note agrees.", text="x", facts={"when": object()})
