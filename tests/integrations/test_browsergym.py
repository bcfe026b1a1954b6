"""AdminDesk tasks run through BrowserGym unchanged: `gymnasium.make("browsergym/admindesk.<id>")`,
BrowserGym's own action strings, reward from our verifiers."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("browsergym.core")

import gymnasium  # noqa: E402

from admindesk.harness.integrations import browsergym as browsergym_adapter
from admindesk.schema.task_model import TASKS_ROOT, load_task_file
from tests.integrations.comment_task import COMMENT, write_comment_task  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def browsergym_driver_released():
    """Later tests in this process start Playwright drivers of their own in this thread."""
    yield
    browsergym_adapter.release_browsergym_driver()


def bid(env, selector: str) -> str:
    """The BrowserGym element id BrowserGym gave the element `selector` names."""
    value = env.unwrapped.page.locator(selector).first.get_attribute("bid")
    assert value, f"{selector} has no bid"
    return value


@pytest.fixture(scope="module")
def order_task(tmp_path_factory):
    """A designer's task folder with one task, registered like the suite's."""
    services = browsergym_adapter.shared_services()
    services.reset_all()
    order = services.snapshot_all()["ehr_web"]["orders"][0]["id"]
    folder = tmp_path_factory.mktemp("tasks")
    write_comment_task(folder, "bg-comment-01", order)
    assert browsergym_adapter.register_all(folder) == ["browsergym/admindesk.bg-comment-01"]
    return "browsergym/admindesk.bg-comment-01"


def test_a_scripted_browsergym_sequence_scores_1_and_noop_scores_0(order_task):
    env = gymnasium.make(order_task)
    try:
        obs, _ = env.reset()
        assert "/orders/" in obs["url"] and COMMENT in obs["goal"]
        textarea, button = bid(env, "#notes textarea[name=text]"), bid(env, "#notes button:text-is('Add comment')")
        for action in (f"fill('{textarea}', '{COMMENT}')", f"click('{button}')"):
            obs, reward, terminated, _, info = env.step(action)
            assert not obs["last_action_error"], obs["last_action_error"]
            assert (reward, terminated) == (0.0, False)  # no message to the user yet
        obs, reward, terminated, _, info = env.step("send_msg_to_user('The comment is on the order.')")
        assert (reward, terminated) == (1.0, True)
        assert info["task_info"]["outcome"] == "pass"
        assert info["task_info"]["subtasks"] == {"review_order": "pass", "comment": "pass"}

        env.reset()  # the apps are reset: the comment is gone
        obs, reward, terminated, _, _ = env.step("noop()")
        assert (reward, terminated) == (0.0, False)
        obs, reward, terminated, _, info = env.step("send_msg_to_user('Done.')")
        assert (reward, terminated) == (0.0, True)
        assert info["task_info"]["subtasks"]["comment"] == "fail"
    finally:
        env.close()


def test_a_suite_task_opens_signed_in_and_the_bench_api_is_blocked():
    env = gymnasium.make("browsergym/admindesk.pa-easy-10")
    try:
        obs, info = env.reset()
        page = env.unwrapped.page
        assert "/login" not in page.url  # signed in as the task says
        assert load_task_file(Path(TASKS_ROOT, "prior_auth", "pa-easy-10.yaml")).goal in obs["goal"]
        bench = page.url.split("/", 3)[:3]
        obs, reward, terminated, _, _ = env.step(f"goto('{'/'.join(bench)}/_bench/snapshot')")
        assert obs["last_action_error"] and "_bench" not in page.url
        assert (reward, terminated) == (0.0, False)
    finally:
        env.close()


def test_cheat_runs_the_reference_and_every_deterministic_check_passes():
    env = gymnasium.make("browsergym/admindesk.pa-easy-01")  # template portal_b_precert
    try:
        env.reset()
        browsergym_task = env.unwrapped.task
        assert browsergym_task.judge is None  # rubric checks stay unjudged here
        browsergym_task.cheat(env.unwrapped.page, env.unwrapped.chat.messages)
        obs, reward, terminated, _, info = env.step("noop()")
        assert terminated  # the reference's final answer is the agent's message
        assert info["task_info"]["outcome"] == "unjudged" and reward == 0.0
        assert "fail" not in info["task_info"]["subtasks"].values()
    finally:
        env.close()
