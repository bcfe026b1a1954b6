"""`build_site`: validate every submission in a folder and write the static leaderboard.

    SITE/index.html              accepted entries ranked by end-to-end success (95% CI),
                                 filterable by observation mode and workflow, each saying
                                 whether its rubric verdicts were re-judged (`judge`) or are
                                 the submitter's own; overturned verdicts and judge errors
                                 per entry; rejected submissions listed with their reasons
    SITE/entries/<name>/         each accepted entry's full report (harness.report)
    SITE/assets/                 plotly.min.js, report.css, viewer.js, leaderboard.js (shared
                                 by every page, so plotly.js is shipped once)
"""
from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from admindesk.harness import run_metrics
from admindesk.harness.leaderboard.rejudge import RubricReview, rejudged_run
from admindesk.harness.leaderboard.submission import SUBMISSION_FILE, SubmissionMeta, Verdict, validate_submission
from admindesk.harness.report.build import TEMPLATES as REPORT_TEMPLATES
from admindesk.harness.report.build import write_assets, write_report
from admindesk.harness.report.run_data import load_run
from admindesk.verifiers.judge import Judge

TEMPLATES = Path(__file__).with_name("templates")


@dataclass
class Entry:
    """An accepted submission: its metadata, its scores (overall and per workflow), its report."""

    name: str
    meta: SubmissionMeta
    scores: dict[str, dict[str, Any]]  # "all" or a workflow -> {value, ci95, n_episodes}
    report: str
    # The maintainers' judge that re-judged the rubric checks; None: the submitter's verdicts.
    judge: str | None = None
    # Overturned verdicts and judge errors (none changed a result, or it would be rejected).
    reviews: list[RubricReview] = field(default_factory=list)


@dataclass
class Site:
    """What `build_site` listed and rejected, and the index page it wrote."""

    accepted: list[Entry]
    rejected: list[Verdict]
    index: Path


def _scores(path: Path) -> dict[str, dict[str, Any]]:
    rows = [episode.metrics_row() for episode in load_run(path).episodes]
    groups = {"all": rows}
    for row in rows:
        if row.get("workflow"):
            groups.setdefault(row["workflow"], []).append(row)
    scores = {}
    for name, group in groups.items():
        summary = run_metrics.summarise(group)
        scores[name] = {**summary["e2e_success"], "n_episodes": summary["n_episodes"],
                        "subtask_pass_rate": summary["subtask_pass_rate"]["value"]}
    return scores


def find_submissions(folder: Path) -> list[Path]:
    """The submission folders directly under `folder` (those with a submission.json or run.json)."""
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and ((p / SUBMISSION_FILE).exists() or (p / "run.json").exists()))


def build_site(submissions_dir: Path, site_dir: Path, tasks_dir: Path, judge: Judge | None = None) -> Site:
    """Validate each submission under `submissions_dir`, write the site into `site_dir`.

    With `judge`, rubric checks are re-judged (submission.validate_submission) and each
    entry's figures and report show the re-judged results."""
    submissions = find_submissions(submissions_dir)
    if not submissions:
        raise ValueError(f"{submissions_dir}: no submission folder (one with submission.json) in it")
    verdicts = [validate_submission(path, tasks_dir, judge) for path in submissions]
    site_dir.mkdir(parents=True, exist_ok=True)
    assets = write_assets(site_dir)
    shutil.copyfile(TEMPLATES / "leaderboard.js", assets / "leaderboard.js")
    # Entries are rebuilt whole, so a submission rejected since the last build leaves no report.
    shutil.rmtree(site_dir / "entries", ignore_errors=True)
    accepted = []
    with tempfile.TemporaryDirectory(prefix="admindesk-rejudged-") as scratch:
        for verdict in verdicts:
            if verdict.accepted and verdict.meta is not None:
                run = verdict.path
                if verdict.judge is not None:
                    run = rejudged_run(verdict.path, verdict.rejudged, Path(scratch) / verdict.name)
                target = site_dir / "entries" / verdict.name
                write_report([run], target, shared_assets=assets)
                accepted.append(Entry(name=verdict.name, meta=verdict.meta, scores=_scores(run),
                                      report=f"entries/{verdict.name}/index.html", judge=verdict.judge,
                                      reviews=verdict.reviews))
    accepted.sort(key=lambda e: (-e.scores["all"]["value"], -e.scores["all"]["ci95"][0], e.name))
    workflows = sorted({w for entry in accepted for w in entry.scores if w != "all"})
    # The page extends the report's base template (same header and stylesheet).
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([TEMPLATES, REPORT_TEMPLATES]),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    page = env.get_template("leaderboard.html").render(
        entries=[(entry, json.dumps(entry.scores)) for entry in accepted], workflows=workflows,
        observations=("screenshot", "axtree", "both"), rejected=[v for v in verdicts if not v.accepted],
        assets="assets")
    index = site_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return Site(accepted=accepted, rejected=[v for v in verdicts if not v.accepted], index=index)
