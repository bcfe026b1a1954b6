"""The domain rules every task's case keeps, as a specialist reviewing the suite would read
them: a corrected claim for a service the payer reviews carries its authorization; knee and
shoulder claim lines name the side; drugs are billed in real doses; the chart's problem list
keeps an order's diagnosis active; a task's open DME item is the coordinator's or nobody's. The
world's generator keeps the same rules for the background records."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from admindesk.envs.ehr_web import models_work
from admindesk.envs.ehr_web.models import Base, Problem
from admindesk.envs.ehr_web.seeding.seed import seed
from admindesk.envs.world import build_world
from admindesk.envs.world.cases import build_case
from admindesk.envs.world.laterality import JOINT_CODES, SIDE_MODIFIERS, side_modifier
from admindesk.envs.world.review_rules import service_rule
from admindesk.envs.world.scenarios_drugs import DOSE_UNITS
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

CORRECTED_CLAIM_TEMPLATES = ("appeals/corrected_claim", "appeals/cob_corrected_claim")
MISSING_MODIFIER_CARC = "4"  # the denial a claim line without its side modifier earns
DESK_USER = "coordinator"  # who signs in to work a task
FACE_TO_FACE_DAYS = 182  # Keystone Mutual's window before a DME order (payer_portal_b dme_requirements)


@pytest.fixture(scope="module")
def world():
    return build_world()


@pytest.fixture(scope="module")
def cases():
    return [task for task in load_tasks(TASKS_ROOT) if task.case is not None]


def test_corrected_claims_for_reviewed_services_carry_an_approved_authorization(world, cases):
    checked = 0
    for task in (t for t in cases if t.template in CORRECTED_CLAIM_TEMPLATES):
        case = task.case
        claim = next(c for c in case.claims if c.key == "denied")
        order = next(o for o in case.orders if o.key == claim.order)
        coverage = next(c for c in case.coverages if c.key == claim.coverage)
        rule = service_rule(order.code)
        if rule is None or not rule.reviewed(world.payer(coverage.payer).portal, world.plan(coverage.plan).product):
            continue
        requests = case.payer_history.requests if case.payer_history else []
        approved = {r.key for r in requests if r.order == order.key and r.status == "Approved"}
        assert claim.auth in approved, f"{task.id}: {order.code} is reviewed; the claim carries no approved auth"
        checked += 1
    assert checked >= 2  # appeal-easy-04, appeal-hard-19 at least


def test_knee_and_shoulder_claim_lines_name_the_side(cases):
    checked = 0
    for task in cases:
        orders = {o.key: o for o in task.case.orders}
        for claim in task.case.claims:
            diagnoses = orders[claim.order].diagnoses if claim.order else []
            for line in (ln for ln in claim.lines if ln.code in JOINT_CODES):
                if any(a.carc == MISSING_MODIFIER_CARC for a in line.adjustments):
                    continue  # the missing modifier is what the payer denied
                assert side_modifier(line.diagnoses or diagnoses) in line.modifiers, \
                    f"{task.id} claim {claim.key}: {line.code} {line.modifiers} names no side"
                checked += 1
    assert checked >= 10


def test_the_worlds_knee_and_shoulder_claims_name_the_side(world):
    lines = [line for claim in world.claims for line in claim.lines if line.code in JOINT_CODES]
    assert lines
    for line in lines:
        assert SIDE_MODIFIERS & set(line.modifiers), f"{line.code} {line.modifiers} {line.diagnosis_codes}"


def test_drugs_are_ordered_and_billed_in_real_doses(cases):
    checked = 0
    for task in cases:
        billed = [(f"order {o.key}", o.code, o.units) for o in task.case.orders]
        billed += [(f"claim {c.key}", ln.code, ln.units) for c in task.case.claims for ln in c.lines]
        for where, code, units in billed:
            if code in DOSE_UNITS:
                assert units == DOSE_UNITS[code], f"{task.id} {where}: {code} x {units}, a dose is {DOSE_UNITS[code]}"
                checked += 1
    assert checked >= 6


@pytest.fixture(scope="module")
def reference_db(world, tmp_path_factory) -> Path:
    """An EHR database holding the world's reference data (payers, plans, code sets) only."""
    path = tmp_path_factory.mktemp("ehr") / "reference.sqlite"
    engine = create_engine(f"sqlite:///{path}")
    Base.metadata.create_all(engine)
    with Session(engine) as session:
        seed.reference(session, world)
        session.commit()
    engine.dispose()
    return path


def _seeded_chart(world, task, reference_db: Path) -> Session:
    """The task's case seeded alone on the reference data, as a reset adds it."""
    path = reference_db.with_name(f"{task.id}.sqlite")
    shutil.copyfile(reference_db, path)
    session = Session(create_engine(f"sqlite:///{path}"))
    seed.records(session, build_case(world, task.id, task.case).chart)
    return session


def test_the_problem_list_keeps_each_orders_diagnosis_active_and_dme_items_are_the_desks(world, cases, reference_db):
    for task in cases:
        with _seeded_chart(world, task, reference_db) as session:
            status = {p.icd10_code: p.status for p in session.scalars(select(Problem))}
            for order in (o for o in task.case.orders if o.status != "Cancelled"):
                for code in (c for c in order.diagnoses if not c.startswith(("Z00", "Z13", "Z51"))):
                    assert status.get(code) == "Active", f"{task.id}: {code} of order {order.key} is {status.get(code)}"
            # A closed item (the supplier confirmed a past order) stays with whoever worked it.
            items = session.scalars(select(models_work.WorkItem).where(
                models_work.WorkItem.queue == "DME", models_work.WorkItem.status != "Supplier Confirmed"))
            for item in items:
                assert item.assignee in (None, DESK_USER), f"{task.id}: the DME item is {item.assignee}'s"


def test_a_stale_face_to_face_is_the_only_visit_with_the_ordering_practitioner_in_the_window(world, cases):
    """A case whose face-to-face evaluation is too old for the order must not hold a later
    visit with the ordering practitioner: that visit would be the face-to-face."""
    stale = 0
    for task in (t for t in cases if t.workflow == "dme"):
        chart = build_case(world, task.id, task.case).chart
        for order in (o for o in chart.orders if o.category == "dme"):
            evaluations = [d for d in chart.documents if d.order_id == order.id and d.kind == "face_to_face"]
            if not evaluations or (order.ordered_on - max(d.date for d in evaluations)).days <= FACE_TO_FACE_DAYS:
                continue
            stale += 1
            visits = [e.date for e in chart.encounters if e.provider_npi == order.ordering_npi
                      and e.kind != "Orders Only" and 0 <= (order.ordered_on - e.date).days <= FACE_TO_FACE_DAYS]
            assert visits == [], f"{task.id}: the visits of {visits} with the ordering practitioner are face-to-face"
    assert stale >= 1  # dme-medium-05
