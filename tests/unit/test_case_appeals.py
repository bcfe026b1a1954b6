"""A case's appeals on file: the model checks stages, levels and dates; the builder makes
payer-view records with references from the case range in each portal's format."""
from __future__ import annotations

import re

import pytest
import yaml
from pydantic import ValidationError

from admindesk.envs.world import build_world
from admindesk.envs.world.cases import CaseError, build_case
from admindesk.schema.case_model import Case
from tests.cases.examples import TASKS_DIR

TASK_FILE = TASKS_DIR / "appeals-on-file.yaml"
TASK_ID = "case-appeals-on-file"


def case_data() -> dict:
    return yaml.safe_load(TASK_FILE.read_text())["case"]


def with_appeals(edit) -> dict:
    data = case_data()
    edit(data["payer_history"]["appeals"])
    return data


@pytest.fixture(scope="module")
def world():
    return build_world()


@pytest.fixture(scope="module")
def records(world):
    return build_case(world, TASK_ID, Case.model_validate(case_data()))


def test_the_background_world_has_no_appeals(world):
    assert world.appeals == ()


def test_appeals_are_payer_records_with_references_in_each_portals_format(world, records):
    # The chart knows each appeal as the desk filed it (reference, date); decisions are the payer's.
    assert [(a.reference, a.filed_on) for a in records.chart.appeals] == [
        (a.reference, a.filed_on) for a in records.payer.appeals]
    assert {(a.status, a.decision, a.reason) for a in records.chart.appeals} == {("in_review", None, "")}
    by_payer = {}
    for appeal in records.payer.appeals:
        by_payer.setdefault(appeal.payer_id, []).append(appeal.reference)
    assert all(re.fullmatch(r"APL269\d{5}", ref) for ref in by_payer["PYR-NWH"])
    assert all(re.fullmatch(r"KM-A-26-9\d{5}", ref) for ref in by_payer["PYR-KMH"])
    claims = {c.claim_number for c in records.payer.claims}
    assert {a.claim_number for a in records.payer.appeals} <= claims
    # The same task always gives the same references; another task gets others.
    again = build_case(world, TASK_ID, Case.model_validate(case_data()))
    other = build_case(world, "case-other", Case.model_validate(case_data()))
    assert again.payer.appeals == records.payer.appeals
    assert not {a.reference for a in other.payer.appeals} & {a.reference for a in records.payer.appeals}


def test_decisions_carry_reasons_and_the_lines_they_pay(records):
    by_decision = {a.decision: a for a in records.payer.appeals}
    upheld = {a.payer_id: a.reason for a in records.payer.appeals if a.decision == "upheld"}
    assert "six weeks" in upheld["PYR-NWH"]          # the case's own words
    assert upheld["PYR-KMH"].endswith("the denial stands.")  # the default for the decision
    assert by_decision["overturned"].paid_lines == (1,)          # every unpaid line
    assert by_decision["partially_overturned"].paid_lines == (1,)  # the lines the case names
    assert "line(s) 1" in by_decision["partially_overturned"].reason
    in_review = [a for a in records.payer.appeals if a.status == "in_review"]
    assert in_review and all(a.decision is None and a.reason == "" for a in in_review)
    filed = [a.filed_on for a in records.payer.appeals]
    assert filed == sorted(filed)


LEVEL_2 = {"key": "l2", "claim": "a-mri", "level": 2, "kind": "formal", "filed_on": "2026-11-01",
           "status": "in_review"}


@pytest.mark.parametrize("edit,message", [
    (lambda a: a[0].update(status="in_review"), "an appeal in review has no `decision`"),
    (lambda a: a[1].update(status="decided"), "a decided appeal has a `decision`"),
    (lambda a: a[1].update(reason="Denied again."), "an appeal in review has no decision `reason`"),
    (lambda a: a[0].update(decided_on="2026-09-01"), "decided_on is before filed_on"),
    (lambda a: a[1].update(due_on="2026-10-01"), "due_on is before filed_on"),
    (lambda a: a[1].update(level=3), "Input should be 1, 2 or 'external'"),
    (lambda a: a[1].update(kind="informal"), "Input should be 'reconsideration', 'formal' or 'clinical'"),
    (lambda a: a[1].update(outcome="won"), "Extra inputs are not permitted"),
    (lambda a: a.append({**LEVEL_2, "kind": "reconsideration"}), "a reconsideration is a level 1 request"),
    (lambda a: a.append({**LEVEL_2, "level": "external"}), "an external review is a clinical"),
    (lambda a: a.append({**LEVEL_2, "claim": "a-knee"}),
     "payer_history.appeals.6.level: a level 2 appeal needs a decided level 1 appeal on claim 'a-knee'"),
    (lambda a: a.append({**LEVEL_2, "claim": "a-therapy"}), "'a-therapy-l1' overturned the denial in full"),
    (lambda a: a.append({**LEVEL_2, "filed_on": "2026-10-01"}),
     "payer_history.appeals.6.filed_on: is before the level 1 decision (2026-10-20)"),
    (lambda a: a.append({**LEVEL_2, "level": 1}), "claim 'a-mri' already has a level 1 appeal"),
    (lambda a: a.append({**LEVEL_2, "level": "external", "kind": "clinical"}),
     "a level external appeal needs a decided level 2 appeal"),
    (lambda a: a.append({**LEVEL_2, "key": "a-mri-l1"}), "payer_history.appeals.6.key: 'a-mri-l1' is used twice"),
    (lambda a: a[1].update(claim="a-hip"), "payer_history.appeals.1.claim: no 'a-hip' in this case"),
    (lambda a: a[0].update(filed_on="2026-08-01"), "payer_history.appeals.0.filed_on: is before the remittance"),
    (lambda a: a[5].update(paid_lines=[]), "a partially overturned appeal (and only one) names the `paid_lines`"),
    (lambda a: a[0].update(paid_lines=[1]), "a partially overturned appeal (and only one) names the `paid_lines`"),
    (lambda a: a[5].update(paid_lines=[3]), "payer_history.appeals.5.paid_lines: claim 'b-therapy' has 2 line(s)"),
    (lambda a: a[5].update(paid_lines=[1, 1]), "paid_lines are distinct claim line numbers"),
])
def test_a_bad_appeal_is_refused_with_its_field(edit, message):
    with pytest.raises(ValidationError) as caught:
        Case.model_validate(with_appeals(edit))
    assert message in str(caught.value)


def test_a_pending_claim_cannot_carry_an_appeal():
    data = case_data()
    claim = next(c for c in data["claims"] if c["key"] == "a-knee")
    claim.update(status="Pending", remittance=None)
    with pytest.raises(ValidationError, match="claim 'a-knee' is Pending"):
        Case.model_validate(data)


def test_a_level_1_filed_after_the_remittance_deadline_is_a_case_error(world):
    late = with_appeals(lambda a: a[0].update(filed_on="2027-03-01", decided_on="2027-03-10"))
    with pytest.raises(CaseError, match=r"case\.payer_history\.appeals\.0\.filed_on: is after the appeal deadline"):
        build_case(world, TASK_ID, Case.model_validate(late))


def test_a_partial_overturn_pays_only_unpaid_lines(world):
    data = case_data()
    claim = next(c for c in data["claims"] if c["key"] == "b-therapy")
    claim.update(status="Partially Paid")
    claim["lines"][1].update(paid=240.0, adjustments=[])
    data["payer_history"]["appeals"][5]["paid_lines"] = [2]
    with pytest.raises(CaseError, match="appeals.5.paid_lines: only unpaid lines .* unpaid lines: 1"):
        build_case(world, TASK_ID, Case.model_validate(data))


def test_an_overturn_of_a_paid_claim_is_a_case_error(world):
    data = case_data()
    claim = next(c for c in data["claims"] if c["key"] == "a-therapy")
    claim.update(status="Paid")
    claim["lines"][0].update(paid=390.0, adjustments=[])
    with pytest.raises(CaseError, match="appeals.2.decision: claim 'a-therapy' is paid in full"):
        build_case(world, TASK_ID, Case.model_validate(data))
