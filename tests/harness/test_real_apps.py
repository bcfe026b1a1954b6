"""Against the real apps: EHR download -> fax upload through the drawn dialog, same hash."""
from __future__ import annotations

import json

import pytest

from admindesk.harness.env.services import available_apps

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not {"ehr_web", "fax"} <= set(available_apps()),
                                 reason="needs the EHR and fax apps")]


def test_demo_faxes_exactly_the_downloaded_document(tmp_path):
    from admindesk.harness.agents.demo import run_demo

    result = run_demo(tmp_path)
    assert result.hashes_match, (result.downloaded_sha256, result.faxed_sha256)
    record = result.record
    assert [f.sha256 for f in record.uploads] == [result.downloaded_sha256]
    lines = (tmp_path / "demo-001" / "trajectory.jsonl").read_text().splitlines()
    assert len(lines) == len(record.trajectory) and json.loads(lines[-1])["action"]["type"] == "done"
    # The episode's initial state had no outbound fax; the final one has exactly one.
    assert len(record.final_snapshots["fax"]["outbound_faxes"]) == \
        len(record.initial_snapshots["fax"]["outbound_faxes"]) + 1
