"""Agents without a browser or a network: key names, provider actions, the JSON reply
format, prices, prompt modes, the registry, the random and noop agents, the step budget."""
from __future__ import annotations

import pytest

from admindesk.harness.agents import make_agent
from admindesk.harness.agents.accounting import call_usage, model_prices
from admindesk.harness.agents.computer_actions import from_anthropic, from_openai
from admindesk.harness.agents.keys import UnknownKey, playwright_combo
from admindesk.harness.agents.model_agent import MalformedReply
from admindesk.harness.agents.openai_compatible import parse_reply, system_prompt
from admindesk.harness.agents.prompting import task_prompt
from admindesk.harness.env.actions import Click, Done, Drag, Key, RightClick, Scroll, TypeText
from admindesk.harness.env.observation import Observation
from admindesk.schema.task_model import Task
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply


def observation(step: int = 0, axtree: str | None = None) -> Observation:
    return Observation(url="http://127.0.0.1:1/", tabs=[], active_tab=0, downloads=[], step=step,
                       axtree=axtree)


@pytest.mark.parametrize("keys, combo", [
    ("ctrl+a", "Control+A"), (["CTRL", "A"], "Control+A"), ("Return", "Enter"), (["ENTER"], "Enter"),
    ("Page_Down", "PageDown"), ("shift+Tab", "Shift+Tab"), ("a", "a"), ("ctrl++", "Control++"),
    ("F5", "F5"), (["ARROWDOWN"], "ArrowDown")])
def test_provider_key_names_become_playwright_combos(keys, combo):
    assert playwright_combo(keys) == combo


def test_an_unknown_key_is_refused():
    with pytest.raises(UnknownKey, match="Hyper_L"):
        playwright_combo("ctrl+Hyper_L")


def test_openai_computer_actions_map_onto_ours():
    assert from_openai({"type": "click", "button": "right", "x": 3, "y": 4}) == RightClick(x=3, y=4)
    assert from_openai({"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 5, "y": 5}, {"x": 9, "y": 8}]}) \
        == Drag(x1=1, y1=2, x2=9, y2=8)
    assert from_openai({"type": "scroll", "x": 10, "y": 20, "scroll_x": 0, "scroll_y": -300}) \
        == Scroll(x=10, y=20, dx=0, dy=-300)
    assert from_openai({"type": "keypress", "keys": ["CTRL", "L"]}) == Key(keys="Control+L")
    assert from_openai({"type": "screenshot"}) is None
    for bad in ({"type": "click", "button": "wheel", "x": 1, "y": 1}, {"type": "click", "button": "left",
                "x": -5, "y": 1}, {"type": "teleport"}, {"type": "click", "button": "left", "x": 1, "y": 1,
                                                            "keys": ["SHIFT"]}):
        with pytest.raises(MalformedReply):
            from_openai(bad)


def test_anthropic_computer_actions_map_onto_ours():
    assert from_anthropic({"action": "left_click", "coordinate": [7, 8]}, (0, 0)) == Click(x=7, y=8)
    assert from_anthropic({"action": "left_click"}, (40, 50)) == Click(x=40, y=50)  # at the pointer
    assert from_anthropic({"action": "scroll", "coordinate": [5, 6], "scroll_direction": "up",
                           "scroll_amount": 2}, (0, 0)) == Scroll(x=5, y=6, dx=0, dy=-200)
    assert from_anthropic({"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]},
                          (0, 0)) == Drag(x1=1, y1=2, x2=3, y2=4)
    assert from_anthropic({"action": "type", "text": "hi"}, (0, 0)) == TypeText(text="hi")
    assert from_anthropic({"action": "key", "text": "ctrl+Return"}, (0, 0)) == Key(keys="Control+Enter")
    assert from_anthropic({"action": "screenshot"}, (0, 0)) is None
    for bad in ({"action": "triple_click", "coordinate": [1, 1]}, {"action": "left_click", "coordinate": [1]},
                {"action": "scroll", "coordinate": [1, 1], "scroll_direction": "sideways"}):
        with pytest.raises(MalformedReply):
            from_anthropic(bad, (0, 0))


def test_the_json_reply_format_is_strict():
    thought, action = parse_reply('{"thought": "t", "action": {"type": "click", "x": 1, "y": 2}}', "coordinate")
    assert (thought, action) == ("t", Click(x=1, y=2))
    fenced = '```json\n{"action": {"type": "done", "answer": "x"}}\n```'
    assert parse_reply(fenced, "coordinate")[1] == Done(answer="x")
    for reply, message in [("click the button", "not one JSON object"),
                           ('{"thought": "t"}', 'no "action" object'),
                           ('{"action": {"type": "click"}, "extra": 1}', "unexpected keys"),
                           ('{"action": {"type": "click", "x": 1}}', "invalid action"),
                           ('{"action": {"type": "click_element", "element": "e1"}}', "not in the coordinate"),
                           ('Sure: {"action": {"type": "done"}}', "not one JSON object")]:
        with pytest.raises(MalformedReply, match=message):
            parse_reply(reply, "coordinate")
    with pytest.raises(MalformedReply, match="not in the element"):
        parse_reply('{"action": {"type": "click", "x": 1, "y": 2}}', "element")


def test_the_system_prompt_comes_from_the_package_files_per_action_space():
    coordinate, element = system_prompt("coordinate", (1280, 800)), system_prompt("element", (1280, 800))
    assert "1280x800" in coordinate and '"type": "click", "x"' in coordinate and "click_element" not in coordinate
    assert "click_element" in element and "{{" not in element


def test_prices_match_dated_snapshots_and_unknown_models_cost_none():
    assert model_prices("claude-sonnet-4-5-20250929") == model_prices("claude-sonnet-4-5")
    assert model_prices("claude-sonnet-4-5")["output"] == 15.0
    assert call_usage("gpt-4o", 1_000_000, 1_000_000, cached_input_tokens=500_000).cost_usd == \
        pytest.approx(0.5 * 2.5 + 0.5 * 1.25 + 10.0)
    assert call_usage("qwen2.5-vl-72b", 10, 10).cost_usd is None


def test_prompt_modes_add_app_and_task_guidance(tmp_path):
    for app in ("ehr_web", "payer_portal_a", "payer_portal_b", "fax"):
        (tmp_path / f"{app}.md").write_text(f"Guide to {app}.")
    task = Task.model_validate({"id": "t", "goal": "Do it.", "guidance": ["Open the EHR.", "File it."]})
    assert task_prompt("Do it.", task, "zero_shot", tmp_path) == "Your task:\nDo it."
    general = task_prompt("Do it.", task, "general", tmp_path)
    assert "Guide to fax." in general and "Open the EHR" not in general
    specific = task_prompt("Do it.", task, "task_specific", tmp_path)
    assert specific.endswith("Suggested steps:\n1. Open the EHR.\n2. File it.")
    with pytest.raises(ValueError, match="has no guidance"):
        task_prompt("Do it.", Task.model_validate({"id": "bare"}), "task_specific", tmp_path)
    (tmp_path / "fax.md").unlink()
    with pytest.raises(ValueError, match="fax.md"):
        task_prompt("Do it.", task, "general", tmp_path)


def test_the_repository_guidance_serves_the_general_mode():
    assert "Tessera" in task_prompt("Do it.", None, "general")


def test_make_agent_reads_env_vars_and_refuses_bad_names(monkeypatch):
    monkeypatch.setenv("ADMINDESK_MODEL", "computer-use-preview")
    monkeypatch.setenv("ADMINDESK_API_KEY_ENV", "MY_KEY")
    monkeypatch.setenv("MY_KEY", "k")
    agent = make_agent("openai-cua", model=None)
    assert (agent.model, agent.api_key) == ("computer-use-preview", "k")
    with pytest.raises(ValueError, match="no agent 'gpt'"):
        make_agent("gpt")
    with pytest.raises(ValueError, match="has no option modle"):
        make_agent("openai-cua", modle="x")
    monkeypatch.delenv("MY_KEY")
    with pytest.raises(ValueError, match="set the environment variable MY_KEY"):
        make_agent("anthropic-cu", model="claude-opus-4-6")
    with pytest.raises(ValueError, match="supports action_space coordinate"):
        make_agent("openai-cua", model="m", api_key_env="ADMINDESK_MODEL", action_space="element")
    with pytest.raises(ValueError, match="needs the accessibility tree"):
        make_agent("openai-compatible", model="m", action_space="element")


def test_random_agent_is_seeded_valid_and_bounded():
    tree = '- button "A" [ref=e3]\n- textbox "B" [ref=e5]'

    def play(seed: int) -> list[dict]:
        agent = make_agent("random", seed=seed, max_steps=30, action_space="element")
        agent.reset("goal")
        return [agent.act(observation(step, tree)).model_dump() for step in range(31)]

    first = play(7)
    assert first == play(7) and first != play(8)
    assert first[-1] == {"type": "done", "answer": None}
    assert {a["element"] for a in first if "element" in a} <= {"e3", "e5"}
    assert all(0 <= a.get("x", 0) < 1280 and 0 <= a.get("y", 0) < 800 for a in first)


def test_noop_agent_ends_at_once():
    agent = make_agent("noop")
    agent.reset("goal")
    assert agent.act(observation()) == Done(answer=None) and len(agent.notes) == 1


def test_a_model_agent_stops_when_its_budget_is_spent():
    with ProtocolServer() as server:
        server.script("/v1/chat/completions", json_reply(chat_completion(
            '{"thought": "", "action": {"type": "wait", "seconds": 0}}')))
        agent = make_agent("openai-compatible", model="m", max_steps=1, base_url=server.url + "/v1")
        agent.reset("goal")
        assert agent.act(observation(0)).type == "wait"
        assert agent.act(observation(1)) == Done(answer=None)  # no second call is made
        assert len(server.requests) == 1
    assert agent.notes[-1].error == "step budget of 1 actions spent"
