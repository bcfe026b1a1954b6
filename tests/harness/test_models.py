"""Unit tests (no browser): actions, URL policy, drawn-chrome geometry, task/record models."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from admindesk.harness.env.actions import ACTION_TYPES, Click, parse_action
from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT, ChromeState
from admindesk.harness.env.sandbox import NavigationBlocked, blocked_request_pattern, check_navigation
from admindesk.schema.task_model import Task, load_tasks
from admindesk.verifiers.records import EpisodeRecord

PORTS = [5101, 5102]


@pytest.mark.parametrize("raw", [
    {"type": "click", "x": 1, "y": 2}, {"type": "double_click", "x": 1, "y": 2},
    {"type": "right_click", "x": 1, "y": 2}, {"type": "move", "x": 1, "y": 2},
    {"type": "drag", "x1": 1, "y1": 2, "x2": 3, "y2": 4},
    {"type": "scroll", "x": 1, "y": 2, "dy": 300}, {"type": "type", "text": "hi"},
    {"type": "key", "keys": "Control+A"}, {"type": "wait", "seconds": 0.5},
    {"type": "goto", "url": "http://127.0.0.1:5101/"}, {"type": "new_tab"},
    {"type": "switch_tab", "index": 1}, {"type": "close_tab"},
    {"type": "choose_file", "name": "a.pdf"}, {"type": "done", "answer": "42"}])
def test_every_action_type_parses_from_dict_and_json(raw):
    action = parse_action(raw)
    assert action.type == raw["type"]
    assert parse_action(action.model_dump_json()) == action


def test_action_types_list_matches_the_union():
    parsed = {parse_action({"type": t, **FIELDS.get(t, {})}).type for t in ACTION_TYPES}
    assert parsed == set(ACTION_TYPES)


FIELDS = {"click": {"x": 0, "y": 0}, "double_click": {"x": 0, "y": 0},
          "right_click": {"x": 0, "y": 0}, "move": {"x": 0, "y": 0},
          "drag": {"x1": 0, "y1": 0, "x2": 0, "y2": 0}, "scroll": {"x": 0, "y": 0},
          "type": {"text": ""}, "key": {"keys": "a"}, "goto": {"url": "x"},
          "switch_tab": {"index": 0}, "choose_file": {"name": "f"},
          "click_element": {"element": "e1"}, "fill_element": {"element": "e1", "text": ""},
          "select_option": {"element": "e1", "option": "A"},
          "upload_to_element": {"element": "e1", "name": "f"}}


@pytest.mark.parametrize("raw", [{"type": "exec", "code": "1"}, {"type": "click", "x": 1},
                                 {"type": "click", "x": -1, "y": 0},
                                 {"type": "click", "x": 1, "y": 1, "z": 2}])
def test_invalid_actions_are_rejected(raw):
    with pytest.raises(ValidationError):
        parse_action(raw)


def test_parse_action_keeps_an_action_model():
    assert parse_action(Click(x=3, y=4)) == Click(x=3, y=4)


@pytest.mark.parametrize("url", [
    "file:///etc/passwd", "javascript:alert(1)", "data:text/html,<b>x</b>",
    "view-source:http://127.0.0.1:5101/", "chrome://settings", "http://example.com/",
    "http://127.0.0.1:5999/", "http://127.0.0.1:5101/_bench/snapshot",
    "http://127.0.0.1:5101/%5Fbench/snapshot", "http://127.0.0.1:5101/x/../_bench/health",
    "http://10.0.0.1:5101/"])
def test_navigation_outside_the_apps_is_blocked(url):
    with pytest.raises(NavigationBlocked):
        check_navigation(url, PORTS)


@pytest.mark.parametrize("url, expected", [
    ("http://127.0.0.1:5101/patients", "http://127.0.0.1:5101/patients"),
    ("127.0.0.1:5102/", "http://127.0.0.1:5102/"),
    ("localhost:5101/x?y=1", "http://localhost:5101/x?y=1"), ("about:blank", "about:blank")])
def test_navigation_to_the_apps_is_allowed(url, expected):
    assert check_navigation(url, PORTS) == expected


@pytest.mark.parametrize("url, blocked", [
    ("http://127.0.0.1:5101/x.css", False), ("http://localhost:5102/", False),
    ("http://127.0.0.1:5103/", True), ("https://cdn.example.com/x.js", True),
    ("http://127.0.0.1:5101/_bench/snapshot", True), ("http://127.0.0.1:5101/%5fbench/x", True),
    ("http://127.0.0.1:51010/", True), ("ws://127.0.0.1:5101/", True)])
def test_request_block_pattern(url, blocked):
    assert bool(blocked_request_pattern(PORTS).search(url)) is blocked


def _chrome(**kwargs) -> ChromeState:
    return ChromeState(width=1280, height=800, tabs=[("One", "http://a/"), ("Two", "http://b/")],
                       bookmarks=[("EHR", "http://127.0.0.1:5101/")], **kwargs)


def test_chrome_hit_testing_matches_the_layout():
    chrome = _chrome()
    first, second = chrome.tab_boxes()
    assert chrome.hit(first[0] + 20, 20) == ("tab", 0)
    assert chrome.hit(second[0] + 20, 20) == ("tab", 1)
    close = chrome.close_box(second)
    assert chrome.hit(close[0] + 2, close[1] + 2) == ("close_tab", 1)
    plus = chrome.new_tab_box()
    assert chrome.hit(plus[0] + 2, plus[1] + 2) == ("new_tab",)
    address = chrome.address_box()
    assert chrome.hit(address[0] + 50, address[1] + 10) == ("address",)
    bookmark = chrome.bookmark_boxes()[0]
    assert chrome.hit(bookmark[0] + 3, bookmark[1] + 3) == ("bookmark", "http://127.0.0.1:5101/")
    assert chrome.hit(600, CHROME_HEIGHT + 5) == ("page", 600, 5)
    assert chrome.hit(1280, 10) == ("outside",)


def test_file_dialog_is_modal_and_lists_files():
    chrome = _chrome(dialog_files=[("a.pdf", 10), ("b.pdf", 2048)])
    rows = chrome.dialog_row_boxes()
    assert chrome.hit(rows[1][0] + 5, rows[1][1] + 5) == ("file", "b.pdf")
    cancel = chrome.dialog_cancel_box()
    assert chrome.hit(cancel[0] + 5, cancel[1] + 5) == ("cancel",)
    assert chrome.hit(5, 5) == ("dialog",)  # the tab strip is under the modal dialog


def test_task_model_forbids_unknown_keys_and_has_defaults():
    task = Task.model_validate({"id": "adhoc", "goal": "g"})
    assert task.max_steps == 50 and task.start.app == "ehr_web" and task.start.login
    assert task.now.isoformat() == "2026-11-16T09:00:00"
    with pytest.raises(ValidationError):
        Task.model_validate({"id": "x", "typo": 1})
    with pytest.raises(ValidationError):
        Task.model_validate({"id": "x", "start": {"app": "nope"}})


def test_load_tasks_reads_yaml_files(tmp_path):
    assert load_tasks(tmp_path) == []
    (tmp_path / "pa").mkdir()
    (tmp_path / "pa" / "b.yaml").write_text("id: pa-easy-02\nworkflow: prior_auth\ngoal: g\n")
    (tmp_path / "a.yaml").write_text("id: pa-easy-01\nworkflow: prior_auth\ndifficulty: easy\n")
    assert [task.id for task in load_tasks(tmp_path)] == ["pa-easy-01", "pa-easy-02"]


def test_episode_record_round_trips_through_json():
    record = EpisodeRecord(task_id="t", downloads=[{"name": "a", "sha256": "0" * 64, "size": 1}],
                           trajectory=[{"step": 0}], answer="x")
    assert EpisodeRecord.model_validate_json(record.model_dump_json()) == record


def test_admindesk_exports_lazily():
    import admindesk

    assert callable(admindesk.load_tasks)
    with pytest.raises(AttributeError):
        admindesk.nothing_here


def test_fast_png_encoding_is_lossless():
    import io

    from PIL import Image, ImageDraw

    from admindesk.harness.env.observation import encode_png

    image = Image.new("RGB", (37, 23), (250, 250, 250))
    ImageDraw.Draw(image).rectangle((3, 4, 20, 18), fill=(12, 200, 99))
    image.putpixel((36, 22), (1, 2, 3))
    decoded = Image.open(io.BytesIO(encode_png(image)))
    assert decoded.mode == "RGB" and decoded.size == (37, 23)
    assert decoded.tobytes() == image.tobytes()
