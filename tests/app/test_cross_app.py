"""The four apps are seeded from one world: what a coordinator carries between them matches.

Tasks depend on it: a member id read in the EHR must find the member in the right portal,
a payer's fax number in the EHR must be the one the fax directory lists, and a denied
claim in the EHR must show the same codes in the payer's claim status. The public code
sets are the same tables, with the same rows, in every app that holds them.
"""
from __future__ import annotations

import importlib

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
