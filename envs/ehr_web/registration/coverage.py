"""Registration of a coverage change: the patient's coverage ended and a new one began (a new card
at check-in). Registration adds the new coverage, ends the old one on the day its payer gives, and
the order is pointed at the coverage that pays for it.

Rules (a refused change writes nothing and says why):
- Add coverage: the plan is the payer's; the member id is not already registered for the patient
  (a correction of that coverage is the Correct coverage panel's work); Self names the patient as
  subscriber and another relationship someone else; two coverages of one rank cannot be in force on
  the same date, so the coverage the new one replaces is ended first.
- End coverage: the termination date is not before the coverage's effective date and differs from
  the one registered.
- Order coverage: the order's coverage is one of the patient's, in force on the planned date of
  service; the order's open work items follow it to the new payer.
Each accepted change to a coverage leaves a `coverage_history` row.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.coverage_changes import subscriber_problems
from admindesk.envs.ehr_web.forms import options
from admindesk.envs.ehr_web.models import COVERAGE_RANKS, Coverage, Order, Patient, Payer, Plan
from admindesk.envs.ehr_web.models_history import CoverageEvent
from admindesk.envs.ehr_web.models_work import WorkItem
from admindesk.envs.ehr_web.registration.forms import AddCoverageForm, EndCoverageForm, OrderCoverageForm
from admindesk.envs.ehr_web.vocab import NOT_VERIFIED, QUEUE_BY_NAME

ADDED = "Coverage added"
TERMINATION = "Termination date change"
# Coverages registration adds get ids of their own (the world's and the cases' never start with R).
ADDED_ID_PREFIX = "COV-R"


def _fmt(day: date | None) -> str:
    return f"{day:%m/%d/%Y}" if day else "open-ended"


def _label(coverage: Coverage) -> str:
    """The coverage as a choice: rank, payer, plan, member id and the dates it is in force (a patient's
    ended coverages stay registered, and a list of them must tell them apart)."""
    return (f"{coverage.rank_label}: {coverage.payer.name} - {coverage.plan.name} ({coverage.member_id}), "
            f"{_fmt(coverage.effective_date)} to {_fmt(coverage.termination_date)}")


def add_form(**form_args) -> AddCoverageForm:
    """The Add coverage form with every payer and plan on file; `form_args` as FlaskForm takes them."""
    form = AddCoverageForm(**form_args)
    session = db()
    form.payer_id.choices = options([("", "- Select payer -")] + [
        (p.id, p.name) for p in session.scalars(select(Payer).order_by(Payer.name))])
    payers = {p.id: p.name for p in session.scalars(select(Payer))}
    form.plan_id.choices = options([("", "- Select plan -")] + [
        (p.id, f"{payers[p.payer_id]} - {p.name} ({p.product})")
        for p in session.scalars(select(Plan).order_by(Plan.payer_id, Plan.name))])
    return form


def end_form(patient: Patient, **form_args) -> EndCoverageForm:
    """The End coverage form offering the patient's coverages."""
    form = EndCoverageForm(**form_args)
    form.coverage_id.choices = options([("", "- Select coverage -")] + [(c.id, _label(c)) for c in patient.coverages])
    return form


def order_form(patient: Patient, order: Order, **form_args) -> OrderCoverageForm:
    """The order's Bill to coverage form, the order's coverage chosen."""
    form = OrderCoverageForm(**form_args)
    if form_args.get("formdata", True) is None:
        form.coverage_id.data = order.coverage_id
    form.coverage_id.choices = options([(c.id, _label(c)) for c in patient.coverages])
    return form


def _overlapping_rank(patient: Patient, rank: int, start: date, end: date | None) -> Coverage | None:
    """A coverage of the patient's with this rank in force on a day of start..end (None: open-ended)."""
    last = end or date.max
    return next((c for c in patient.coverages if c.rank == rank and c.effective_date <= last
                 and start <= (c.termination_date or date.max)), None)


def add_problems(patient: Patient, form: AddCoverageForm) -> dict[str, str]:
    """Form field -> why the coverage cannot be added."""
    problems: dict[str, str] = {}
    plan = db().get(Plan, form.plan_id.data)
    if plan is None or plan.payer_id != form.payer_id.data:
        problems["plan_id"] = "Choose a plan of the selected payer (the card names both)."
    member_id = form.member_id.data.upper()
    same = next((c for c in patient.coverages if c.member_id == member_id), None)
    if same is not None:
        problems["member_id"] = (f"Member ID {member_id} is already registered as the patient's {same.payer.name} "
                                 "coverage; correct or end that coverage instead.")
    problems.update(subscriber_problems(patient, form.subscriber_name.data, form.relationship.data))
    rank = int(form.rank.data)
    other = _overlapping_rank(patient, rank, form.effective_date.data, None)
    if other is not None:
        problems["rank"] = (f"{other.payer.name} ({other.member_id}) is {COVERAGE_RANKS[rank].lower()} from "
                            f"{_fmt(other.effective_date)} to {_fmt(other.termination_date)}; each date of service "
                            "has one coverage per rank. End it first, or choose another rank.")
    return problems


def _next_id(session: Session) -> str:
    taken = session.scalars(select(Coverage.id).where(Coverage.id.like(f"{ADDED_ID_PREFIX}%"))).all()
    return f"{ADDED_ID_PREFIX}{len(taken) + 1:05d}"


def add_coverage(patient: Patient, form: AddCoverageForm) -> Coverage | None:
    """Check the filled form and register the coverage (not verified yet); None, with nothing
    written and the reasons as field errors, when refused."""
    describe(action="add_coverage", record_type="patient", record_id=patient.mrn, payer_id=form.payer_id.data,
             plan_id=form.plan_id.data)
    valid = form.validate()
    if valid:
        for field, problem in add_problems(patient, form).items():
            getattr(form, field).errors = list(getattr(form, field).errors) + [problem]
            valid = False
    if not valid:
        return None
    session = db()
    coverage = Coverage(id=_next_id(session), mrn=patient.mrn, payer_id=form.payer_id.data, plan_id=form.plan_id.data,
                        rank=int(form.rank.data), member_id=form.member_id.data.upper(),
                        group_number=form.group_number.data.upper(), subscriber_name=form.subscriber_name.data,
                        relationship_to_subscriber=form.relationship.data, effective_date=form.effective_date.data,
                        verification_status=NOT_VERIFIED)
    session.add(coverage)
    session.flush()
    session.refresh(coverage)
    session.add(CoverageEvent(coverage_id=coverage.id, mrn=patient.mrn, event=ADDED, old_value=None,
                              new_value=f"{coverage.payer.name} - {coverage.plan.name} ({coverage.member_id}) from "
                                        f"{_fmt(coverage.effective_date)}",
                              note=form.source.data.strip(), at=clock.now(), username=current_username()))
    session.commit()
    describe(coverage_id=coverage.id, member_id=coverage.member_id)
    return coverage


def end_coverage(patient: Patient, form: EndCoverageForm) -> Coverage | None:
    """Check the filled form and set the chosen coverage's termination date; None when refused."""
    describe(action="end_coverage", record_type="patient", record_id=patient.mrn, coverage_id=form.coverage_id.data)
    valid = form.validate()
    chosen = next((c for c in patient.coverages if c.id == form.coverage_id.data), None)
    if chosen is None:
        form.coverage_id.errors = list(form.coverage_id.errors) + ["Choose the coverage that ended."]
        return None
    last = form.termination_date.data
    if valid and last < chosen.effective_date:
        form.termination_date.errors = list(form.termination_date.errors) + [
            f"{chosen.payer.name} coverage begins {_fmt(chosen.effective_date)}; it cannot end before it began."]
        valid = False
    if valid and last == chosen.termination_date:
        form.termination_date.errors = list(form.termination_date.errors) + [
            f"{chosen.payer.name} coverage already ends {_fmt(last)}; nothing changes."]
        valid = False
    if not valid:
        return None
    before, chosen.termination_date = chosen.termination_date, last
    db().add(CoverageEvent(coverage_id=chosen.id, mrn=patient.mrn, event=TERMINATION, old_value=_fmt(before),
                           new_value=_fmt(last), note=form.reason.data.strip(), at=clock.now(),
                           username=current_username()))
    db().commit()
    describe(termination_date=last.isoformat())
    return chosen


def change_order_coverage(patient: Patient, order: Order, form: OrderCoverageForm) -> Coverage | None:
    """Point the order (and its open work items) at the chosen coverage; None when refused."""
    describe(action="change_order_coverage", record_type="order", record_id=order.id,
             coverage_id=form.coverage_id.data)
    valid = form.validate()
    chosen = next((c for c in patient.coverages if c.id == form.coverage_id.data), None)
    problem = None
    if chosen is None:
        problem = "Choose one of the patient's coverages."
    elif chosen.id == order.coverage_id:
        problem = f"The order is already billed to {chosen.payer.name} ({chosen.member_id})."
    elif not chosen.active_on(order.planned_date):
        problem = (f"{chosen.payer.name} coverage ({_fmt(chosen.effective_date)} to {_fmt(chosen.termination_date)}) "
                   f"is not in force on the planned date of service, {_fmt(order.planned_date)}.")
    if problem:
        form.coverage_id.errors = list(form.coverage_id.errors) + [problem]
        valid = False
    if not valid:
        return None
    before, order.coverage_id = order.coverage_id, chosen.id
    for item in db().scalars(select(WorkItem).where(WorkItem.order_id == order.id)):
        if item.status not in QUEUE_BY_NAME[item.queue].closed_statuses:
            item.payer_id = chosen.payer_id
    db().commit()
    describe(coverage_before=before, reason=(form.reason.data or "").strip())
    return chosen
