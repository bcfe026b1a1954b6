"""EHR coverage tab: verification status and the Verify coverage action, and the order of
benefits (coordination of benefits) with its refusals and history rows."""
from __future__ import annotations

import re
from datetime import date

import pytest
from sqlalchemy import select

from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.models import Coverage

from .conftest import build_app, query

TODAY = date(2026, 11, 16)  # the kit's default frozen clock


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def _pairs(app) -> list[tuple[Coverage, Coverage]]:
    by_patient: dict[str, list[Coverage]] = {}
    for coverage in query(app, select(Coverage).order_by(Coverage.mrn, Coverage.rank, Coverage.id)):
        by_patient.setdefault(coverage.mrn, []).append(coverage)
    return [tuple(pair) for pair in by_patient.values() if len(pair) == 2]


@pytest.fixture(scope="module")
def both_active(app) -> tuple[Coverage, Coverage]:
    """A primary and a secondary both in force today."""
    return next(p for p in _pairs(app) if [c.rank for c in p] == [1, 2] and all(c.active_on(TODAY) for c in p))


@pytest.fixture(scope="module")
def ended_primary(app) -> tuple[Coverage, Coverage]:
    """A primary that ended before today, and a secondary in force over the same dates."""
    return next(p for p in _pairs(app) if [c.rank for c in p] == [1, 2] and not p[0].active_on(TODAY)
                and p[0].termination_date and p[0].termination_date < TODAY and p[1].active_on(TODAY)
                and p[1].effective_date <= p[0].termination_date)


def rows(client, table: str, mrn: str) -> list[dict]:
    return [r for r in client.snapshot()[table] if r["mrn"] == mrn]


def set_ranks(client, pair, ranks, reason="COB questionnaire returned by the patient."):
    data = {f"rank-{c.id}": str(r) for c, r in zip(pair, ranks)}
    data["reason"] = reason
    return client.post(f"/patients/{pair[0].mrn}/coverage/ranks", data)


def test_seeded_verification_follows_the_last_visit(client, both_active):
    snap = client.snapshot()
    coverages = [c for c in snap["coverages"] if c["mrn"] == both_active[0].mrn]
    assert {c["verification_status"] for c in coverages} <= {"Verified - Active", "Not Verified"}
    verified = [c for c in snap["coverages"] if c["verification_status"] == "Verified - Active"]
    assert verified and all(c["verified_on"] and c["verified_by"] == "frontdesk" for c in verified)
    events = {e["coverage_id"] for e in snap["coverage_history"]}
    assert {c["id"] for c in verified} == events
    page = client.get(f"/patients/{both_active[0].mrn}/coverage").get_data(as_text=True)
    for needle in ("Verification", "Verify coverage", "Order of benefits", "Coverage history",
                   f'<label for="rank-{both_active[0].id}">'):
        assert needle in page


def test_verify_coverage_records_who_when_result(client, both_active):
    coverage = both_active[1]
    response = client.post(f"/patients/{coverage.mrn}/coverage/verify",
                           {"coverage_id": coverage.id, "result": "Active", "reference": "EL-20261116-01"})
    assert response.status_code == 302
    row = next(c for c in client.snapshot()["coverages"] if c["id"] == coverage.id)
    assert (row["verification_status"], row["verified_on"], row["verified_by"], row["verification_reference"]) == \
        ("Verified - Active", "2026-11-16", "coordinator", "EL-20261116-01")
    event = rows(client, "coverage_history", coverage.mrn)[-1]
    assert (event["coverage_id"], event["event"], event["new_value"], event["username"]) == \
        (coverage.id, "Verification", "Verified - Active", "coordinator")
    audit = [e for e in client.snapshot()["audit_events"] if e["action"] == "verify_coverage"][-1]
    assert audit["detail"] == {"coverage_id": coverage.id, "result": "Verified - Active"}


def test_ended_coverage_verifies_inactive_not_active(client, ended_primary):
    ended = ended_primary[0]
    before = (client.snapshot()["coverages"], rows(client, "coverage_history", ended.mrn))
    refused = client.post(f"/patients/{ended.mrn}/coverage/verify", {"coverage_id": ended.id, "result": "Active"})
    assert refused.status_code == 422 and "cannot be verified active today" in refused.get_data(as_text=True)
    assert (client.snapshot()["coverages"], rows(client, "coverage_history", ended.mrn)) == before
    client.post(f"/patients/{ended.mrn}/coverage/verify", {"coverage_id": ended.id, "result": "Inactive"})
    row = next(c for c in client.snapshot()["coverages"] if c["id"] == ended.id)
    assert row["verification_status"] == "Verified - Inactive"


@pytest.mark.parametrize("fields, message", [
    ({"result": ""}, "Choose what the eligibility check returned."),
    ({"result": "Maybe"}, "Not a valid choice"),
    ({"coverage_id": "COV-NOPE"}, "Not a valid choice"),
    ({"reference": "no spaces allowed"}, "Use 6-20 letters, digits or dashes"),
])
def test_verify_bad_input_writes_nothing(client, both_active, fields, message):
    before = (client.snapshot()["coverages"], client.snapshot()["coverage_history"])
    response = client.post(f"/patients/{both_active[0].mrn}/coverage/verify",
                           {"coverage_id": both_active[0].id, "result": "Active", **fields})
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert (client.snapshot()["coverages"], client.snapshot()["coverage_history"]) == before


def test_swap_primary_and_secondary(client, both_active):
    first, second = both_active
    assert set_ranks(client, both_active, (2, 1)).status_code == 302
    ranks = {c["id"]: c["rank"] for c in client.snapshot()["coverages"] if c["mrn"] == first.mrn}
    assert ranks == {first.id: 2, second.id: 1}
    changes = [e for e in rows(client, "coverage_history", first.mrn) if e["event"] == "Rank change"]
    assert [(e["coverage_id"], e["old_value"], e["new_value"]) for e in changes] == [
        (first.id, "Primary", "Secondary"), (second.id, "Secondary", "Primary")]
    assert changes[0]["note"] == "COB questionnaire returned by the patient."
    page = client.get(f"/patients/{first.mrn}/summary").get_data(as_text=True)
    banner = page.split('aria-label="Patient header"')[1].split("</section>")[0]
    assert second.member_id in banner and first.member_id not in banner


def test_tertiary_is_accepted(client, both_active):
    assert set_ranks(client, both_active, (1, 3)).status_code == 302
    page = client.get(f"/patients/{both_active[0].mrn}/coverage").get_data(as_text=True)
    assert "Tertiary" in page


def test_unchanged_ranks_write_no_history(client, both_active):
    before = rows(client, "coverage_history", both_active[0].mrn)
    assert set_ranks(client, both_active, (1, 2)).status_code == 302
    assert rows(client, "coverage_history", both_active[0].mrn) == before


def test_ended_coverage_cannot_become_primary_again(client, ended_primary):
    assert set_ranks(client, ended_primary, (2, 1)).status_code == 302
    before = (client.snapshot()["coverages"], rows(client, "coverage_history", ended_primary[0].mrn))
    response = set_ranks(client, ended_primary, (1, 2))
    assert response.status_code == 422
    assert "a terminated coverage cannot be primary for current dates" in response.get_data(as_text=True)
    assert (client.snapshot()["coverages"], rows(client, "coverage_history", ended_primary[0].mrn)) == before


@pytest.mark.parametrize("ranks, reason, message", [
    ((1, 1), "Spouse plan", "would both be primary while both are in force"),
    ((2, 2), "Spouse plan", "would both be secondary"),
    ((1, 2), "", "Say why the order of benefits changed"),
    ((1, 7), "Spouse plan", "Choose Primary, Secondary or Tertiary."),
])
def test_bad_order_of_benefits_writes_nothing(client, both_active, ranks, reason, message):
    before = (client.snapshot()["coverages"], rows(client, "coverage_history", both_active[0].mrn))
    response = set_ranks(client, both_active, ranks, reason)
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and message in page and "This activity cannot be saved until these fields are corrected:" in page
    assert (client.snapshot()["coverages"], rows(client, "coverage_history", both_active[0].mrn)) == before


def test_each_control_on_the_coverage_tab_has_its_own_id_and_label(client, both_active):
    """The tab holds several forms; a label (and an agent reading the accessibility tree) must
    name exactly one control."""
    page = client.get(f"/patients/{both_active[0].mrn}/coverage").get_data(as_text=True)
    ids = [i for i in re.findall(r'<(?:input|select|textarea)[^>]*\sid="([^"]+)"', page) if i != "csrf_token"]
    assert ids and len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert '<label for="correct_coverage_id">' in page
