"""What `admindesk run` prints when a run ends, and what `--dry-run` prints instead of running.

The summary leads with deterministic success (every deterministic check and guard passed)
beside end-to-end success, and says in words what to do when rubric checks are unjudged:
without a judge, a run of the reference solutions reads 0% end to end, which is no failure.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from admindesk.harness.running.folder import needs_retry
from admindesk.harness.running.metrics import UNSCORED, cost_unknown, deterministic_pass

JUDGE_SPECS = "openai:MODEL, anthropic:MODEL or openai-compatible:URL#MODEL"


def summary_lines(run_json: dict[str, Any], out_dir: Path) -> list[str]:
    """The end-of-run text: success figures, unjudged rubric checks, cost, errors, where to look."""
    episodes = [e for e in run_json["episodes"] if e["result"] not in UNSCORED]
    n = len(episodes)
    metrics = run_json["metrics"]
    deterministic = sum(deterministic_pass(e) for e in episodes)
    passed = sum(e["result"] == "pass" for e in episodes)
    unjudged = sum(e["result"] == "unjudged" for e in episodes)
    lines = [f"deterministic success {_share(deterministic, n)}  every deterministic check and guard passed",
             f"end-to-end success    {_share(passed, n)}  every check passed, rubric checks included"]
    if unjudged:
        lines += [(f"  {unjudged} of {n} episode(s) passed every deterministic check and guard, but their rubric "
                   "checks (the text written: letters, notes, answers) need an LLM judge: they are unjudged, "
                   "not failed."),
                  f"  Judge them: admindesk score {out_dir} --judge SPEC   (or run with --judge SPEC);",
                  f"  SPEC is {JUDGE_SPECS}."]
    detail = metrics.get("detail", {})
    line = (f"subtask pass rate {metrics['subtask_pass_rate']:.2f}  pass^k {metrics['pass_hat_k']}  "
            f"episodes {n}  infra retries {len(run_json.get('infra_retries', []))}")
    priced = [e for e in episodes if "cost_usd" in e]
    if priced:
        unknown = sum(cost_unknown(e) for e in priced)
        line += (f"  cost unknown ({unknown} episode(s) of a model with no price in harness/agents/prices.json)"
                 if unknown else f"  cost ${detail.get('cost_usd', 0.0):.2f}")
    lines.append(line)
    infra = metrics["results"].get("infra_error", 0)
    if infra:
        lines.append(f"  {infra} episode(s) ended in an infra error (not scored): rerun into {out_dir} to run them again")
    errored = sum(needs_retry(e) for e in episodes)
    if errored:
        lines.append(f"  {errored} episode(s) errored: `admindesk run ... --out {out_dir} --retry-errors` reruns them")
    lines.append(f"-> {out_dir / 'run.json'}   (HTML: admindesk report {out_dir})")
    return lines


def dry_run_lines(names: list[str], done: dict[str, dict[str, Any]], out_dir: Path) -> list[str]:
    """One line per episode a run would consider (run, or kept as finished), then the count."""
    lines = [f"{name:<28} {'keep (finished: ' + done[name]['result'] + ')' if name in done else 'run'}"
             for name in names]
    lines.append(f"{len(names) - len(done)} episode(s) would run, {len(done)} finished one(s) kept in {out_dir}; "
                 "nothing was started (dry run)")
    return lines


def _share(count: int, total: int) -> str:
    return f"{count / total:4.0%} ({count}/{total})" if total else "   - (0/0)"
