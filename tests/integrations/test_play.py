"""Play mode in Chromium: open the task card, do the task in the apps, press Done, and get
the verdict the harness gives for the same end state."""
from __future__ import annotations

import pytest

from admindesk.harness.env.environment import DEFAULT_PASSWORD, DEFAULT_USERNAME
from admindesk.harness.env.services import Services, free_port
from admindesk.harness.integrations.play import PlaySession, find_task, result_lines
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.scoring import score_task
from tests.integrations.comment_task import COMMENT, write_comment_task


@pytest.mark.browser
@pytest.mark.slow
def test_done_on_the_task_card_gives_the_harness_verdict_for_the_end_state(tmp_path, page):
    services = Services().start()
    services.reset_all()
    order = services.snapshot_all()["ehr_web"]["orders"][0]["id"]
    write_comment_task(tmp_path, "play-comment-01", order)
    task = find_task("play-comment-01", tmp_path)
    printed: list[str] = []
    with PlaySession(task, card_port=free_port(), services=services, echo=printed.append) as session:
        card = page  # pytest-playwright's page, on the suite's shared driver and Debian's Chromium
        card.goto(session.card_url)
        assert COMMENT in card.locator("#goal").inner_text()
        with card.expect_popup() as opened:
            card.click("#start")
        app = opened.value
        app.wait_for_selector("input[name=username]")  # the start page asks a person to sign in
        app.fill("input[name=username]", DEFAULT_USERNAME)
        app.fill("input[name=password]", DEFAULT_PASSWORD)
        app.press("input[name=password]", "Enter")
        app.wait_for_load_state()
        if f"/orders/{order}" not in app.url:
            app.goto(session.services.url("ehr_web", f"/orders/{order}"))
        app.fill("#notes textarea[name=text]", COMMENT)
        app.click("#notes button:text-is('Add comment')")
        app.wait_for_selector(f"#notes :text('{COMMENT}')")
        card.bring_to_front()
        card.fill("#answer", "Commented on the order.")
        card.click("button:text-is('Done')")
        card.wait_for_selector("#outcome")
        shown = card.locator("#outcome").inner_text()
        harness = score_task(task, EpisodeRecord(
            task_id=task.id, initial_snapshots=session.initial_snapshots,
            final_snapshots=services.snapshot_all(), answer="Commented on the order."))
    assert shown == harness.outcome == "pass"
    assert printed[:len(result_lines(harness, task))] == result_lines(harness, task)  # check by check


def test_play_refuses_an_unknown_task_before_starting_anything(tmp_path):
    from click.testing import CliRunner

    from admindesk.harness.cli.main import main
    result = CliRunner().invoke(main, ["play", "no-such-task", "--tasks-dir", str(tmp_path), "--no-open"])
    assert result.exit_code == 1 and "no task 'no-such-task'" in result.output
