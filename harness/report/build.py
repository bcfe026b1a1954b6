"""`write_report`: a static HTML report of one run, or a comparison of several, that opens
from disk (no server, no network).

    OUT/index.html                 the run's summary and charts (or the comparison)
    OUT/results.csv, results.tex   the results table (every run's, per workflow and difficulty)
    OUT/episodes/<episode>.html    a trajectory viewer per episode
    OUT/episodes/<episode>/*.png   the episode's step screenshots (copied)
    OUT/assets/                    plotly.min.js (from the plotly package), report.css, viewer.js
    OUT/runs/<n>-<agent>/          with several runs: each run's own report
"""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

import jinja2
from plotly.offline import get_plotlyjs

from admindesk.harness.report import charts, export
from admindesk.harness.report.run_data import Episode, RunData, load_run
from admindesk.harness.running import metrics as run_metrics

TEMPLATES = Path(__file__).with_name("templates")
STATIC_ASSETS = ("report.css", "viewer.js")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = lambda value: "-" if value is None else f"{value:.0%}"
    env.filters["ci"] = lambda est: f"{est['ci95'][0]:.0%}–{est['ci95'][1]:.0%}"
    # A model without a price costs "unknown", never $0.
    env.filters["usd"] = lambda value, places=4: "unknown" if value is None else f"${value:.{places}f}"
    return env


def write_assets(out: Path) -> Path:
    """plotly.min.js, the stylesheet and the scripts into OUT/assets (shared by every page)."""
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    (assets / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
    for name in STATIC_ASSETS:
        shutil.copyfile(TEMPLATES / name, assets / name)
    return assets


def _frames(episode: Episode) -> list[dict[str, Any]]:
    """Viewer frames: each screen with the action the agent then took on it (the next
    trajectory entry's action, reasoning and error); the last screen has none."""
    frames = []
    for position, step in enumerate(episode.steps):
        following = episode.steps[position + 1] if position + 1 < len(episode.steps) else None
        frames.append({
            "step": step.index, "url": step.url,
            "screenshot": f"{episode.name}/{step.screenshot}" if step.screenshot else None,
            "action": following.action if following else None,
            "reasoning": following.reasoning if following else "",
            "error": (following.error or following.note_error) if following else None,
            "cost_usd": following.cost_usd if following else None,
            # The model call that chose the action on this screen, and the text it was shown.
            "input_tokens": following.input_tokens if following else 0,
            "output_tokens": following.output_tokens if following else 0,
            "observation": step.observation_text})
    return frames


def evidence_steps(episode: Episode) -> dict[str, int]:
    """Check id -> the step whose screen shows where its evidence was made, where that is
    known: an audit check's hits are page paths (the first step showing one of them), and
    the final answer was given by the `done` action (the screen it was given on)."""
    if episode.score is None:
        return {}
    paths = [(step.index, urlsplit(step.url).path) for step in episode.steps]
    done = next((step.index - 1 for step in reversed(episode.steps)
                 if (step.action or {}).get("type") == "done"), None)
    found = {}
    for subtask in episode.score.subtasks:
        for check in subtask.checks:
            evidence = check.result.evidence
            hits = evidence.get("hits") if check.kind == "audit" else None
            if isinstance(hits, list):
                step = next((index for index, path in paths if path in hits), None)
            elif check.kind == "answer" or evidence.get("source") == "the final answer":
                step = done
            else:
                step = None
            if step is not None and step >= 0:
                found[check.id] = step
    return found


def _copy_screenshots(episode: Episode, target: Path) -> None:
    names = [step.screenshot for step in episode.steps if step.screenshot]
    if names:
        target.mkdir(parents=True, exist_ok=True)
    for name in names:
        source = episode.folder / name
        if source.exists():
            shutil.copyfile(source, target / name)


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return run_metrics.summarise(rows)


def version_rows(versions: dict[str, Any]) -> list[tuple[str, str]]:
    """run.json's `versions` as (name, value) rows: a viewport as WxH, the task revisions
    summed up (how many tasks at each revision), an unrecorded value as `unknown`."""
    rows = []
    for name, value in versions.items():
        if name == "task_revisions" and isinstance(value, dict):
            counts: dict[Any, int] = {}
            for revision in value.values():
                counts[revision] = counts.get(revision, 0) + 1
            shown = "; ".join(f"{n} task(s) at revision {revision}"
                              for revision, n in sorted(counts.items(), key=lambda item: str(item[0])))
        elif isinstance(value, dict) and set(value) == {"width", "height"}:
            shown = f"{value['width']}x{value['height']}"
        elif isinstance(value, dict):
            shown = ", ".join(f"{key} {item}" for key, item in value.items())
        else:
            shown = "unknown" if value is None else str(value)
        rows.append((name, shown or "none"))
    return rows


def _write_results(runs: list[RunData], out: Path) -> None:
    table = export.results_rows(runs)
    (out / "results.csv").write_text(export.results_csv(table), encoding="utf-8")
    (out / "results.tex").write_text(export.results_latex(table), encoding="utf-8")


def _render_run(run: RunData, out: Path, env: jinja2.Environment, assets: str, up_link: str | None) -> None:
    rows = [episode.metrics_row() for episode in run.episodes]
    figures = [
        charts.by_group(rows, "workflow", "By workflow"),
        charts.by_group(rows, "difficulty", "By difficulty"),
        charts.by_group(rows, "challenge", "By challenge kind"),
        charts.by_category(rows),
        charts.near_misses(run.episodes),
        charts.first_failing(run.episodes),
        charts.guards(run.episodes),
        charts.steps_and_cost(run.episodes),
    ]
    chart_html = [charts.fragment(figure, f"chart-{n}") for n, figure in enumerate(figures)]
    (out / "episodes").mkdir(parents=True, exist_ok=True)
    for episode in run.episodes:
        _copy_screenshots(episode, out / "episodes" / episode.name)
        frames = _frames(episode)
        # "<" escaped so that no text in the data (reasoning, typed text) can close the <script>.
        frames_json = json.dumps(frames).replace("<", "\\u003c")
        page = env.get_template("viewer.html").render(
            run=run, episode=episode, frames=frames, frames_json=frames_json,
            evidence_steps=evidence_steps(episode) if frames else {},
            assets=f"../{assets}", index="../index.html")
        (out / "episodes" / f"{episode.name}.html").write_text(page, encoding="utf-8")
    _write_results([run], out)
    versions = run.meta.get("versions")
    page = env.get_template("report.html").render(
        run=run, summary=_summary(rows), charts=chart_html, assets=assets, up_link=up_link,
        versions=version_rows(versions if isinstance(versions, dict) else {}))
    (out / "index.html").write_text(page, encoding="utf-8")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "run"


def write_report(run_dirs: list[Path], out: Path, *, shared_assets: Path | None = None,
                 warn: Callable[[str], None] | None = None) -> Path:
    """Write the report of one run (or the comparison of several) into `out`; returns the
    index page. Every run folder is read first, so a bad one writes nothing. With
    `shared_assets` (a folder `write_assets` filled, e.g. a leaderboard site's) the pages
    link to it instead of getting their own copy of plotly.js. `warn` hears what the
    comparison page warns of (runs over different task sets)."""
    if not run_dirs:
        raise ValueError("no run folder given")
    runs = [load_run(path) for path in run_dirs]
    env = _environment()
    out.mkdir(parents=True, exist_ok=True)
    assets_dir = shared_assets or write_assets(out)

    def assets_from(folder: Path) -> str:
        return Path(os.path.relpath(assets_dir, folder)).as_posix()
    if len(runs) == 1:
        _render_run(runs[0], out, env, assets_from(out), up_link=None)
        return out / "index.html"
    links = []
    for number, run in enumerate(runs, start=1):
        folder = f"runs/{number}-{_slug(run.label)}"
        _render_run(run, out / folder, env, assets_from(out / folder), up_link="../../index.html")
        links.append(f"{folder}/index.html")
    warning = export.task_set_warning(runs)
    if warning and warn is not None:
        warn(warning)
    _render_comparison(runs, links, out, env, assets_from(out), warning)
    return out / "index.html"


def _render_comparison(runs: list[RunData], links: list[str], out: Path, env: jinja2.Environment,
                       assets: str, warning: str | None) -> None:
    rows = [[episode.metrics_row() for episode in run.episodes] for run in runs]
    task_ids = sorted({episode.line["task_id"] for run in runs for episode in run.episodes})
    grid = []
    for task_id in task_ids:
        cells = []
        for run, link in zip(runs, links):
            trials = [e for e in run.episodes if e.line["task_id"] == task_id]
            cells.append([{"result": e.line["result"], "trial": e.line["trial"],
                           "href": f"{link.rsplit('/', 1)[0]}/episodes/{e.name}.html"} for e in trials])
        grid.append({"task_id": task_id, "cells": cells})
    figures = [charts.cost_performance(runs, rows, "cost_usd", "mean cost per episode (USD)"),
               charts.cost_performance(runs, rows, "wall_s", "mean wall time per episode (s)")]
    _write_results(runs, out)
    page = env.get_template("compare.html").render(
        runs=list(zip(runs, links, [_summary(r) for r in rows])), grid=grid, warning=warning,
        charts=[charts.fragment(f, f"compare-{n}") for n, f in enumerate(figures)], assets=assets)
    (out / "index.html").write_text(page, encoding="utf-8")
