"""The Inspect integration's pieces without a browser: task arguments refused with a reason,
the action space as tools and tool calls as actions, screenshots trimmed for the model and
read back for the run folder, the record's round trip through a score, and logs that are no
AdminDesk eval refused by the importer."""
from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.model import ChatMessageUser, ContentImage, ContentText

from admindesk.harness.agents.model_agent import MalformedReply
from admindesk.harness.env.observation import Observation, TabInfo
from admindesk.harness.integrations.inspect import admindesk
from admindesk.harness.integrations.inspect.importer import InspectLogError, import_log
from admindesk.harness.integrations.inspect.scoring import decode_record, encode_record
from admindesk.harness.integrations.inspect.tools import (
    OMITTED_SCREENSHOT,
    action_tools,
    call_action,
    newest_screenshots,
    observation_message,
    step_screenshots,
)
from tests.integrations.fresh_thread import in_fresh_thread
from tests.unit.fixtures.episodes import good_record

PNG = b"\x89PNG\r\n\x1a\nframe"


@pytest.mark.parametrize("arguments, message", [
    ({"observation": "pixels"}, "-T observation='pixels': must be one of screenshot, axtree, both"),
    ({"prompt_mode": "chatty"}, "-T prompt_mode='chatty': must be one of zero_shot, general, task_specific"),
    ({"action_space": "element"}, "-T action_space=element needs the accessibility tree"),
    ({"max_steps": "many"}, "-T max_steps='many': must be a whole number"),
    ({"judge_votes": 0}, "-T judge_votes=0: must be at least 1"),
    ({"tasks": "pa-easy-999"}, "-T tasks='pa-easy-999'"),
    ({"tasks_dir": "/no/such/folder"}, "tasks folder /no/such/folder does not exist"),
])
def test_bad_task_arguments_are_refused_naming_the_argument(arguments, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        admindesk(**arguments)


def test_samples_are_the_selected_tasks_with_the_prompt_mode():
    task = admindesk(tasks="pa-easy-01,pa-easy-02", prompt_mode="zero_shot", max_steps=7)
    samples = list(task.dataset)
    assert [sample.id for sample in samples] == ["pa-easy-01", "pa-easy-02"]
    assert samples[0].input.startswith("Your task:\n") and "How the applications work" not in samples[0].input
    assert samples[0].metadata["max_steps"] == 7 and samples[0].metadata["workflow"] == "prior_auth"


def test_each_action_of_the_space_is_a_tool_with_the_action_fields():
    coordinate = {tool.name: tool for tool in action_tools("coordinate")}
    element = {tool.name for tool in action_tools("element")}
    assert {"click", "drag", "type", "key", "done"} <= set(coordinate) and "click_element" not in coordinate
    assert {"click_element", "fill_element", "done"} <= element and "click" not in element
    assert coordinate["click"].parameters.required == ["x", "y"]
    assert set(coordinate["drag"].parameters.properties) == {"x1", "y1", "x2", "y2"}


def test_tool_calls_become_actions_or_say_why_not():
    assert call_action("click", {"x": 10, "y": 20}, "coordinate").model_dump() == {"type": "click", "x": 10, "y": 20}
    with pytest.raises(MalformedReply, match="click_element is not in the coordinate action space"):
        call_action("click_element", {"element": "e1"}, "coordinate")
    with pytest.raises(MalformedReply, match="invalid action"):
        call_action("click", {"x": "left"}, "coordinate")


def observation(step: int) -> Observation:
    return Observation(screenshot=PNG + bytes([step]), url="http://127.0.0.1:5101/", step=step,
                       tabs=[TabInfo(title="EHR", url="http://127.0.0.1:5101/")], active_tab=0, downloads=[])


def test_only_the_newest_screenshots_go_to_the_model_and_all_come_back_from_the_log():
    messages = [ChatMessageUser(content="Your task")] + [observation_message(observation(n), "screenshot")
                                                         for n in range(4)]
    trimmed = newest_screenshots(messages, keep=2)
    images = [[isinstance(part, ContentImage) for part in m.content] for m in trimmed[1:]]
    assert images == [[False, False], [False, False], [False, True], [False, True]]
    assert isinstance(trimmed[1].content[1], ContentText) and trimmed[1].content[1].text == OMITTED_SCREENSHOT
    assert step_screenshots(messages) == {n: PNG + bytes([n]) for n in range(4)}  # the log keeps them all


def test_the_record_survives_its_trip_through_the_score_metadata():
    record = good_record()
    assert decode_record(encode_record(record)) == record
    with pytest.raises(ValueError, match="not an encoded episode record"):
        decode_record("not base64 at all!")


def test_a_file_that_is_no_admindesk_log_is_refused(tmp_path):
    junk = tmp_path / "junk.eval"
    junk.write_bytes(b"not a zip")
    with pytest.raises(InspectLogError, match="not a readable Inspect eval log"):
        import_log(junk, tmp_path / "run")
    with pytest.raises(InspectLogError, match="no such log"):
        import_log(tmp_path / "missing.eval", tmp_path / "run")


def test_an_inspect_model_judges_rubrics_through_the_fenced_prompt_and_the_cache(tmp_path):
    import anyio
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from admindesk.harness.integrations.inspect.scoring import InspectModelBackend
    from admindesk.verifiers.judge import RubricRequest
    from admindesk.verifiers.judge.cache import VerdictCache
    from admindesk.verifiers.judge.jury import ModelJudge

    seen = []

    def grader(messages, tools, tool_choice, config):
        seen.append(messages[-1].text)
        output = ModelOutput.from_content("mockllm/model", '{"verdict": "pass", "reason": "names the auth number"}')
        output.usage = ModelUsage(input_tokens=50, output_tokens=10, total_tokens=60)
        return output

    judge = ModelJudge(InspectModelBackend(get_model("mockllm/model", custom_outputs=grader)), votes=2,
                       cache=VerdictCache(tmp_path / "cache"))
    request = RubricRequest(task_id="pa-easy-01", check_id="close_item.4", rubric="Gives the auth number.",
                            text="Approved, auth KM-1.")

    async def twice():
        first = await anyio.to_thread.run_sync(judge.judge, request)  # scoring runs in a thread
        again = await anyio.to_thread.run_sync(judge.judge, request)
        return first, again

    first, again = in_fresh_thread(anyio.run, twice)
    assert first.passed and judge.name == "inspect:mockllm/model"
    assert len(seen) == 2 and "<<<EVIDENCE" in seen[0] and "Approved, auth KM-1." in seen[0]
    assert all(vote.cached for vote in again.votes)  # the second scoring asks the model nothing
