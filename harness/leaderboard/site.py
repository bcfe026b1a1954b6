"""`build_site`: validate every submission in a folder and write the static leaderboard.

    SITE/index.html              one row per agent (model, agent, observation mode): its
                                 public entry's end-to-end success (95% CI), ranked and
                                 filterable by observation mode and workflow, beside its
                                 held-out entries' (one column per held-out split); each
                                 saying whether its rubric verdicts were re-judged (`judge`)
                                 or are the submitter's own; overturned verdicts and judge
                                 errors per entry; rejected submissions listed with their
                                 reasons (a split the maintainers do not hold among them)

Submissions come from strangers: whatever is wrong with one (hostile files, a record another
submission also holds, a report that cannot be written) rejects it with its reasons, and the
build goes on with the others.
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

from admindesk.harness.leaderboard.ledger import Ledger, is_verified
from admindesk.harness.leaderboard.rejudge import RubricReview, rejudged_run
from admindesk.harness.leaderboard.splits import SplitCatalog
from admindesk.harness.leaderboard.submission import SUBMISSION_FILE, SubmissionMeta, Verdict, validate_submission
from admindesk.harness.leaderboard.submission_files import refuse_duplicate_records
from admindesk.harness.report.build import TEMPLATES as REPORT_TEMPLATES, write_assets, write_report
from admindesk.harness.report.run_data import load_run
from admindesk.harness.report.run_files import RunFolderError
from admindesk.harness.running import metrics as run_metrics
from admindesk.harness.task_tools.splits.manifest import PUBLIC_SPLIT
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
    # The split the entry ran: "public", or a held-out split the maintainers hold.
    split: str = PUBLIC_SPLIT
    # A held-out split whose seed the maintainers keep (only its sha256 is published).
    seed_private: bool = False
    # Replayed by the maintainers (its records are the ones in their ledger): only verified
    # entries are ranked; the others are listed as self-reported.
    verified: bool = False


@dataclass
class BoardRow:
    """One agent's line on the board: its public entry beside its held-out ones (split -> entry)."""

    public: Entry | None
    held_out: dict[str, Entry] = field(default_factory=dict)

    @property
    def lead(self) -> Entry:
        """The entry that names the row (the public one, else the first held-out one)."""
        return self.public or self.held_out[min(self.held_out)]


@dataclass
class Site:
    """What `build_site` listed and rejected, and the index page it wrote."""

    accepted: list[Entry]
    rejected: list[Verdict]
    index: Path
    rows: list[BoardRow] = field(default_factory=list)


def board_rows(entries: list[Entry]) -> list[BoardRow]:
    """Entries paired per agent (same model, agent and observation mode): a row holds at most
    one entry per split, newest first, so an agent's second public entry starts a second row.
    Verified public entries first, ranked by end-to-end success; then the self-reported ones
    (unranked, by success); rows with held-out entries only come last."""
    rows: dict[tuple[str, str, str], list[BoardRow]] = {}
    for entry in sorted(entries, key=lambda e: (-e.meta.date.toordinal(), e.name)):
        own = rows.setdefault((entry.meta.model, entry.meta.agent, entry.meta.observation), [])
        free = [row for row in own if (row.public is None if entry.split == PUBLIC_SPLIT
                                       else entry.split not in row.held_out)]
        row = free[0] if free else BoardRow(public=None)
        if not free:
            own.append(row)
        if entry.split == PUBLIC_SPLIT:
            row.public = entry
        else:
            row.held_out[entry.split] = entry
    everything = [row for own in rows.values() for row in own]
    ranked = sorted((row for row in everything if row.public is not None),
                    key=lambda r: (not r.public.verified, -r.public.scores["all"]["value"],
                                   -r.public.scores["all"]["ci95"][0], r.public.name))
    return ranked + sorted((row for row in everything if row.public is None), key=lambda r: r.lead.name)


def verified_ranks(rows: list[BoardRow]) -> list[int | None]:
    """Each row's rank: verified public entries are numbered in order, other rows have none."""
    ranks, rank = [], 0
    for row in rows:
        verified = row.public is not None and row.public.verified
        rank += verified
        ranks.append(rank if verified else None)
    return ranks


def board_row(row: dict[str, Any]) -> dict[str, Any]:
    """An episode's metrics row as the board counts it: an episode that ended as an infra
    error (no record: it was not retried to a result) is a failure here, not left out, so
    dropping failed episodes as 'infra errors' cannot raise an entry's score."""
    return {**row, "result": "fail"} if row["result"] == "infra_error" else row


def _scores(path: Path) -> dict[str, dict[str, Any]]:
    rows = [board_row(episode.metrics_row()) for episode in load_run(path).episodes]
    groups = {"all": rows}
    for row in rows:
        if row.get("workflow"):
            groups.setdefault(row["workflow"], []).append(row)
    scores = {}
    for name, group in groups.items():
        summary = run_metrics.summarise(group)
        scores[name] = {**summary["e2e_success"], "n_episodes": summary["n_episodes"],
                        "subtask_pass_rate": summary["subtask_pass_rate"]["value"],
                        "deterministic_success": summary["deterministic_success"]["value"]}
    return scores


def _validate(path: Path, tasks_dir: Path, judge: Judge | None, splits: SplitCatalog) -> Verdict:
    """validate_submission, with any failure of it rejecting this submission only."""
    try:
        return validate_submission(path, tasks_dir, judge, splits)
    except Exception as exc:  # an unforeseen hostile input must not stop the whole board
        return Verdict(path=path, problems=[f"the submission could not be checked ({type(exc).__name__}: {exc})"])


def find_submissions(folder: Path) -> list[Path]:
    """The submission folders directly under `folder` (those with a submission.json or run.json)."""
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and ((p / SUBMISSION_FILE).exists() or (p / "run.json").exists()))


def build_site(submissions_dir: Path, site_dir: Path, tasks_dir: Path, judge: Judge | None = None,
               splits: SplitCatalog | None = None, ledger: Ledger | None = None) -> Site:
    """Validate each submission under `submissions_dir`, write the site into `site_dir`.

    Public runs are checked against `tasks_dir`, held-out runs against the maintainers'
    copy of their split in `splits` (a split it does not hold rejects the submission).
    With `judge`, rubric checks are re-judged (submission.validate_submission) and each
    entry's figures and report show the re-judged results. An entry is verified when the
    maintainers' `ledger` holds its records as replayed (leaderboard.ledger)."""
    submissions = find_submissions(submissions_dir)
    if not submissions:
        raise ValueError(f"{submissions_dir}: no submission folder (one with submission.json) in it")
    splits = splits or SplitCatalog()
    verdicts = [_validate(path, tasks_dir, judge, splits) for path in submissions]
    refuse_duplicate_records(verdicts)
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
                try:
                    write_report([run], target, shared_assets=assets)
                    scores = _scores(run)
                except RunFolderError as exc:
                    verdict.problems.append(f"its report cannot be written: {exc.reason} "
                                            f"({str(exc.where).removeprefix(f'{run}/')})")
                    shutil.rmtree(target, ignore_errors=True)
                    continue
                split = verdict.split["name"]
                held = splits.get(split)
                accepted.append(Entry(name=verdict.name, meta=verdict.meta, scores=scores,
                                      report=f"entries/{verdict.name}/index.html", judge=verdict.judge,
                                      reviews=verdict.reviews, split=split,
                                      seed_private=held is not None and held.seed_private,
                                      verified=ledger is not None
                                      and is_verified(ledger, verdict.name, verdict.record_digests)))
    accepted.sort(key=lambda e: (-e.scores["all"]["value"], -e.scores["all"]["ci95"][0], e.name))
    rows = board_rows(accepted)
    held_out = sorted({entry.split for entry in accepted if entry.split != PUBLIC_SPLIT})
    private = {entry.split for entry in accepted if entry.seed_private}
    workflows = sorted({w for entry in accepted for w in entry.scores if w != "all"})
    # The page extends the report's base template (same header and stylesheet).
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([TEMPLATES, REPORT_TEMPLATES]),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    page = env.get_template("leaderboard.html").render(
        entries=accepted, rows=[(row, json.dumps(row.public.scores if row.public else {}), rank)
                                for row, rank in zip(rows, verified_ranks(rows))],
        held_out=[(name, name in private) for name in held_out], workflows=workflows,
        observations=("screenshot", "axtree", "both"), rejected=[v for v in verdicts if not v.accepted],
        assets="assets")
    index = site_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return Site(accepted=accepted, rejected=[v for v in verdicts if not v.accepted], index=index, rows=rows)
