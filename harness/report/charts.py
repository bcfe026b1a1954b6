"""The report's charts, as plotly figures rendered to HTML fragments.

The fragments carry no plotly.js: the report ships plotly.min.js beside its pages (from
the installed plotly package), so a report opens from disk with no network.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import plotly.graph_objects as go

from admindesk.harness.report.run_data import Episode, RunData
from admindesk.harness.running import metrics as run_metrics

RESULT_COLOURS = {"pass": "#1b7f3b", "unjudged": "#b58100", "fail": "#c0392b", "error": "#6c3483",
                  "timeout": "#935116", "infra_error": "#7f8c8d"}
E2E_COLOUR, SUBTASK_COLOUR = "#1f4e79", "#6fa8dc"
LAYOUT = dict(template="plotly_white", height=320, margin=dict(l=50, r=20, t=50, b=60),
              font=dict(family="DejaVu Sans, Arial, sans-serif", size=12),
              legend=dict(orientation="h", y=-0.25))


def fragment(figure: go.Figure, div_id: str) -> str:
    """The figure as a <div> plus its script; plotly.js itself is loaded once by the page."""
    # A chart that set its own height (a long list of bars) keeps it.
    figure.update_layout(**{**LAYOUT, "height": figure.layout.height or LAYOUT["height"]})
    return figure.to_html(full_html=False, include_plotlyjs=False, div_id=div_id,
                          config={"displaylogo": False, "responsive": True})


def _note_when_empty(figure: go.Figure, has_data: bool, note: str) -> go.Figure:
    """A chart with nothing to show says so instead of drawing empty axes."""
    if not has_data:
        figure.add_annotation(text=note, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5,
                              font=dict(size=16))
        figure.update_xaxes(visible=False)
        figure.update_yaxes(visible=False)
    return figure


def _bar_with_ci(name: str, labels: list[str], estimates: list[dict[str, Any]], colour: str) -> go.Bar:
    values = [e["value"] for e in estimates]
    return go.Bar(name=name, x=labels, y=values, marker_color=colour,
                  error_y=dict(type="data", symmetric=False,
                               array=[e["ci95"][1] - e["value"] for e in estimates],
                               arrayminus=[e["value"] - e["ci95"][0] for e in estimates]),
                  hovertemplate="%{x}: %{y:.0%}<extra>" + name + "</extra>")


def by_group(rows: list[dict[str, Any]], field: str, title: str) -> go.Figure:
    """End-to-end success and subtask pass rate per value of `field`, with 95% CIs; the
    distance between the two bars is the subtask-vs-end-to-end gap."""
    groups = sorted({str(row.get(field)) for row in rows if row.get(field) is not None})
    summaries = [run_metrics.summarise([r for r in rows if str(r.get(field)) == g]) for g in groups]
    e2e = _bar_with_ci("end-to-end success", groups, [s["e2e_success"] for s in summaries], E2E_COLOUR)
    e2e.update(offsetgroup="e2e")
    bars = [e2e]
    unjudged = [s["n_unjudged"] / s["n_episodes"] if s["n_episodes"] else 0.0 for s in summaries]
    if any(unjudged):
        # Unjudged episodes are neither passes nor failures: drawn on top of the passes in
        # their own colour, never as the 0 they would add to the success rate.
        bars.append(go.Bar(name="unjudged (awaits a judge)", x=groups, y=unjudged, offsetgroup="e2e",
                           base=[s["e2e_success"]["value"] for s in summaries],
                           marker_color=RESULT_COLOURS["unjudged"],
                           hovertemplate="%{x}: %{y:.0%} unjudged<extra></extra>"))
    bars.append(_bar_with_ci("subtask pass rate", groups, [s["subtask_pass_rate"] for s in summaries],
                             SUBTASK_COLOUR))
    bars[-1].update(offsetgroup="subtasks")
    figure = go.Figure(bars)
    figure.update_layout(title=title, barmode="group", yaxis=dict(range=[0, 1.05], tickformat=".0%"))
    return _note_when_empty(figure, bool(groups), f"no episode names its {field}")


def by_category(rows: list[dict[str, Any]]) -> go.Figure:
    """Share of subtasks passed per check category (information retrieval, form completion...)."""
    grouped = run_metrics.by_category(rows)
    names = list(grouped)
    figure = go.Figure([_bar_with_ci("subtask pass rate", names,
                                     [grouped[n]["subtask_pass_rate"] for n in names], SUBTASK_COLOUR)])
    figure.update_layout(title="Subtasks passed by check category", yaxis=dict(range=[0, 1.05], tickformat=".0%"))
    return _note_when_empty(figure, bool(names), "no subtask was scored")


def near_misses(episodes: list[Episode]) -> go.Figure:
    """How far episodes that did not pass got: their subtask pass rates (the gap between
    doing most of the work and finishing it)."""
    figure = go.Figure()
    for result in ("fail", "timeout", "unjudged", "error"):
        rates = [e.line.get("subtask_pass_rate", 0.0) for e in episodes if e.line["result"] == result]
        if rates:
            figure.add_trace(go.Histogram(x=rates, name=result, marker_color=RESULT_COLOURS[result],
                                          xbins=dict(start=0, end=1.0001, size=0.1)))
    figure.update_layout(title="Subtask pass rate of episodes that did not pass", barmode="stack",
                         xaxis=dict(range=[0, 1], tickformat=".0%", title="subtasks passed"),
                         yaxis=dict(title="episodes"))
    return _note_when_empty(figure, bool(figure.data), "every episode passed")


def first_failing(episodes: list[Episode]) -> go.Figure:
    """Where agents lose the thread: the first failing subtask of each failed episode,
    counted by subtask id and coloured by its check category."""
    counts: Counter = Counter()
    category_of: dict[str, str] = {}
    for episode in episodes:
        failing = episode.line.get("first_failing_subtask")
        if failing and episode.score is not None:
            counts[failing] += 1
            category_of[failing] = next((s.category for s in episode.score.subtasks if s.id == failing), "?")
    ordered = counts.most_common()
    figure = go.Figure()
    for category in sorted(set(category_of.values())):
        picked = [(name, n) for name, n in ordered if category_of[name] == category]
        figure.add_trace(go.Bar(name=category, y=[name for name, _ in picked], x=[n for _, n in picked],
                                orientation="h"))
    figure.update_layout(title="First failing subtask", height=max(320, 120 + 22 * len(ordered)),
                         xaxis=dict(title="episodes"),
                         yaxis=dict(autorange="reversed"), barmode="stack")
    return _note_when_empty(figure, bool(counts), "no episode failed a subtask")


def guards(episodes: list[Episode]) -> go.Figure:
    """How many episodes triggered each guard kind (a harm: wrong recipient, duplicate...)."""
    counts = Counter(g.kind for e in episodes if e.score for g in e.score.guards if not g.result.passed)
    names = sorted(counts)
    figure = go.Figure([go.Bar(x=names, y=[counts[n] for n in names], marker_color=RESULT_COLOURS["fail"],
                               name="guards triggered")])
    figure.update_layout(title=f"Guards triggered ({sum(counts.values())} in all)", yaxis=dict(title="episodes"))
    return _note_when_empty(figure, bool(counts), "no guard was triggered")


def steps_and_cost(episodes: list[Episode]) -> go.Figure:
    """Steps per episode against its cost in dollars, one point per episode, coloured by result."""
    figure = go.Figure()
    for result, colour in RESULT_COLOURS.items():
        picked = [e for e in episodes if e.line["result"] == result]
        if picked:
            figure.add_trace(go.Scatter(
                x=[e.line.get("steps", 0) for e in picked], y=[e.cost_usd for e in picked], mode="markers",
                name=result, marker=dict(color=colour, size=9), text=[e.name for e in picked],
                hovertemplate="%{text}: %{x} steps, $%{y:.4f}<extra></extra>"))
    figure.update_layout(title="Steps and cost per episode", xaxis=dict(title="steps"),
                         yaxis=dict(title="cost (USD)", rangemode="tozero"))
    return figure


def cost_performance(runs: list[RunData], rows: list[list[dict[str, Any]]], x_field: str, x_title: str) -> go.Figure:
    """One point per run: end-to-end success (with its CI) against the mean per-episode
    `x_field` (dollars or wall seconds)."""
    figure = go.Figure()
    for run, run_rows in zip(runs, rows):
        summary = run_metrics.summarise(run_rows)
        x_value = summary["mean_cost_usd" if x_field == "cost_usd" else "mean_wall_s"]["value"]
        e2e = summary["e2e_success"]
        figure.add_trace(go.Scatter(
            x=[x_value], y=[e2e["value"]], mode="markers", name=run.label, marker=dict(size=13),
            error_y=dict(type="data", symmetric=False, array=[e2e["ci95"][1] - e2e["value"]],
                         arrayminus=[e2e["value"] - e2e["ci95"][0]])))
    figure.update_layout(title=f"End-to-end success vs {x_title}", xaxis=dict(title=x_title, rangemode="tozero"),
                         yaxis=dict(range=[-0.05, 1.1], tickformat=".0%", title="end-to-end success"))
    return figure
