"""Portal A pre-service appeals get the payer's decision rule: decided at filing where
payer_rules.yaml says so, otherwise when the decision is due; and seeded denials quote
the criterion the world's payer actually found unmet."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_a import create_app
from admindesk.envs.payer_portal_a.lifecycle_models import AuthAppeal
from admindesk.envs.payer_portal_a.models import PaRequest
from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for
from admindesk.envs.world import build_world

from .conftest import build_app
from .test_portal_a_auth_lifecycle import _denied_case
from .test_portal_a_support import LUMBAR_MET, request_by_id

APPEAL = {"urgency": "Standard", "argument": "The notes show eight weeks of physical therapy.",
          "contact_name": "Jordan Ellis", "contact_phone": "7175550100"}


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def _edit(app, model, where, **values) -> None:
    """Change rows directly: the situation a test needs that no page can make (a reviewer's
    error on file, time having passed)."""
    with app.extensions["admindesk"].db.new_session() as session:
        for row in session.scalars(select(model).where(where)):
            for name, value in values.items():
                setattr(row, name, value)
        session.commit()


def _appeal(client, case) -> dict:
    assert client.post(f"/authorizations/cases/{case['case_number']}/appeal", APPEAL).status_code == 302
    return client.snapshot()["auth_appeals"][-1]


def test_the_rules_file_names_both_kinds_of_payer():
    assert rules_for("PYR-NWH").immediate_preservice_appeal and not rules_for("PYR-CSH").immediate_preservice_appeal


def test_immediate_payer_upholds_a_denial_the_answers_still_fail(client, snap):
    case = _denied_case(client, snap, "PYR-NWH")
    appeal = _appeal(client, case)
    assert (appeal["status"], appeal["decision"]) == ("Decided", "Upheld")
    assert case["decision_reason"] in appeal["decision_reason"]
    after = client.snapshot()
    assert request_by_id(after, case["id"])["status"] == "Denied"
    letter = after["letters"][-1]
    assert letter["category"] == "Appeal Decision" and "UPHELD" in letter["body"]


def test_immediate_payer_overturns_a_denial_the_answers_meet(app, client, snap):
    case = _denied_case(client, snap, "PYR-NWH")
    _edit(app, PaRequest, PaRequest.id == case["id"], answers={**LUMBAR_MET, "prior_imaging_date": "2026-09-01"})
    appeal = _appeal(client, case)
    assert (appeal["status"], appeal["decision"]) == ("Decided", "Overturned")
    approved = request_by_id(client.snapshot(), case["id"])
    assert approved["status"] == "Approved" and approved["auth_number"] and approved["auth_number"] in appeal["decision_reason"]
    page = client.get(f"/authorizations/cases/{case['case_number']}?tab=history").get_data(as_text=True)
    assert "Appeal overturned" in page


def test_other_payer_decides_when_the_appeal_is_due(app, client, snap):
    case = _denied_case(client, snap, "PYR-CSH")
    appeal = _appeal(client, case)
    assert (appeal["status"], appeal["decision"]) == ("In Review", None)
    url = f"/authorizations/cases/{case['case_number']}"
    client.get(url)
    assert client.snapshot()["auth_appeals"][-1]["status"] == "In Review"  # not due yet
    with app.app_context():
        now = clock.now()
    _edit(app, AuthAppeal, AuthAppeal.id == appeal["id"], decision_due_at=now - timedelta(minutes=1))
    client.get(url)
    decided = client.snapshot()["auth_appeals"][-1]
    assert (decided["status"], decided["decision"]) == ("Decided", "Upheld") and decided["decided_at"]


def test_seeded_denials_quote_the_world_s_failed_criterion(snap):
    world = build_world()
    by_case = {a.case_number: a for a in world.authorizations}
    denied = [r for r in snap["pa_requests"] if r["status"] == "Denied" and r["created_by"] == "payer"]
    assert denied
    first_reasons = {s.criteria[0].deny_reason for s in load_policy().services.values() if s.criteria}
    quoting_later_criteria = 0
    for request in denied:
        auth = by_case[request["case_number"]]
        assert request["decision_reason"] == auth.decision_reason
        letter = next(l for l in snap["letters"] if l["case_number"] == request["case_number"]) \
            if any(l["case_number"] == request["case_number"] for l in snap["letters"]) else None
        if letter:
            assert auth.decision_reason in letter["body"]
        quoting_later_criteria += request["decision_reason"] not in first_reasons
    assert quoting_later_criteria, "every seeded denial still quotes a service's first criterion"
