"""The four apps are seeded from one world: what a coordinator carries between them matches.

Tasks depend on it: a member id read in the EHR must find the member in the right portal,
a payer's fax number in the EHR must be the one the fax directory lists, and a denied
claim in the EHR must show the same codes in the payer's claim status. The public code
sets are the same tables, with the same rows, in every app that holds them.
"""
from __future__ import annotations

import importlib
from datetime import date
from types import SimpleNamespace

import jmespath
import pytest

from admindesk.envs.common.code_sets import CODE_SET_TABLES

from .conftest import FormClient, build_app

APPS = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")


@pytest.fixture(scope="module")
def snapshots(app_data_dir):
    return {name: FormClient(build_app(importlib.import_module(f"admindesk.envs.{name}").create_app,
                                       app_data_dir / name)).snapshot()
            for name in APPS}


def portal_payers(snapshots) -> tuple[set[str], set[str]]:
    portal_a = set(jmespath.search("payers[].id", snapshots["payer_portal_a"]))
    portal_b = set(jmespath.search("payer_profiles[].payer_id", snapshots["payer_portal_b"]))
    return portal_a, portal_b


def test_every_ehr_payer_is_served_by_exactly_one_portal(snapshots):
    portal_a, portal_b = portal_payers(snapshots)
    assert portal_a and portal_b and not portal_a & portal_b
    assert set(jmespath.search("payers[].id", snapshots["ehr_web"])) == portal_a | portal_b


def test_ehr_coverage_finds_its_member_in_the_payers_portal(snapshots):
    portal_a, portal_b = portal_payers(snapshots)
    dob = {p["mrn"]: p["dob"] for p in snapshots["ehr_web"]["patients"]}
    members_a = {(m["member_id"], m["dob"]) for m in snapshots["payer_portal_a"]["members"]}
    members_b = {(s["subscriber_id"], s["dob"]) for s in snapshots["payer_portal_b"]["subscribers"]}
    for coverage in snapshots["ehr_web"]["coverages"]:
        key = (coverage["member_id"], dob[coverage["mrn"]])
        assert key in (members_a if coverage["payer_id"] in portal_a else members_b), coverage


def test_payer_fax_numbers_in_the_ehr_are_listed_active_in_the_fax_directory(snapshots):
    active = set(jmespath.search("directory_contacts[?line_status=='Active'].fax_number", snapshots["fax"]))
    for payer in snapshots["ehr_web"]["payers"]:
        assert {payer["pa_fax"], payer["appeals_fax"]} <= active, payer["name"]


def adjustment_codes(rows) -> set[tuple[str, str, str]]:
    """(claim, group, CARC) of adjustment rows; the apps name the CARC column differently."""
    return {(r["claim_number"], r["group_code"], r.get("carc") or r.get("carc_code")) for r in rows}


def test_denied_claims_show_the_same_codes_in_the_payers_portal(snapshots):
    portal_a, portal_b = portal_payers(snapshots)
    ehr = snapshots["ehr_web"]
    payer_of_denied = {c["claim_number"]: c["payer_id"] for c in ehr["claims"] if c["status"] == "Denied"}
    ehr_codes = {row for row in adjustment_codes(ehr["claim_adjustments"]) if row[0] in payer_of_denied}
    for portal, payers in (("payer_portal_a", portal_a), ("payer_portal_b", portal_b)):
        expected = {row for row in ehr_codes if payer_of_denied[row[0]] in payers}
        assert expected and expected <= adjustment_codes(snapshots[portal]["claim_adjustments"]), portal


CODE_SET_APPS = ("ehr_web", "payer_portal_a", "payer_portal_b")


def test_code_set_tables_are_the_same_in_every_app_that_holds_them(snapshots):
    """The kit declares and seeds the code sets, so checks read them alike in each app."""
    for table in CODE_SET_TABLES:
        ehr_rows = snapshots["ehr_web"][table]
        assert ehr_rows, table
        for app in CODE_SET_APPS[1:]:
            assert snapshots[app][table] == ehr_rows, (app, table)
    assert not set(CODE_SET_TABLES) & set(snapshots["fax"]), "the fax app holds no code sets"
    assert {row["code_set"] for row in snapshots["ehr_web"]["adjustment_codes"]} == {"CARC", "RARC"}


# ---- stored files ------------------------------------------------------------------------
# Checks compare files across apps by hash ("the fax attachment's sha256 equals the EHR
# document's"), so every table that stores a file names its columns alike (the kit's
# `StoredFileColumns`): a snapshot shows the bytes as `content` = "sha256:<hex>" next to
# `file_name` and `sha256`.
STORED_FILE_TABLES = {"ehr_web": {"documents"}, "payer_portal_a": {"pa_attachments", "appeal_attachments"},
                      "payer_portal_b": {"attachments", "correspondence"},
                      "fax": {"draft_attachments", "fax_attachments", "inbound_faxes"}}


def file_tables(app) -> dict[str, set[str]]:
    """Column names of every table of the app that has a `content` column."""
    return {table.name: set(table.columns.keys()) for table in app.extensions["admindesk"].db.tables()
            if "content" in table.columns}


@pytest.fixture(scope="module")
def stored_files(tmp_path_factory):
    """Each app, fresh, after the coordinator stored files through its own upload pages:
    an EHR document, that document's PDF faxed, a portal A prior-auth attachment and a
    portal B precert attachment. Returns {app: (Flask app, snapshot)}."""
    from .test_ehr_documents import upload as ehr_upload
    from .test_fax_support import send_fax
    from .test_portal_a_support import active_member, build_draft
    from .test_portal_b_precert import submit as submit_precert

    clients = {}
    for name in APPS:
        client = FormClient(build_app(importlib.import_module(f"admindesk.envs.{name}").create_app,
                                      tmp_path_factory.mktemp(f"stored-{name}")))
        client.reset()
        client.login()
        clients[name] = client

    assert ehr_upload(clients["ehr_web"]).status_code == 302
    ehr_pdf = clients["ehr_web"].get("/documents/DOC-U000001/download").data
    send_fax(clients["fax"], ehr_pdf)
    portal_a = clients["payer_portal_a"]
    snapshot = portal_a.snapshot()
    build_draft(portal_a, snapshot, active_member(snapshot))
    portal_b = clients["payer_portal_b"]
    subscriber = next(s for s in portal_b.snapshot()["subscribers"]
                      if s["termination"] is None and s["subscriber_id"] not in
                      {r["subscriber_id"] for r in portal_b.snapshot()["precert_requests"]})
    npi = jmespath.search("providers[?kind=='Individual'].npi | sort(@) | [0]", portal_b.snapshot())
    people = {"subscriber": SimpleNamespace(subscriber_id=subscriber["subscriber_id"],
                                            dob=date.fromisoformat(subscriber["dob"])), "npi": npi}
    assert submit_precert(portal_b, people).status_code == 302
    return {name: (client.app, client.snapshot()) for name, client in clients.items()}


def test_every_stored_file_table_has_file_name_and_sha256(stored_files):
    """Schema: each app's tables with a `content` column, filled or not, use the kit's names."""
    for name, (app, snapshot) in stored_files.items():
        tables = file_tables(app)
        assert set(tables) == STORED_FILE_TABLES[name], name
        for table, columns in tables.items():
            assert {"file_name", "sha256", "pages"} <= columns, (name, table, columns)
            assert "filename" not in columns and "pdf_sha256" not in columns, (name, table)
            assert table in snapshot, (name, table)


def test_stored_file_rows_in_snapshots_carry_their_hash(stored_files):
    """Snapshot rows holding a file show it as "sha256:" + the row's `sha256`, next to `file_name`."""
    for name, (_, snapshot) in stored_files.items():
        filled = set()
        for table, rows in snapshot.items():
            if table == "_meta":
                continue
            for row in rows:
                if not str(row.get("content") or "").startswith("sha256:"):
                    continue
                filled.add(table)
                assert {"file_name", "sha256"} <= set(row), (name, table, row)
                assert row["content"] == "sha256:" + row["sha256"], (name, table, row["id"])
                assert row["file_name"].endswith(".pdf"), (name, table, row["id"])
        # Appeal attachments and decision letters may only come from an episode's actions.
        assert STORED_FILE_TABLES[name] - {"appeal_attachments", "correspondence"} <= filled, name
        assert filled <= STORED_FILE_TABLES[name], name


def test_a_faxed_ehr_document_matches_by_sha256(stored_files):
    """The check the shared names are for, written as a task would write it."""
    ehr_hash = jmespath.search("documents[?id=='DOC-U000001'].sha256 | [0]", stored_files["ehr_web"][1])
    # The outbox also holds the seeded history's jobs: the test's job is the newest one.
    job = jmespath.search("max_by(outbound_faxes, &id).id", stored_files["fax"][1])
    faxed = jmespath.search(f"fax_attachments[?outbound_fax_id==`{job}`].sha256", stored_files["fax"][1])
    assert ehr_hash and faxed == [ehr_hash]
    draft = jmespath.search("draft_attachments[].sha256", stored_files["fax"][1])
    assert draft == [ehr_hash]
