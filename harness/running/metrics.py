"""Run metrics over scored episodes: end-to-end success, subtask pass rate, pass@k and
pass^k, mean steps, wall time, tokens and cost, each with a 95% bootstrap confidence
interval, overall and grouped by workflow, difficulty, challenge kind and check category.

An episode is a dict with at least `task_id`, `result` (pass | unjudged | fail | error |
timeout | infra_error), `subtask_pass_rate`, `steps` and `wall_s`; optional
`deterministic_pass` (every deterministic check and guard passed), `workflow`,
`difficulty`, `challenge`, `categories` ({category: [passed, total]} subtasks of that
category), `input_tokens`, `output_tokens`, `cost_usd` (None: the model has no price, so the
cost is unknown, not zero; such episodes are counted in `n_cost_unknown` and left out of the
cost figures).

Deterministic success is the share of episodes whose deterministic checks and guards all
pass: end-to-end success with the rubric checks (an LLM judge's) left aside. Without a judge
it is the figure a run can vouch for; an `unjudged` episode counts in it, never in
end-to-end success.

Infra errors (an app died, the browser crashed) are the harness's fault, not the agent's:
they are counted apart and left out of every score. Timeouts are the agent's: they fail.

pass@k is the chance that at least one of k trials passes, pass^k (tau-bench) that all k
pass; both are estimated per task without bias from its n trials (c passed) as
1 - C(n-c, k)/C(n, k) and C(c, k)/C(n, k), then averaged over tasks.

Confidence intervals resample tasks (with all their trials, since trials of one task are
not independent) with a seeded numpy generator, so a run's figures are reproducible.
"""
from __future__ import annotations

from math import comb
from typing import Any, Callable, Iterable

import numpy as np

BOOTSTRAP_SAMPLES = 1000
BOOTSTRAP_SEED = 20260101
GROUP_FIELDS = ("workflow", "difficulty", "challenge")
UNSCORED = ("infra_error",)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate that at least one of k trials out of n (c passing) passes."""
    _check_counts(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate that all k trials out of n (c passing) pass (tau-bench pass^k)."""
    _check_counts(n, c, k)
    return comb(c, k) / comb(n, k)


def _check_counts(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n:
        raise ValueError(f"passes ({c}) must be between 0 and the trials ({n})")
    if not 1 <= k <= n:
        raise ValueError(f"k ({k}) must be between 1 and the trials ({n})")


def bootstrap_ci(per_task: list[list[float]], statistic: Callable[[list[list[float]]], float], *,
                 samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED
                 ) -> tuple[float, float]:
    """95% percentile interval of `statistic` over task-level resamples of `per_task`
    (one list of values per task)."""
    if not per_task:
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(per_task), size=(samples, len(per_task)))
    values = np.array([statistic([per_task[i] for i in row]) for row in picks])
    low, high = np.percentile(values, [2.5, 97.5])
    return (round(float(low), 4), round(float(high), 4))


def _mean_of_all(groups: list[list[float]]) -> float:
    flat = [value for group in groups for value in group]
    return float(np.mean(flat)) if flat else 0.0


def _estimate(per_task: list[list[float]], statistic: Callable[[list[list[float]]], float]
              ) -> dict[str, Any]:
    low, high = bootstrap_ci(per_task, statistic)
    return {"value": round(statistic(per_task), 4), "ci95": [low, high]}


def _by_task(episodes: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    tasks: dict[str, list[dict[str, Any]]] = {}
    for episode in episodes:
        tasks.setdefault(episode["task_id"], []).append(episode)
    return tasks


def _pass_k_statistic(estimator: Callable[[int, int, int], float], k: int
                      ) -> Callable[[list[list[float]]], float]:
    def statistic(per_task: list[list[float]]) -> float:
        return float(np.mean([estimator(len(trials), int(sum(trials)), k) for trials in per_task]))
    return statistic


def deterministic_pass(episode: dict[str, Any]) -> bool:
    """Whether the episode's deterministic checks and guards all passed (from its result
    when the line does not say: an unjudged episode passed all of them)."""
    if episode.get("deterministic_pass") is not None:
        return bool(episode["deterministic_pass"])
    return episode["result"] in ("pass", "unjudged")


def cost_unknown(episode: dict[str, Any]) -> bool:
    """Whether the episode's model calls have no price (a `cost_usd` given as None)."""
    return "cost_usd" in episode and episode["cost_usd"] is None


def summarise(episodes: list[dict[str, Any]]) -> dict[str, Any]:
    """The metrics of one set of episodes (see the module docstring)."""
    scored = [e for e in episodes if e["result"] not in UNSCORED]
    tasks = _by_task(scored)
    passes = [[1.0 if e["result"] == "pass" else 0.0 for e in trials] for trials in tasks.values()]
    deterministic = [[1.0 if deterministic_pass(e) else 0.0 for e in trials] for trials in tasks.values()]

    def per_task(field: str) -> list[list[float]]:
        return [[float(e.get(field) or 0.0) for e in trials] for trials in tasks.values()]

    result: dict[str, Any] = {
        "n_episodes": len(scored), "n_tasks": len(tasks),
        "n_infra_errors": len(episodes) - len(scored),
        "n_timeouts": sum(e["result"] == "timeout" for e in scored),
        "e2e_success": _estimate(passes, _mean_of_all),
        "deterministic_success": _estimate(deterministic, _mean_of_all),
        "n_unjudged": sum(e["result"] == "unjudged" for e in scored),
        "subtask_pass_rate": _estimate(per_task("subtask_pass_rate"), _mean_of_all),
        "mean_steps": _estimate(per_task("steps"), _mean_of_all),
        "mean_wall_s": _estimate(per_task("wall_s"), _mean_of_all),
        "total_wall_s": round(sum(float(e.get("wall_s") or 0.0) for e in scored), 2),
        "input_tokens": sum(int(e.get("input_tokens") or 0) for e in scored),
        "output_tokens": sum(int(e.get("output_tokens") or 0) for e in scored),
        "cost_usd": round(sum(float(e.get("cost_usd") or 0.0) for e in scored), 6),
        "n_cost_unknown": sum(cost_unknown(e) for e in scored),
        "mean_cost_usd": _estimate(per_task("cost_usd"), _mean_of_all),
    }
    # k runs up to the fewest trials any task has, so every task has an estimate at each k.
    max_k = min((len(trials) for trials in passes), default=0)
    result["pass_at_k"] = {str(k): _estimate(passes, _pass_k_statistic(pass_at_k, k))
                           for k in range(1, max_k + 1)}
    result["pass_hat_k"] = {str(k): _estimate(passes, _pass_k_statistic(pass_hat_k, k))
                            for k in range(1, max_k + 1)}
    return result


def by_category(episodes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per check category: the share of that category's subtasks passed, with a CI."""
    scored = [e for e in episodes if e["result"] not in UNSCORED]
    categories = sorted({name for e in scored for name in (e.get("categories") or {})})
    grouped = {}
    for category in categories:
        tasks = _by_task(e for e in scored if category in (e.get("categories") or {}))
        rates = [[e["categories"][category][0] / e["categories"][category][1] for e in trials]
                 for trials in tasks.values()]
        grouped[category] = {"n_episodes": sum(len(r) for r in rates),
                             "subtask_pass_rate": _estimate(rates, _mean_of_all)}
    return grouped


def run_metrics(episodes: list[dict[str, Any]]) -> dict[str, Any]:
    """run.json's `metrics`: the overall figures (flat `e2e_success`, `subtask_pass_rate` and
    `n_episodes` kept as numbers for the tools that read them), their CIs, and the groups."""
    overall = summarise(episodes)
    metrics: dict[str, Any] = {
        "e2e_success": overall["e2e_success"]["value"],
        "deterministic_success": overall["deterministic_success"]["value"],
        "subtask_pass_rate": overall["subtask_pass_rate"]["value"],
        "n_episodes": overall["n_episodes"],
        "pass_at_k": {k: v["value"] for k, v in overall["pass_at_k"].items()},
        "pass_hat_k": {k: v["value"] for k, v in overall["pass_hat_k"].items()},
        "results": {r: sum(e["result"] == r for e in episodes)
                    for r in ("pass", "unjudged", "fail", "error", "timeout", "infra_error")},
        "detail": overall,
        "by": {field: {str(value): summarise([e for e in episodes if e.get(field) == value])
                       for value in sorted({e.get(field) for e in episodes}, key=str)}
               for field in GROUP_FIELDS},
    }
    metrics["by"]["category"] = by_category(episodes)
    return metrics
