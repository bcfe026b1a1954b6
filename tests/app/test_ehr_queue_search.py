"""EHR work queues: the patient search of the filter bar (name, MRN or date of birth),
with the other filters, sorting, paging and saved views."""
from __future__ import annotations

import re
from datetime import date
from urllib.parse import quote

import pytest

from admindesk.envs.ehr_web import create_app

from .conftest import build_app

ITEM_LINK = re.compile(r'aria-label="Open item (\d+)"')


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def text(response) -> str:
    return response.get_data(as_text=True)


def listed(page: str) -> list[int]:
    return [int(found) for found in ITEM_LINK.findall(page)]


def prior_auth_items(snapshot: dict, matches) -> list[dict]:
    patients = {p["mrn"]: p for p in snapshot["patients"]}
    return [w for w in snapshot["work_items"] if w["queue"] == "Prior Auth" and matches(patients[w["mrn"]])]


@pytest.fixture
def patient(snap) -> dict:
    """A patient with more than one Prior Auth item."""
    counts: dict[str, int] = {}
    for item in snap["work_items"]:
        if item["queue"] == "Prior Auth":
            counts[item["mrn"]] = counts.get(item["mrn"], 0) + 1
    mrn = min(mrn for mrn, count in counts.items() if count > 1)
    return next(p for p in snap["patients"] if p["mrn"] == mrn)


def us_date(iso: str) -> str:
    return date.fromisoformat(iso).strftime("%m/%d/%Y")


def same_name(p: dict, patient: dict) -> bool:
    return p["last_name"].lower().startswith(patient["last_name"].lower()) and \
        p["first_name"].lower().startswith(patient["first_name"].lower())


# What is typed in the Patient box, and which patients it must find.
SEARCHES = {
    "name": (lambda p: f"{p['last_name']}, {p['first_name']}", same_name),
    "mrn": (lambda p: p["mrn"], lambda p, patient: p["mrn"] == patient["mrn"]),
    "mrn-digits": (lambda p: p["mrn"][1:], lambda p, patient: p["mrn"] == patient["mrn"]),
    "dob": (lambda p: us_date(p["dob"]), lambda p, patient: p["dob"] == patient["dob"]),
    "dob-iso": (lambda p: p["dob"], lambda p, patient: p["dob"] == patient["dob"]),
}


@pytest.mark.parametrize("kind", SEARCHES)
def test_search_by_name_mrn_or_date_of_birth(client, snap, patient, kind):
    typed, finds = SEARCHES[kind]
    page = text(client.get(f"/queues/prior-auth?status=all&patient={quote(typed(patient))}"))
    expected = {w["id"] for w in prior_auth_items(snap, lambda p: finds(p, patient))}
    assert len(expected) > 1 and set(listed(page)) == expected
    assert client.snapshot()["audit_events"][-1]["detail"]["filters"]["patient"] == typed(patient)


def test_search_combines_with_filters_and_sorting(client, snap):
    payer = "PYR-NWH"
    wanted = prior_auth_items(snap, lambda p: p["last_name"].lower().startswith("m")
                              or p["first_name"].lower().startswith("m"))
    wanted = sorted((w["id"] for w in wanted if w["payer_id"] == payer), reverse=True)
    page = text(client.get(f"/queues/prior-auth?status=all&patient=m&payer={payer}&sort=item&dir=desc"))
    assert wanted and listed(page) == wanted[:25]


def test_search_is_kept_across_pages(client, snap):
    wanted = sorted(w["id"] for w in prior_auth_items(snap, lambda p: p["last_name"].lower().startswith("m")
                                                       or p["first_name"].lower().startswith("m")))
    assert len(wanted) > 25
    first = text(client.get("/queues/prior-auth?status=all&patient=m&sort=item"))
    assert f"Records 1 to 25 of {len(wanted)}" in first
    next_link = re.search(r'href="([^"]+)" aria-label="Next page"', first).group(1).replace("&amp;", "&")
    assert "patient=m" in next_link and "page=2" in next_link
    assert listed(first) + listed(text(client.get(next_link))) == wanted[:50]


def test_the_search_field_is_labelled(client):
    page = text(client.get("/queues/prior-auth"))
    assert '<label for="patient">Patient (name, MRN or DOB)</label>' in page
    assert re.search(r'<input[^>]*id="patient"[^>]*type="search"', page)


def test_no_match_says_so_and_offers_every_tab(client):
    page = text(client.get("/queues/prior-auth?patient=Nobodyhasthisname"))
    assert listed(page) == []
    assert "No items for patient &ldquo;Nobodyhasthisname&rdquo; match these filters in the Active tab." in page
    assert 'href="/queues/prior-auth?patient=Nobodyhasthisname&amp;status=all">Search this patient in every tab' in page
    everywhere = text(client.get("/queues/prior-auth?patient=Nobodyhasthisname&status=all"))
    assert "No items for patient &ldquo;Nobodyhasthisname&rdquo; match these filters." in everywhere


@pytest.mark.parametrize("typed", ["13/45/1980", "Smith2", "E12345678", "x" * 81])
def test_unreadable_search_is_refused_with_a_message(client, typed):
    response = client.get(f"/queues/prior-auth?patient={quote(typed)}")
    page = text(response)
    assert response.status_code == 422 and "Correct the filters to see the queue." in page
    assert "Enter a patient name (Last, First), an MRN like E1000449, or a date of birth as MM/DD/YYYY." in page \
        or "Patient searches are limited to 80 characters." in page


def test_saved_views_and_bulk_actions_keep_the_search(client):
    query = "patient=m&status=all&sort=item"
    saved = client.post("/queues/prior-auth/views", {"name": "M patients", "query": query})
    assert saved.location.endswith("/queues/prior-auth?" + query)
    assert client.snapshot()["saved_queue_views"][-1]["query"] == query
    bulk = client.post("/queues/prior-auth/bulk", {"query": query, "action": "assign", "assignee": ""})
    assert bulk.location.endswith("/queues/prior-auth?" + query)
