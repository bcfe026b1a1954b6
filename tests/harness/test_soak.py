"""A small soak on the real apps: each fault kind once, nothing lost, no state leaks."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from admindesk.harness.env.services import APP_NAMES, available_apps

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(set(available_apps()) != set(APP_NAMES),
                                 reason="needs all four apps")]
SOAK_SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


def test_soak_with_each_fault_kind_loses_no_episode_and_leaks_no_state():
    spec = importlib.util.spec_from_file_location("soak", SOAK_SCRIPT)
    soak = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = soak  # dataclasses look their module up there
    spec.loader.exec_module(soak)
    report = soak.run_soak(episodes=4, schedule=[*soak.FAULTS, None])
    assert report.completed == 4 and report.lost == 0, report.notes
    assert report.mismatches == 0, report.notes
    assert report.faults == {fault: 1 for fault in soak.FAULTS}
    # The killed and the hung app were each restarted; the killed renderers' pages replaced.
    assert report.recovered >= 3, report.notes


def test_resets_landing_mid_submit_leave_no_stale_rows_errors_or_orphan_files():
    spec = importlib.util.spec_from_file_location("soak", SOAK_SCRIPT)
    soak = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = soak
    spec.loader.exec_module(soak)
    report = soak.run_mid_submit_resets(episodes=8)
    assert report.episodes == 8 and len(report.reset_ms) == 9
    assert (report.hangs, report.stale_rows, report.server_errors, report.orphan_files) == (0, 0, 0, 0), \
        report.notes
