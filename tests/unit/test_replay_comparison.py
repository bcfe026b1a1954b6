"""Replay compares what scoring can see, not the order a browser's parallel image loads
reached the app: a viewer's page images, loaded at one moment, agree in any order; a page
not loaded, another moment, or any other row out of place still differs."""
from __future__ import annotations

from admindesk.harness.leaderboard.replay import comparable, compare_records
from admindesk.verifiers.records import EpisodeRecord

VIEW = {"id": 1, "at": "2026-11-16T09:00:00", "endpoint": "inbox.fax_detail", "path": "/inbox/FAX-1"}
SAVE = {"id": 5, "at": "2026-11-16T09:00:00", "endpoint": "inbox.index_fax", "path": "/inbox/FAX-1/index"}


def page(row_id: int, number: int, at: str = "2026-11-16T09:00:00") -> dict:
    return {"id": row_id, "at": at, "endpoint": "inbox.page_image", "path": f"/inbox/FAX-1/pages/{number}.png",
            "detail": {"page": number}}


def fax_snapshot(*rows: dict) -> dict:
    return {"audit_events": list(rows), "inbound_faxes": [{"id": "FAX-1"}]}


def differences(recorded: dict, replayed: dict) -> list:
    return compare_records("ep", EpisodeRecord(task_id="t", final_snapshots={"fax": recorded}),
                           EpisodeRecord(task_id="t", final_snapshots={"fax": replayed}))


def test_page_images_loaded_at_one_moment_agree_in_any_order():
    recorded = fax_snapshot(VIEW, page(2, 3), page(3, 1), page(4, 2), SAVE)
    replayed = fax_snapshot(VIEW, page(2, 1), page(3, 2), page(4, 3), SAVE)
    assert comparable(recorded) == comparable(replayed)
    assert differences(recorded, replayed) == []


def test_a_page_not_loaded_a_later_load_or_a_row_out_of_place_differs():
    recorded = fax_snapshot(VIEW, page(2, 1), page(3, 2), page(4, 3), SAVE)
    missing = fax_snapshot(VIEW, page(2, 1), page(3, 2), page(4, 2), SAVE)
    later = fax_snapshot(VIEW, page(2, 1), page(3, 2), page(4, 3, at="2026-11-16T09:05:00"), SAVE)
    moved = fax_snapshot(VIEW, page(2, 1), page(3, 2), dict(SAVE, id=4), page(5, 3))
    for replayed in (missing, later, moved):
        [finding] = differences(recorded, replayed)
        assert finding.app == "fax" and "audit_events" in finding.what
