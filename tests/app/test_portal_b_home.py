"""Payer portal B: the home page agrees with the tables; DME on file is listed as DME; seeded appeal history."""
from __future__ import annotations

import html
import re
from collections import Counter
from datetime import date, timedelta

import pytest
from sqlalchemy import select

from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.models import DmeRequirement, PrecertRequest
from admindesk.envs.world import build_world

from .conftest import build_app, query
from .test_portal_b_appeal_levels import file_appeal

TODAY = date(2026, 11, 16)
TILE = re.compile(r'data-summary="([^"]+)">\s*<span class="tile-count">(\d+)</span>')


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def tiles(page: str) -> dict[str, int]:
    return {html.unescape(label): int(count) for label, count in TILE.findall(page)}


def expected_tiles(snapshot: dict) -> dict[str, int]:
    """The home page's counts, computed from the tables."""
    precerts = Counter(r["status"] for r in snapshot["precert_requests"])
    dme = Counter(r["status"] for r in snapshot["dme_requests"])
    appeals = Counter(r["status"] for r in snapshot["appeals"])
    claims = Counter(r["status"] for r in snapshot["claims"])
    counts = {f"{s} precertifications": precerts[s] for s in ("Pended", "Approved", "Denied")}
    counts |= {f"{s} DME requests": dme[s] for s in ("Pended", "Approved", "Denied")}
    counts |= {"Appeals in review": appeals["In Review"], "Appeals decided": appeals["Decided"],
               "Denied claims": claims["Denied"]}
    return counts


def recent_ids(page: str, kind: str) -> list[str]:
    rows = re.findall(rf'<tr data-recent="{kind}"><td class="id">(?:<a [^>]*>)?([^<]+)<', page)
    return [html.unescape(row) for row in rows]


def newest(rows: list[dict], at: str, key: str, n: int = 6) -> list[str]:
    return [r[key] for r in sorted(rows, key=lambda r: (r[at], r[key]), reverse=True)[:n]]


def test_home_counts_and_lists_agree_with_the_tables(client):
    page = client.get("/").get_data(as_text=True)
    snapshot = client.snapshot()
    assert tiles(page) == expected_tiles(snapshot)
    assert recent_ids(page, "precert") == newest(snapshot["precert_requests"], "submitted_at", "reference_number")
    assert recent_ids(page, "dme") == newest(snapshot["dme_requests"], "submitted_at", "request_id")
    assert recent_ids(page, "appeal") == newest(snapshot["appeals"], "submitted_at", "appeal_id")
    assert recent_ids(page, "letter") == newest(snapshot["correspondence"], "issued_on", "letter_id")
    # The bare world has something in every list (on-file requests, seeded appeal history).
    assert all(recent_ids(page, kind) for kind in ("precert", "dme", "appeal", "letter"))


def test_home_counts_follow_a_new_appeal(client):
    claim = next(c for c in client.snapshot()["claims"] if c["status"] == "Denied"
                 and c["claim_number"] not in {a["claim_number"] for a in client.snapshot()["appeals"]}
                 and any(e["claim_number"] == c["claim_number"] and e["appeal_deadline"] >= TODAY.isoformat()
                         for e in client.snapshot()["explanations_of_benefits"]))
    before = tiles(client.get("/").get_data(as_text=True))["Appeals in review"]

    class Row:  # the form helper reads attributes
        claim_number, billed_amount = claim["claim_number"], claim["billed_amount"]
        service_date = date.fromisoformat(claim["service_date"])
    assert file_appeal(client, Row).status_code == 302
    page = client.get("/").get_data(as_text=True)
    assert tiles(page)["Appeals in review"] == before + 1 and tiles(page) == expected_tiles(client.snapshot())


def test_summary_tiles_open_the_filtered_lists(client):
    page = client.get("/dme?status=Approved").get_data(as_text=True)
    approved = sum(1 for r in client.snapshot()["dme_requests"] if r["status"] == "Approved")
    assert f"Approved <span class=\"tab-count\">({approved})</span>" in page
    assert "Denied</span>" not in page.split("<tbody>")[1]


def test_dme_authorizations_on_file_are_listed_as_dme(app, client):
    world = build_world()
    keystone = next(p.id for p in world.payers if p.portal == "b")
    dme_codes = {r.code for r in query(app, select(DmeRequirement))}
    on_file = {a.case_number for a in world.authorizations
               if a.payer_id == keystone and a.code in dme_codes and a.order_id}
    assert on_file, "the world has DME authorizations at Keystone"
    snapshot = client.snapshot()
    assert {r["request_id"] for r in snapshot["dme_requests"] if r["source"] == "On file"} == on_file
    assert not {r["reference_number"] for r in snapshot["precert_requests"]} & on_file
    assert not query(app, select(PrecertRequest).where(PrecertRequest.service_code.in_(dme_codes)))
    listed = client.get("/dme?per_page=50").get_data(as_text=True)
    assert all(number in listed for number in on_file)


def test_appeal_history_is_on_file_at_later_stages(client):
    snapshot = client.snapshot()
    world = build_world()
    world_claims = {c.claim_number: c for c in world.claims}
    history = [a for a in snapshot["appeals"] if a["submitted_by"] == "billing.office"]
    by_claim: dict[str, list[dict]] = {}
    for appeal in history:
        by_claim.setdefault(appeal["claim_number"], []).append(appeal)
        claim = world_claims[appeal["claim_number"]]  # drawn from the world's claims
        assert claim.status == "Denied" and appeal["service_date"] == claim.service_date.isoformat()
        assert appeal["billed_amount"] == claim.total_charge
    levels = {tuple((a["level"], a["status"], a["decision"]) for a in chain) for chain in by_claim.values()}
    assert (("1", "Decided", "Upheld"), ("2", "Decided", "Upheld"), ("External review", "In Review", None)) in levels
    assert (("1", "Decided", "Upheld"),) in levels and (("1", "In Review", None),) in levels
    letters = {letter["related_id"]: letter for letter in snapshot["correspondence"]}
    for appeal in history:
        assert (appeal["letter_id"] is not None) == (appeal["status"] == "Decided")
        if appeal["letter_id"]:
            assert letters[appeal["appeal_id"]]["letter_id"] == appeal["letter_id"]
    # Decided appeals did not reprocess anything: the claims stay as every other app sees them.
    for number in by_claim:
        [row] = [c for c in snapshot["claims"] if c["claim_number"] == number]
        assert row["status"] == "Denied" and row["paid_amount"] == world_claims[number].paid_amount
    external = next(a for a in history if a["level"] == "External review")
    assert external["decision_due"] >= TODAY.isoformat()


def test_level_two_can_be_filed_on_the_seeded_upheld_level_one(client):
    snapshot = client.snapshot()
    [upheld] = [a for a in snapshot["appeals"] if a["submitted_by"] == "billing.office" and a["level"] == "1"
                and a["status"] == "Decided" and not any(b["prior_appeal_id"] == a["appeal_id"]
                                                         for b in snapshot["appeals"])]
    assert date.fromisoformat(upheld["decided_on"]) + timedelta(days=60) >= TODAY
    claim = next(c for c in snapshot["claims"] if c["claim_number"] == upheld["claim_number"])
    assert "File Next Level Appeal" in client.get(f"/appeals/{upheld['appeal_id']}").get_data(as_text=True)

    class Row:
        claim_number, billed_amount = claim["claim_number"], claim["billed_amount"]
        service_date = date.fromisoformat(claim["service_date"])
    response = file_appeal(client, Row, level="2")
    assert response.status_code == 302, response.get_data(as_text=True)
    [second] = [a for a in client.snapshot()["appeals"] if a["submitted_by"] == "coordinator"]
    assert second["level"] == "2" and second["prior_appeal_id"] == upheld["appeal_id"]


def test_appeal_and_dme_lists_are_not_empty_in_the_bare_world(client):
    for url in ("/appeals", "/dme", "/correspondence"):
        page = client.get(url).get_data(as_text=True)
        assert "Showing records 1 to" in page and "match your search" not in page, url
