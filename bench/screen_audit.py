"""Screen audit: each app's main screens as a coordinator sees them in Chromium at 1280x720.

The four apps run as the harness serves them (Services, bare world, clock at the default
`now`). Signed in as coordinator through each app's login form, the audit follows links
from home to pick up to 15 screens, one per screen shape (admindesk.harness.task_tools.screen_survey),
and prints per app the median visible words and controls per screen, then posts each
screen's main form so that it fails validation and counts the pages whose result (first
error, alert or flash) is outside the viewport or missing.
Targets (issue 10): median >= 250 words and >= 30 controls per screen; 0 results out of view.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from admindesk.harness.env.browser import CHROMIUM_ARGS, CHROMIUM_PATH, acquire_playwright, release_playwright
from admindesk.harness.env.services import APP_NAMES, Services
from admindesk.harness.task_tools.screen_survey import (
    VIEWPORT,
    check_post_result,
    discover_screens,
    measure_density,
    sign_in,
)

TARGET_WORDS = 250
TARGET_CONTROLS = 30


def audit_app(browser, base_url: str) -> dict:
    """Screens, density and post results of the app served at `base_url`."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US", timezone_id="America/New_York")
    try:
        page = context.new_page()
        sign_in(page, base_url)
        screens = discover_screens(page, base_url)
        densities = [measure_density(page, base_url, path) for path in screens]
        # Posts come after every density reading: a post may change what later screens show.
        posted: set[str] = set()
        posts = [result for path in screens if (result := check_post_result(page, base_url, path, posted))]
    finally:
        context.close()
    return {
        "screens": [asdict(density) for density in densities],
        "posts": [asdict(post) for post in posts],
        "median_words": statistics.median(d.words for d in densities) if densities else 0,
        "median_controls": statistics.median(d.controls for d in densities) if densities else 0,
        "posts_out_of_view": sum(post.outcome == "out of view" for post in posts),
        "posts_without_message": sum(post.outcome == "no message" for post in posts),
    }


def print_report(console: Console, report: dict[str, dict]) -> None:
    for app, figures in report.items():
        console.print(f"[bold]{app}[/bold]: {len(figures['screens'])} screens")
        for screen in figures["screens"]:
            console.print(f"  {screen['path']:<60} {screen['words']:>5} words {screen['controls']:>4} controls",
                          soft_wrap=True)
        for post in figures["posts"]:
            where = f" (top {post['top']} px)" if post["top"] is not None else ""
            console.print(f"  post {post['action']:<55} {post['outcome']}{where} -> {post['landed_on']}"
                          + (f": {post['message']!r}" if post["message"] else ""), soft_wrap=True, markup=False)
    table = Table(title=f"Screens at {VIEWPORT['width']}x{VIEWPORT['height']} (targets: median words >= "
                        f"{TARGET_WORDS}, controls >= {TARGET_CONTROLS}, 0 results out of view)")
    for column in ("app", "screens", "median words", "median controls", "posts", "out of view", "no message"):
        table.add_column(column, justify="left" if column == "app" else "right")
    for app, figures in report.items():
        words, controls = figures["median_words"], figures["median_controls"]
        table.add_row(app, str(len(figures["screens"])),
                      f"[{'green' if words >= TARGET_WORDS else 'red'}]{words:g}[/]",
                      f"[{'green' if controls >= TARGET_CONTROLS else 'red'}]{controls:g}[/]",
                      str(len(figures["posts"])),
                      f"[{'red' if figures['posts_out_of_view'] else 'green'}]{figures['posts_out_of_view']}[/]",
                      str(figures["posts_without_message"]))
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", default=",".join(APP_NAMES),
                        help=f"comma-separated apps to audit (default: all of {', '.join(APP_NAMES)})")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of tables")
    parser.add_argument("--out", type=Path, help="also write the JSON report to this file")
    args = parser.parse_args(argv)
    apps = [name.strip() for name in args.apps.split(",") if name.strip()]
    unknown = sorted(set(apps) - set(APP_NAMES))
    if unknown or not apps:
        parser.error(f"--apps: unknown app(s) {', '.join(unknown) or '(none given)'}; "
                     f"choose from {', '.join(APP_NAMES)}")
    # Progress goes to stderr so that --json leaves stdout machine-readable.
    stream = sys.stderr if args.json else sys.stdout
    console = Console(stderr=args.json, width=None if stream.isatty() else 150)
    report: dict[str, dict] = {}
    playwright = acquire_playwright()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        with Services(apps=apps) as services:
            services.reset_all()
            for app in apps:
                console.log(f"auditing {app}")
                report[app] = audit_app(browser, services.url(app, "").rstrip("/"))
        browser.close()
    finally:
        release_playwright()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(console, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
