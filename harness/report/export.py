"""The results table of a report as files for papers and spreadsheets: `results.csv` and
`results.tex` (a LaTeX tabular, booktabs rules), one row per run and slice (all episodes,
then each workflow and difficulty), and the warning a comparison of runs over different
task sets gets.

An episode no judge has read is `unjudged`: its column counts it, and the LaTeX table
marks the success rate as open instead of printing a success rate that reads as final.
"""
from __future__ import annotations

import csv
import io
from typing import Any

from admindesk.harness.report.run_data import RunData
from admindesk.harness.running import metrics as run_metrics

COLUMNS = ("run", "slice", "episodes", "e2e_success", "e2e_ci95_low", "e2e_ci95_high", "unjudged",
           "subtask_pass_rate", "mean_steps", "mean_cost_usd")
SLICE_FIELDS = ("workflow", "difficulty")
# LaTeX's special characters in text, each as it must be written.
LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                 "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _row(label: str, slice_name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    summary = run_metrics.summarise(rows)
    e2e = summary["e2e_success"]
    return {"run": label, "slice": slice_name, "episodes": summary["n_episodes"],
            "e2e_success": round(e2e["value"], 4), "e2e_ci95_low": round(e2e["ci95"][0], 4),
            "e2e_ci95_high": round(e2e["ci95"][1], 4), "unjudged": summary["n_unjudged"],
            "subtask_pass_rate": round(summary["subtask_pass_rate"]["value"], 4),
            "mean_steps": round(summary["mean_steps"]["value"], 2),
            # An unpriced model's cost is unknown: an empty cell, never 0.
            "mean_cost_usd": None if summary["n_cost_unknown"] else round(summary["mean_cost_usd"]["value"], 6)}


def results_rows(runs: list[RunData]) -> list[dict[str, Any]]:
    """Per run: a row over all its episodes, then one per workflow and per difficulty."""
    table = []
    for run in runs:
        rows = [episode.metrics_row() for episode in run.episodes]
        table.append(_row(run.label, "all", rows))
        for field in SLICE_FIELDS:
            for value in sorted({str(r[field]) for r in rows if r.get(field) is not None}):
                table.append(_row(run.label, f"{field}={value}",
                                  [r for r in rows if str(r.get(field)) == value]))
    return table


def results_csv(table: list[dict[str, Any]]) -> str:
    """The table as CSV with a header line (an unknown value is an empty cell)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    return out.getvalue()


def latex_text(text: str) -> str:
    """`text` with LaTeX's special characters escaped."""
    return "".join(LATEX_ESCAPES.get(char, char) for char in text)


def results_latex(table: list[dict[str, Any]]) -> str:
    """The table as a LaTeX tabular (needs \\usepackage{booktabs}); percentages with their
    95% interval, and `N unjudged` where episodes await a judge."""
    lines = [r"\begin{tabular}{llrlrrr}", r"\toprule",
             r"Run & Slice & Episodes & End-to-end success (95\% CI) & Subtasks & Steps & Cost (USD) \\",
             r"\midrule"]
    for row in table:
        success = (f"{row['e2e_success']:.0%} ({row['e2e_ci95_low']:.0%}--{row['e2e_ci95_high']:.0%})"
                   .replace("%", r"\%"))
        if row["unjudged"]:
            success += f", {row['unjudged']} unjudged"
        cost = "unknown" if row["mean_cost_usd"] is None else f"{row['mean_cost_usd']:.4f}"
        cells = [latex_text(row["run"]), latex_text(row["slice"]), str(row["episodes"]), success,
                 f"{row['subtask_pass_rate']:.0%}".replace("%", r"\%"), f"{row['mean_steps']:.1f}", cost]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)


def task_set_warning(runs: list[RunData]) -> str | None:
    """Why runs over different task sets cannot be compared figure for figure, or None when
    every run covers the same tasks."""
    sets = [{episode.line["task_id"] for episode in run.episodes} for run in runs]
    shared = set.intersection(*sets) if sets else set()
    if all(tasks == shared for tasks in sets):
        return None
    extra = [f"{run.label} has {len(tasks - shared)} task(s) the others lack"
             for run, tasks in zip(runs, sets) if tasks - shared]
    return (f"the runs cover different task sets ({len(shared)} task(s) in common; " + "; ".join(extra)
            + "): their figures are over different tasks and are not comparable as they stand")
