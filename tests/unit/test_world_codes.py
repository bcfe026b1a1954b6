"""No header or deleted code is used as billable: world records, code sets, payer policies."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from admindesk.envs.world import build_world
from admindesk.envs.world.retired_codes import NOT_BILLABLE_2026, not_billable

ENVS = Path(__file__).resolve().parents[2] / "envs"
# Header or deleted on 2026 dates of service (kept here, independent of the module under test).
NOT_BILLABLE = {"G35", "G20", "N18.3", "M51.36", "K0553", "K0554", "99442", "J2505"}
REPLACEMENTS = {"G35.A", "G35.D", "G20.A1", "N18.30", "N18.31", "N18.32", "M51.360", "M51.362", "M51.369",
                "A4239", "E2103", "98013", "J2506"}


@pytest.fixture(scope="module")
def world():
    return build_world()


def test_the_list_names_every_header_and_deleted_code():
    assert set(NOT_BILLABLE_2026) == NOT_BILLABLE
    assert not_billable(["G35", "G35.A", "n18.3", "N18.31", "E2103"]) == ["G35", "n18.3"]


def test_code_sets_hold_only_billable_codes_and_their_replacements(world):
    codes = set(world.codes.icd10) | set(world.codes.procedures)
    assert not codes & NOT_BILLABLE
    assert REPLACEMENTS <= codes


def test_no_world_record_bills_a_header_or_deleted_code(world):
    used = [("order", o.id, c) for o in world.orders for c in (o.code, *o.diagnosis_codes)]
    used += [("encounter", e.id, c) for e in world.encounters for c in e.diagnosis_codes]
    used += [("claim", cl.claim_number, c) for cl in world.claims for line in cl.lines
             for c in (line.code, *line.diagnosis_codes)]
    used += [("auth", a.case_number, a.code) for a in world.authorizations]
    used += [("fact", d.id, value) for d in world.documents for _, value in d.facts]
    assert [use for use in used if use[2] in NOT_BILLABLE] == []


def test_scenarios_use_the_replacement_codes(world):
    diagnoses = {c for o in world.orders for c in o.diagnosis_codes}
    assert {"G35.A", "G20.A1"} <= diagnoses
    assert "A4239" in {o.code for o in world.orders}


def _policy_billable_codes() -> dict[str, set[str]]:
    """Codes each portal's policy files list as services (diagnosis prefixes are not billable uses)."""
    portal_a = yaml.safe_load((ENVS / "payer_portal_a/policy/medical_policy.yaml").read_text())
    portal_b = yaml.safe_load((ENVS / "payer_portal_b/data/policies.yaml").read_text())
    dme_b = yaml.safe_load((ENVS / "payer_portal_b/data/dme_requirements.yaml").read_text())
    return {
        "payer_portal_a/policy/medical_policy.yaml": {str(c) for c in portal_a["services"]}
        | set(portal_a["general_services"]["codes"]),
        "payer_portal_b/data/policies.yaml": {c for policy in portal_b for c in policy["codes"]},
        "payer_portal_b/data/dme_requirements.yaml": {r["code"] for r in dme_b},
    }


def test_payer_policies_list_no_header_or_deleted_code_as_a_service():
    offending = {path: sorted(codes & NOT_BILLABLE) for path, codes in _policy_billable_codes().items()}
    assert {path: codes for path, codes in offending.items() if codes} == {}
