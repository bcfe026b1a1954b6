"""The element action space in real Chromium on the fixture app: ids from the accessibility
tree resolve to their element; stale, unknown and malformed ids are errors, not crashes."""
from __future__ import annotations

import pytest

from admindesk.harness.env.executor import ELEMENT_TIMEOUT_MS
from tests.harness.agent_support import element_id
from tests.harness.conftest import adhoc

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def events(env, kind: str) -> list[str]:
    return [e["detail"] for e in env.record().final_snapshots["ehr_web"]["events"] if e["kind"] == kind]


def test_click_and_fill_by_id_reach_the_page(fixture_env):
    obs, _ = fixture_env.reset(adhoc("/"))
    obs, *_ = fixture_env.step({"type": "click_element", "element": element_id(obs.axtree, "button", "Click")})
    assert obs.last_action_error is None and events(fixture_env, "click") == ["1"]
    obs, *_ = fixture_env.step({"type": "fill_element", "element": element_id(obs.axtree, "textbox", "Query"),
                                "text": "MRN 0042"})
    obs, *_ = fixture_env.step({"type": "click_element", "element": element_id(obs.axtree, "button", "Submit")})
    assert obs.last_action_error is None
    assert fixture_env.record().final_snapshots["ehr_web"]["submissions"] == [{"q": "MRN 0042"}]


def test_stale_and_unknown_ids_are_errors_in_the_observation(fixture_env):
    obs, _ = fixture_env.reset(adhoc("/"))
    old_button = element_id(obs.axtree, "button", "Click")
    obs, *_ = fixture_env.step({"type": "click_element", "element": element_id(obs.axtree, "link", "Upload form")})
    assert obs.url.endswith("/upload")
    for stale in (old_button, "e9999"):
        obs, terminated, truncated, _ = fixture_env.step({"type": "click_element", "element": stale})
        assert obs.last_action_error.startswith(f"no element {stale} in the latest accessibility tree")
        assert not terminated and obs.url.endswith("/upload")
    obs, *_ = fixture_env.step({"type": "click_element", "element": "#click"})
    assert obs.last_action_error.startswith("invalid action: click_element.element")


def test_ids_need_the_tree_of_the_current_episode(fixture_env):
    obs, _ = fixture_env.reset(adhoc("/"))
    first_episode = element_id(obs.axtree, "button", "Click")
    fixture_env.reset(adhoc("/"))
    obs, *_ = fixture_env.step({"type": "click_element", "element": first_episode})
    assert obs.last_action_error is not None and events(fixture_env, "click") == []


def test_upload_to_element_attaches_a_download_like_the_file_dialog(fixture_env):
    obs, _ = fixture_env.reset(adhoc("/"))
    obs, *_ = fixture_env.step({"type": "click_element", "element": element_id(obs.axtree, "link", "Download report")})
    assert obs.downloads == ["report.pdf"]
    obs, *_ = fixture_env.step({"type": "click_element", "element": element_id(obs.axtree, "link", "Upload form")})
    file_input = element_id(obs.axtree, "button", "Attachment")
    obs, *_ = fixture_env.step({"type": "upload_to_element", "element": file_input, "name": "missing.pdf"})
    assert "no file 'missing.pdf' in Downloads" in obs.last_action_error and not obs.file_dialog_open
    obs, *_ = fixture_env.step({"type": "upload_to_element", "element": file_input, "name": "report.pdf"})
    assert obs.last_action_error is None and not obs.file_dialog_open
    obs, *_ = fixture_env.step({"type": "click_element", "element": element_id(obs.axtree, "button", "Send")})
    record = fixture_env.record()
    assert [u["name"] for u in record.final_snapshots["ehr_web"]["uploads"]] == ["report.pdf"]
    assert [u.sha256 for u in record.uploads] == [d.sha256 for d in record.downloads]


def test_select_option_on_a_text_field_is_an_error_within_the_timeout(fixture_env):
    obs, _ = fixture_env.reset(adhoc("/"))
    query = element_id(obs.axtree, "textbox", "Query")  # not a select: Playwright refuses
    obs, _terminated, _truncated, info = fixture_env.step(
        {"type": "select_option", "element": query, "option": "Nope"})
    assert obs.last_action_error is not None and obs.step == 1
    assert fixture_env._trajectory[-1]["timing"]["action_ms"] < ELEMENT_TIMEOUT_MS + 1_000
