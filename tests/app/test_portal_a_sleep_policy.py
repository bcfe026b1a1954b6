"""Portal A's sleep study policy: the medical policy library states the home-test-first rule for
an attended in-lab polysomnography (95810), and the rules engine applies it: a request without a
significant comorbidity is denied with that rule, one with a documented comorbidity is approved."""
from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_a import create_app

from .conftest import build_app
from .test_portal_a_support import active_member, build_draft, request_by_id, submit

HOME_TEST_FIRST = "a home sleep apnea test (95800, 95806 or G0399) comes first"


def _sleep_answers(comorbidity: str) -> dict[str, str]:
    return {"snoring_witnessed_apneas": "Yes", "daytime_sleepiness": "Yes", "epworth_score": "14",
            "stop_bang_score": "6", "cardiopulmonary_comorbidity": comorbidity}


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def test_the_policy_library_states_the_home_test_first_rule(client, snap):
    page = client.get("/payers/PYR-NWH?tab=policies").get_data(as_text=True)
    row = page[page.index("<td>95810</td>"):]
    row = row[:row.index("</tr>")]
    assert HOME_TEST_FIRST in row and "congestive heart failure, moderate-to-severe COPD or neuromuscular" in row


@pytest.mark.parametrize("comorbidity, status", [("None", "Denied"), ("Congestive heart failure", "Approved")])
def test_an_in_lab_study_needs_a_documented_comorbidity(client, snap, comorbidity, status):
    request_id = build_draft(client, snap, active_member(snap), code="95810", dx="G47.33", pos="19",
                             answers=_sleep_answers(comorbidity))
    submit(client, request_id)
    case = request_by_id(client.snapshot(), request_id)
    assert case["status"] == status
    assert (HOME_TEST_FIRST in (case["decision_reason"] or "")) == (status == "Denied")
