"""The report, the trajectory viewer, the comparison and the leaderboard opened from disk
in real Chromium: no console errors, charts drawn, the viewer stepped by keyboard, the
leaderboard's filters applied.

With ADMINDESK_WRITE_SCREENSHOTS=1 the report and the viewer are saved to
docs/screenshots/report.png and report-viewer.png (the README shows them); otherwise to
the test's tmp folder, so an ordinary run changes no file.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from admindesk.harness.leaderboard import build_site, validate_submission
from admindesk.harness.leaderboard.ledger import add_replay, load_ledger
from admindesk.harness.report import write_report
from tests.report.conftest import write_submission
from tests.report.run_folders import write_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
N_RUN_CHARTS = 8

# A report page parses plotly.js (3.5 MB) before its heading shows; a loaded CI machine needs the time.
PAGE_WITH_PLOTLY_MS = 20_000


def screenshot_folder(tmp_path: Path) -> Path:
    """docs/screenshots when asked to write them, else the test's own tmp folder."""
    return DOCS_SCREENSHOTS if os.environ.get("ADMINDESK_WRITE_SCREENSHOTS") == "1" else tmp_path


@pytest.fixture
def console_errors(page):
    """Console errors and uncaught exceptions of `page`, collected as they happen."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


@pytest.fixture
def report_dir(tmp_path, tasks_dir) -> Path:
    write_report([write_run(tmp_path / "run", tasks_dir)], tmp_path / "report")
    return tmp_path / "report"


def test_report_loads_with_every_chart_drawn(page, console_errors, report_dir, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto((report_dir / "index.html").as_uri())
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot .main-svg').length >= {N_RUN_CHARTS}")
    assert page.locator("#card-e2e .value").inner_text() == "50%"
    assert page.locator("#card-results .ci").inner_text().split() == ["2", "pass", "2", "fail"]
    assert page.locator("#episodes tbody tr").count() == 4
    folder = screenshot_folder(tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "report.png"))
    assert console_errors == []


def test_viewer_steps_through_an_episode_by_keyboard(page, console_errors, report_dir, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto((report_dir / "episodes/pa-medium-01-t0.html").as_uri())
    position = page.locator("#position")
    assert position.inner_text() == "Step 0 of 5"
    page.wait_for_function("document.getElementById('shot').complete")
    assert page.locator("#overlay .click-mark").count() == 1  # screen 0: the agent clicked
    page.keyboard.press("ArrowRight")
    assert position.inner_text() == "Step 1 of 5"
    assert page.locator("#overlay .typed").inner_text() == "\u2328 Dana Whitfield"
    page.keyboard.press("j")
    assert position.inner_text() == "Step 2 of 5"
    assert page.locator("#overlay .keycap").inner_text() == "Enter"
    assert page.locator("#filmstrip button").nth(2).get_attribute("aria-current") == "step"
    assert page.locator("#step-list li.current").inner_text().startswith("Step 2 press Enter $0.0125")
    assert page.url.endswith("#step-2")
    page.keyboard.press("ArrowRight")
    assert "element not found" in page.locator("#step-error").inner_text()
    folder = screenshot_folder(tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "report-viewer.png"))
    page.keyboard.press("End")
    assert position.inner_text() == "Step 5 of 5" and page.locator("#overlay > *").count() == 0
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("k")
    assert position.inner_text() == "Step 3 of 5"
    page.keyboard.press("Home")
    assert position.inner_text() == "Step 0 of 5"
    page.get_by_role("link", name="see step 4").click()  # the answer check's evidence
    expect(position).to_have_text("Step 4 of 5")
    assert console_errors == []


def test_comparison_shows_the_grid_and_cost_charts(page, console_errors, tmp_path, tasks_dir):
    runs = [write_run(tmp_path / "a", tasks_dir, agent="model-a"),
            write_run(tmp_path / "b", tasks_dir, agent="model-b", passes=lambda t, n: True, wall_s=50)]
    write_report(runs, tmp_path / "compare")
    page.goto((tmp_path / "compare/index.html").as_uri())
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 2")
    row = page.locator("#task-grid tbody tr", has_text="pa-medium-01")
    assert row.locator("td").nth(0).inner_text().split() == ["pass", "fail"]
    assert row.locator("td").nth(1).inner_text().split() == ["pass", "pass"]
    row.locator("td").nth(0).locator("a").nth(1).click()
    expect(page.locator("h1")).to_have_text(re.compile(r"^pa-medium-01 · trial 1"), timeout=PAGE_WITH_PLOTLY_MS)
    assert console_errors == []


def replay_ledger(path, subs, names, tasks_dir):
    """A maintainers' ledger that holds `names` as replayed."""
    for name in names:
        verdict = validate_submission(subs / name, tasks_dir)
        add_replay(path, name, verdict.record_digests, "test")
    return load_ledger(path)


def test_leaderboard_ranks_and_filters(page, console_errors, tmp_path, tasks_dir):
    subs = tmp_path / "subs"
    write_submission(subs / "alpha", tasks_dir, agent="alpha", observation="screenshot",
                     passes=lambda t, n: n == 0)
    write_submission(subs / "beta", tasks_dir, agent="beta", observation="both", passes=lambda t, n: True)
    write_submission(subs / "gamma", tasks_dir, agent="gamma", observation="axtree",
                     passes=lambda t, n: t.startswith("dme"))
    ledger = replay_ledger(tmp_path / "verified.json", subs, ["alpha", "beta", "gamma"], tasks_dir)
    site = build_site(subs, tmp_path / "site", tasks_dir, ledger=ledger)
    page.goto(site.index.as_uri())

    def visible_names():
        return page.locator("#board tbody tr:not([hidden])").evaluate_all("rows => rows.map(r => r.dataset.name)")
    assert visible_names() == ["beta", "alpha", "gamma"]
    page.select_option("#filter-observation", "axtree")
    assert visible_names() == ["gamma"]
    page.select_option("#filter-observation", "")
    page.select_option("#filter-workflow", "dme")
    assert visible_names() == ["beta", "gamma", "alpha"]
    gamma = page.locator('#board tr[data-name="gamma"]')
    assert gamma.locator(".rank").inner_text() == "2" and gamma.locator(".e2e").inner_text() == "100%"
    page.select_option("#filter-workflow", "prior_auth")
    assert visible_names() == ["beta", "alpha", "gamma"]
    assert gamma.locator(".e2e").inner_text() == "0%"
    page.locator('#board tr[data-name="beta"] a').click()
    expect(page.locator("h1")).to_have_text("Run report: beta", timeout=PAGE_WITH_PLOTLY_MS)
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot .main-svg').length >= {N_RUN_CHARTS}")
    assert console_errors == []


def test_only_verified_entries_are_ranked(page, console_errors, tmp_path, tasks_dir):
    subs = tmp_path / "subs"
    write_submission(subs / "alpha", tasks_dir, agent="alpha", observation="screenshot",
                     passes=lambda t, n: n == 0)
    write_submission(subs / "beta", tasks_dir, agent="beta", observation="both", passes=lambda t, n: True)
    ledger = replay_ledger(tmp_path / "verified.json", subs, ["alpha"], tasks_dir)
    # beta changed after its replay would be self-reported again: its records are not the replayed ones.
    site = build_site(subs, tmp_path / "site", tasks_dir, ledger=ledger)
    page.goto(site.index.as_uri())
    rows = page.locator("#board tbody tr")
    assert rows.evaluate_all("rows => rows.map(r => [r.dataset.name, r.dataset.tier])") == [
        ["alpha", "verified"], ["beta", "self-reported"]]
    assert rows.nth(0).locator(".rank").inner_text() == "1"
    assert rows.nth(1).locator(".rank").inner_text() == "–"
    assert rows.nth(1).locator(".tier").inner_text() == "self-reported"
    page.select_option("#filter-workflow", "dme")
    assert rows.evaluate_all("rows => rows.map(r => r.dataset.name)") == ["alpha", "beta"]
    assert console_errors == []


def test_report_viewer_and_leaderboard_have_no_serious_accessibility_violations(page, report_dir, tmp_path,
                                                                                tasks_dir):
    from axe_playwright_python.sync_playwright import Axe

    subs = tmp_path / "subs"
    write_submission(subs / "alpha", tasks_dir, agent="alpha", observation="screenshot", passes=lambda t, n: True)
    site = build_site(subs, tmp_path / "site", tasks_dir)
    for target in (report_dir / "index.html", report_dir / "episodes/pa-medium-01-t0.html", site.index):
        page.goto(target.as_uri())
        page.wait_for_load_state("load")
        blocking = [(v["id"], v["nodes"][0]["target"]) for v in Axe().run(page).response["violations"]
                    if v["impact"] in ("serious", "critical")]
        assert blocking == [], f"{target.name}: {blocking}"
