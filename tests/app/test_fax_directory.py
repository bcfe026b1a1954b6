"""Directory: seeded payer/supplier/provider lines, search, filter, sort, add contact, line status."""
from __future__ import annotations

import pytest

from admindesk.envs.fax import create_app
from admindesk.envs.world import build_world

from .conftest import build_app
from .test_fax_support import audit_rows, text


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def contact_form(**overrides) -> dict:
    fields = {"name": "Lakeside Sleep Supply - Intake", "organization": "Lakeside Sleep Supply",
              "contact_type": "DME Supplier", "fax_number": "(717) 234-9000", "phone_number": "717.234.9001",
              "notes": "New CPAP supplier"}
    fields.update(overrides)
    return fields


def test_directory_holds_every_payer_supplier_and_provider_line(client):
    world = build_world()
    contacts = client.snapshot()["directory_contacts"]
    numbers = {(c["external_ref"], c["contact_type"], c["fax_number"]) for c in contacts}
    for payer in world.payers:
        assert (payer.id, "Payer - Prior Authorization", payer.pa_fax) in numbers
        assert (payer.id, "Payer - Appeals", payer.appeals_fax) in numbers
    for supplier in world.suppliers:
        assert (supplier.id, "DME Supplier", supplier.fax) in numbers
    for provider in world.providers:
        assert (provider.npi, "Provider Office", provider.fax) in numbers
    retired = [c for c in contacts if c["line_status"] == "Disconnected"]
    assert retired and all("(old line)" in c["name"] for c in retired)
    live = {c["fax_number"] for c in contacts if c["line_status"] == "Active"}
    assert not live & {c["fax_number"] for c in retired}


def test_directory_lists_sorted_by_name_with_pages(client):
    page = text(client.get("/directory"))
    contacts = sorted(client.snapshot()["directory_contacts"], key=lambda c: (c["name"], c["id"]))
    total = len(contacts)
    assert f"Contacts 1&ndash;25 of {total}" in page and "Screen 1 / " in page
    rows = page.split("<tbody>")[1]
    first, second, last = (f'/directory/{c["id"]}"' for c in (contacts[0], contacts[1], contacts[-1]))
    assert rows.index(first) < rows.index(second) and last not in rows
    assert "Screen 2 / " in text(client.get("/directory?page=2"))
    assert audit_rows(client.snapshot(), endpoint="directory.index", record_type="directory", tab="all")


def test_directory_search_by_name_and_by_punctuated_number(client):
    contacts = client.snapshot()["directory_contacts"]
    supplier = next(c for c in contacts if c["contact_type"] == "DME Supplier")
    page = text(client.get("/directory", query_string={"q": supplier["organization"]}))
    assert supplier["name"] in page
    number = supplier["fax_number"]
    page = text(client.get("/directory", query_string={"q": f"({number[:3]}) {number[3:6]}-{number[6:]}"}))
    assert supplier["name"] in page
    assert "No contacts match." in text(client.get("/directory?q=nobody-by-this-name"))


def test_directory_type_filter_and_sort(client):
    appeals = sorted(c["fax_number"] for c in client.snapshot()["directory_contacts"]
                     if c["contact_type"] == "Payer - Appeals")
    page = text(client.get("/directory", query_string={"type": "Payer - Appeals", "sort": "fax", "dir": "desc"}))
    rows = page.split("<tbody>")[1]
    assert "Payer - Appeals" in rows and "DME Supplier" not in rows and "Provider Office" not in rows
    shown = [n for n in (f"+1 {d[:3]}-{d[3:6]}-{d[6:]}" for d in appeals) if n in rows]
    assert len(shown) == len(appeals) and rows.index(shown[-1]) < rows.index(shown[0])
    assert 'aria-sort="descending"' in page
    assert audit_rows(client.snapshot(), endpoint="directory.index", tab="Payer - Appeals")
    assert "All types" in text(client.get("/directory?type=bogus"))


def test_add_contact(client):
    assert "Add contact" in text(client.get("/directory/new"))
    response = client.post("/directory/new", contact_form())
    assert response.status_code == 302
    snapshot = client.snapshot()
    row = snapshot["directory_contacts"][-1]
    assert (row["name"], row["contact_type"], row["fax_number"], row["phone_number"], row["line_status"],
            row["added_by"]) == ("Lakeside Sleep Supply - Intake", "DME Supplier", "7172349000", "7172349001",
                                 "Active", "coordinator")
    assert audit_rows(snapshot, action="add_contact", record_id=str(row["id"]))
    assert audit_rows(snapshot, endpoint="directory.create", tab="new_contact", method="GET")


@pytest.mark.parametrize("overrides, message", [
    ({"name": ""}, "Enter the contact&#39;s name."),
    ({"organization": " "}, "Enter the organization."),
    ({"contact_type": ""}, "Choose the contact type."),
    ({"contact_type": "Astrologer"}, "Not a valid choice"),
    ({"fax_number": ""}, "Enter the fax number."),
    ({"fax_number": "717-234-900"}, "Enter exactly 10 digits"),
    ({"phone_number": "call me"}, "Use only digits"),
    ({"name": "n" * 161}, "Contact name must be 160 characters or fewer."),
    ({"notes": "n" * 501}, "Notes must be 500 characters or fewer."),
])
def test_add_contact_rejects_bad_input(client, overrides, message):
    before = client.snapshot()["directory_contacts"]
    response = client.post("/directory/new", contact_form(**overrides))
    assert response.status_code == 422 and message in text(response)
    assert client.snapshot()["directory_contacts"] == before


def test_add_contact_rejects_a_number_already_listed(client):
    existing = client.snapshot()["directory_contacts"][0]
    response = client.post("/directory/new", contact_form(fax_number=existing["fax_number"]))
    assert response.status_code == 422
    assert "already in the directory as" in text(response) and existing["name"] in text(response)


def test_contact_card_shows_faxes_sent_to_it(client):
    snapshot = client.snapshot()
    sent_to = {job["to_number"] for job in snapshot["outbound_faxes"]}
    never = next(c for c in snapshot["directory_contacts"] if c["fax_number"] not in sent_to)
    assert "No faxes have been sent to this number." in text(client.get(f"/directory/{never['id']}"))
    job = snapshot["outbound_faxes"][0]
    contact = next(c for c in snapshot["directory_contacts"] if c["fax_number"] == job["to_number"])
    page = text(client.get(f"/directory/{contact['id']}"))
    assert contact["name"] in page and f">Job {job['id']}<" in page
    assert audit_rows(client.snapshot(), record_type="contact", record_id=str(contact["id"]))
    assert client.get("/directory/999999").status_code == 404


def test_mark_line_disconnected_and_back(client):
    contact = client.snapshot()["directory_contacts"][0]
    response = client.post(f"/directory/{contact['id']}/line-status", {"line_status": "Disconnected"})
    assert response.status_code == 302
    assert client.snapshot()["directory_contacts"][0]["line_status"] == "Disconnected"
    client.post(f"/directory/{contact['id']}/line-status", {"line_status": "Active"})
    assert client.snapshot()["directory_contacts"][0]["line_status"] == "Active"
    assert client.post(f"/directory/{contact['id']}/line-status", {"line_status": "Gone"}).status_code == 400
    assert audit_rows(client.snapshot(), action="set_line_status", record_id=str(contact["id"]))
