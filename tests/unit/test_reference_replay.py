"""Replaying a reference solution over its logged Env calls: an ablation that sends nothing
past the skipped phase but its `done` is told apart, with no browser, from one that acts; one
that acts is handed over to a live Env where the log ends."""
from __future__ import annotations

import pytest
from playwright.sync_api import Locator

from admindesk.harness.agents.reference.replay import (
    CallLog,
    Diverged,
    GoesOn,
    PhaseEnd,
    Recording,
    handed_over,
    replay_ablation,
)
from admindesk.harness.env.observation import Observation


class PageText(Locator):
    """A Locator stand-in over a dict of selector -> text (no browser)."""

    def __init__(self, texts: dict[str, str], selector: str) -> None:  # no Playwright object behind it
        self._texts, self._selector = texts, selector

    @property
    def first(self) -> "PageText":
        return self

    def inner_text(self, timeout: float | None = None) -> str:
        return self._texts[self._selector]

    def all_inner_texts(self) -> list[str]:
        return self._texts[self._selector].split(",")


class FakeEnv:
    """An Env with one page of texts; every action is logged, `done` ends the episode."""

    def __init__(self) -> None:
        self.texts = {"#member": "M-1", "#codes": "b,a", "#name": "Ann"}
        self.actions: list[dict] = []
        self.episode_over = False

    def page_locator(self, selector: str) -> PageText:
        return PageText(self.texts, selector)

    def element_center(self, selector: str) -> tuple[int, int]:
        if selector not in self.texts:
            raise LookupError(f"{selector!r} is not visible")
        return (10, 20)

    def step(self, action: dict) -> tuple[Observation, bool, bool, dict]:
        self.actions.append(action)
        self.episode_over = action["type"] == "done"
        obs = Observation(url="http://ehr/", tabs=[], active_tab=0, downloads=[], step=len(self.actions))
        return obs, self.episode_over, False, {}


def solution(env, skip: str | None, reached: list[int] | None = None, log: CallLog | None = None) -> str | None:
    """Reads a member id and codes, then two phases: "submit" (types what it read) and "close"
    (one click); skipping "read" makes "submit" stop the work with a done."""
    notes = {}

    def doing(phase: str) -> bool:
        if reached is not None:
            reached.append(len(log))
        return phase != skip

    codes = env.page_locator("#codes").all_inner_texts()
    codes.sort()  # the solution changes what it got: the replay must not see the change
    try:
        env.element_center("#missing")  # a lookup that fails, and is expected to
    except LookupError:
        pass
    if doing("read"):
        notes["member"] = env.page_locator("#member").first.inner_text()
    if doing("submit"):
        if "member" not in notes:
            env.step({"type": "done", "answer": "Stopped: no member id"})
            return "stopped"
        env.step({"type": "type", "text": notes["member"] + ":" + ",".join(codes)})
    if doing("close"):
        env.step({"type": "click", "x": 1, "y": 2})
    env.step({"type": "done", "answer": "filed " + ",".join(codes)})
    return None


def recorded_reference() -> tuple[CallLog, list[int], FakeEnv]:
    env, log, reached = FakeEnv(), CallLog(), []
    solution(Recording(env, log), None, reached, log)
    return log, reached, env


def end_at(steps: int) -> PhaseEnd:
    return PhaseEnd(over=False, steps=steps, url="http://ehr/")


def test_a_skip_that_ends_in_a_done_is_derived_with_its_answer():
    log, reached, env = recorded_reference()
    assert [a["type"] for a in env.actions] == ["type", "click", "done"]
    close_at = reached[2]  # "close" is reached after the typing step
    ending = replay_ablation(lambda replayed: solution(replayed, "close"), log[:close_at], end_at(1))
    assert ending is not None
    assert ending.answer == "filed a,b"  # the sorted copy, from the log's unsorted list
    assert ending.done_action["type"] == "done" and ending.note is None


def test_a_skip_that_stops_the_work_is_derived_with_the_agents_note():
    log, reached, _env = recorded_reference()
    ending = replay_ablation(lambda replayed: solution(replayed, "read"), log[:reached[0]], end_at(0))
    assert ending is not None
    assert (ending.answer, ending.note) == ("Stopped: no member id", "stopped")


def test_a_skip_followed_by_other_actions_goes_on_past_the_phase_end():
    log, reached, _env = recorded_reference()
    # Skipping "submit" still clicks in "close": an action past the phase end.
    goes_on = replay_ablation(lambda replayed: solution(replayed, "submit"), log[:reached[1]], end_at(0))
    assert goes_on == GoesOn("a click action")


def test_a_handed_over_solution_acts_on_the_live_env_only_past_the_log():
    log, reached, _env = recorded_reference()
    live = FakeEnv()  # holds the reference's state where "submit" was reached (no step of its own yet)
    solution(handed_over(log[:reached[1]], live), "submit")
    assert [action["type"] for action in live.actions] == ["click", "done"]
    assert live.actions[-1]["answer"] == "filed a,b"  # the codes it read came from the log


def test_a_locator_from_the_log_is_rebuilt_on_the_live_env():
    env, log = FakeEnv(), CallLog()
    recorded = Recording(env, log)
    recorded.page_locator("#name").first  # noqa: B018 (got before the phase end, read after it)
    assert [call.key for call in log] == ["env.page_locator('#name')", "env.page_locator('#name').first"]
    live = FakeEnv()
    live.texts["#name"] = "Bea"
    replayed = handed_over(log, live)
    name = replayed.page_locator("#name").first
    assert name.inner_text() == "Bea"


def test_a_handed_over_solution_reads_downloads_in_the_live_episodes_folder(tmp_path):
    env, log = FakeEnv(), CallLog()
    env.downloads_dir = tmp_path / "reference" / "Downloads"
    assert Recording(env, log).downloads_dir == env.downloads_dir
    live = FakeEnv()
    live.downloads_dir = tmp_path / "resumed" / "Downloads"
    assert handed_over(log, live).downloads_dir == live.downloads_dir


def test_a_handed_over_solution_that_leaves_the_log_early_diverges():
    log, reached, _env = recorded_reference()
    live = FakeEnv()
    with pytest.raises(Diverged):
        handed_over(log[:reached[1]], live).page_locator("#name").first.inner_text()
    assert live.actions == []


def test_a_read_the_reference_did_not_make_diverges():
    log, reached, _env = recorded_reference()

    def other_reads(replayed) -> None:
        replayed.page_locator("#name").first.inner_text()

    assert replay_ablation(other_reads, log[:reached[2]], end_at(1)) is None


def test_an_episode_that_ends_before_the_phase_end_is_not_derived():
    log, reached, _env = recorded_reference()
    assert replay_ablation(lambda replayed: "stopped early", log[:reached[2]], end_at(1)) is None


def test_reads_and_their_exceptions_are_logged_in_order():
    log, _reached, _env = recorded_reference()
    keys = [call.key for call in log]
    assert keys[:3] == ["env.page_locator('#codes')", "env.page_locator('#codes').all_inner_texts()",
                        "env.element_center('#missing')"]
    assert keys[3:6] == ["env.page_locator('#member')", "env.page_locator('#member').first",
                         "env.page_locator('#member').first.inner_text()"]
    failed = next(call for call in log if call.key == "env.element_center('#missing')")
    assert isinstance(failed.error, LookupError)
    assert next(call.value for call in log if call.key.endswith("all_inner_texts()")) == ["b", "a"]


def test_an_ablation_that_breaks_in_the_replay_is_left_to_the_live_run():
    log, reached, _env = recorded_reference()

    def breaks(replayed) -> None:
        solution(replayed, "close")
        raise KeyError("a note the skipped phase would have written")

    assert replay_ablation(breaks, log[:reached[2]], end_at(1)) is None
