"""Two Envs in one process, each with its own apps and Chromium, driven at once from two
threads: every episode's comments land in its own Env's EHR only, and nothing fails."""
from __future__ import annotations

import threading

import pytest

from admindesk.harness.env.environment import Env
from admindesk.harness.env.services import available_apps

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif("ehr_web" not in available_apps(), reason="needs the EHR")]

EPISODES = 3
COMMENTS_PER_EPISODE = 3


def marker(env_name: str, episode: int, number: int) -> str:
    return f"parallel {env_name} episode {episode} comment {number}"


class EnvDriver(threading.Thread):
    """Owns one Env in its own thread (its Playwright driver and app processes belong to
    the thread that starts them): resets it EPISODES times, comments on an order each time,
    and keeps each episode's final EHR notes."""

    def __init__(self, name: str, start: threading.Barrier):
        super().__init__(daemon=True)
        self.env_name, self.start_together = name, start
        self.notes: list[list[str]] = []
        self.errors: list[str] = []

    def run(self) -> None:
        try:
            with Env("screenshot", apps=["ehr_web"]) as env:
                self.start_together.wait(300)
                for episode in range(EPISODES):
                    self.run_episode(env, episode)
        except BaseException as exc:  # a failure in the thread must fail the test
            self.errors.append(repr(exc))

    def run_episode(self, env: Env, episode: int) -> None:
        env.reset({"id": "parallel", "goal": "comment", "max_steps": 50,
                   "start": {"app": "ehr_web", "path": "/", "login": True}})
        order = env.services.snapshot_all()["ehr_web"]["orders"][0]["id"]
        page = env._episode.page
        opened = page.goto(env.services.url("ehr_web", f"/orders/{order}"))
        if opened is None or opened.status >= 400:
            self.errors.append(f"order page: {opened and opened.status}")
            return
        for number in range(COMMENTS_PER_EPISODE):
            page.fill("#notes textarea[name=text]", marker(self.env_name, episode, number))
            with page.expect_navigation() as posted:
                page.click("#notes button:text-is('Add comment')")
            if posted.value is None or posted.value.status >= 400:
                self.errors.append(f"comment post: {posted.value and posted.value.status}")
        final = env.record().final_snapshots["ehr_web"]
        self.notes.append([note["text"] for note in final["notes"]])


def test_two_envs_driven_at_once_keep_every_episode_to_itself():
    start = threading.Barrier(2)
    drivers = [EnvDriver(name, start) for name in ("left", "right")]
    for driver in drivers:
        driver.start()
    for driver in drivers:
        driver.join(900)
    assert [driver.errors for driver in drivers] == [[], []]
    for driver in drivers:
        assert len(driver.notes) == EPISODES
        for episode, notes in enumerate(driver.notes):
            mine = [marker(driver.env_name, episode, number) for number in range(COMMENTS_PER_EPISODE)]
            foreign = [text for text in notes if text.startswith("parallel ") and text not in mine]
            assert sorted(text for text in notes if text in mine) == sorted(mine), (driver.env_name, episode)
            assert foreign == [], (driver.env_name, episode, foreign)
