"""The determinism digest: concurrent sub-requests may arrive in any order, nothing else may differ."""
from __future__ import annotations

from admindesk.harness.running.local import snapshot_hash


def event(n: int, endpoint: str, path: str, at: str = "2026-11-16T09:00:00") -> dict:
    return {"id": n, "at": at, "endpoint": endpoint, "path": path, "action": "view"}


def snapshot(*events: dict) -> dict:
    return {"audit_events": list(events), "faxes": [{"id": "FAX-1"}]}


PAGE_LOAD = (event(1, "inbox.show", "/inbox/FAX-1"), event(2, "inbox.page_image", "/inbox/FAX-1/pages/1.png"),
             event(3, "inbox.page_image", "/inbox/FAX-1/pages/2.png"))


def test_page_images_fetched_in_another_order_hash_the_same():
    swapped = (PAGE_LOAD[0], event(2, "inbox.page_image", "/inbox/FAX-1/pages/2.png"),
               event(3, "inbox.page_image", "/inbox/FAX-1/pages/1.png"))
    assert snapshot_hash(snapshot(*PAGE_LOAD)) == snapshot_hash(snapshot(*swapped))


def test_a_different_order_of_actions_or_a_different_action_hashes_differently():
    base = snapshot_hash(snapshot(*PAGE_LOAD))
    assert snapshot_hash(snapshot(PAGE_LOAD[1], PAGE_LOAD[0], PAGE_LOAD[2])) != base
    assert snapshot_hash(snapshot(*PAGE_LOAD[:2])) != base
    assert snapshot_hash({**snapshot(*PAGE_LOAD), "faxes": [{"id": "FAX-2"}]}) != base
    later = event(3, "inbox.page_image", "/inbox/FAX-1/pages/2.png", at="2026-11-16T09:00:01")
    assert snapshot_hash(snapshot(PAGE_LOAD[0], later, PAGE_LOAD[1])) != \
        snapshot_hash(snapshot(PAGE_LOAD[0], PAGE_LOAD[1], later))
