"""pass@k, pass^k, bootstrap intervals and grouping of run metrics (hand-made episodes)."""
from __future__ import annotations

import pytest

from admindesk.harness.running.metrics import pass_at_k, pass_hat_k, run_metrics


def episode(task_id: str, result: str, **extra):
    return {"task_id": task_id, "result": result, "subtask_pass_rate": 1.0 if result == "pass" else 0.0,
            "steps": 4, "wall_s": 2.0, **extra}


def test_pass_hat_k_needs_every_trial_and_pass_at_k_any():
    # 4 trials, 2 passed: any of 2 passes in 5 of 6 pairs, both pass in 1 of 6.
    assert pass_at_k(4, 2, 2) == pytest.approx(5 / 6)
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_at_k(4, 2, 1) == pass_hat_k(4, 2, 1) == pytest.approx(0.5)
    assert pass_hat_k(3, 3, 3) == 1.0 and pass_at_k(3, 0, 3) == 0.0
    with pytest.raises(ValueError, match="k"):
        pass_at_k(2, 1, 3)
    with pytest.raises(ValueError, match="passes"):
        pass_hat_k(2, 3, 1)


def test_run_metrics_pass_k_objects_keyed_by_k():
    # Task a passes every trial, b one of three: pass^3 counts only a, pass@3 both.
    episodes = [episode("a", "pass") for _ in range(3)] + [
        episode("b", "pass"), episode("b", "fail"), episode("b", "timeout")]
    metrics = run_metrics(episodes)
    assert set(metrics["pass_at_k"]) == set(metrics["pass_hat_k"]) == {"1", "2", "3"}
    assert metrics["pass_hat_k"]["3"] == pytest.approx(0.5)
    assert metrics["pass_at_k"]["3"] == pytest.approx(1.0)
    assert metrics["pass_at_k"]["1"] == metrics["pass_hat_k"]["1"] == pytest.approx(4 / 6, abs=1e-4)
    assert metrics["e2e_success"] == pytest.approx(4 / 6, abs=1e-4) and metrics["n_episodes"] == 6
    assert metrics["detail"]["n_timeouts"] == 1


def test_infra_errors_are_never_scored():
    episodes = [episode("a", "pass"), episode("a", "infra_error"), episode("b", "fail")]
    metrics = run_metrics(episodes)
    assert metrics["n_episodes"] == 2 and metrics["e2e_success"] == 0.5
    assert metrics["detail"]["n_infra_errors"] == 1 and metrics["results"]["infra_error"] == 1


def test_confidence_intervals_contain_the_estimate_and_are_seeded():
    episodes = [episode(f"t{i}", "pass" if i % 3 else "fail", cost_usd=0.01 * i, input_tokens=10)
                for i in range(12) for _ in range(2)]
    first, second = run_metrics(episodes), run_metrics(episodes)
    for name in ("e2e_success", "subtask_pass_rate", "mean_steps", "mean_wall_s", "mean_cost_usd"):
        estimate = first["detail"][name]
        low, high = estimate["ci95"]
        assert low <= estimate["value"] <= high, name
    low, high = first["detail"]["e2e_success"]["ci95"]
    assert low < high  # tasks differ, so resamples differ
    assert first["detail"] == second["detail"]
    assert first["detail"]["input_tokens"] == 240


def test_grouped_by_workflow_difficulty_challenge_and_category():
    episodes = [
        episode("a", "pass", workflow="prior_auth", difficulty="easy", challenge="none",
                categories={"form_completion": [2, 2]}),
        episode("b", "fail", workflow="prior_auth", difficulty="hard", challenge="coverage_termed",
                categories={"form_completion": [1, 2], "documentation": [0, 1]}),
        episode("c", "pass", workflow="dme", difficulty="easy", challenge="none",
                categories={"documentation": [1, 1]}),
    ]
    by = run_metrics(episodes)["by"]
    assert by["workflow"]["prior_auth"]["e2e_success"]["value"] == 0.5
    assert by["workflow"]["dme"]["n_episodes"] == 1
    assert by["difficulty"]["easy"]["e2e_success"]["value"] == 1.0
    assert by["challenge"]["coverage_termed"]["e2e_success"]["value"] == 0.0
    assert by["category"]["form_completion"]["subtask_pass_rate"]["value"] == pytest.approx(0.75)
    assert by["category"]["documentation"]["n_episodes"] == 2
