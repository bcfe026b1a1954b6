"""Inpatient cases at Keystone Mutual: a notification recorded with its initial review, a concurrent
review or discharge report applied, each decision with its letter (the rules: rules/inpatient_rules.py)."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.inpatient.models import InpatientCase, InpatientReview
from admindesk.envs.payer_portal_b.letters import issue_letter
from admindesk.envs.payer_portal_b.models import Provider, Subscriber
from admindesk.envs.payer_portal_b.numbering import next_inpatient_case_number
from admindesk.envs.payer_portal_b.rules import inpatient_rules as rules

APPROVED, DISCHARGED = "Approved", "Discharged"


def _day(value: date) -> str:
    return value.strftime(DATE_FORMAT)


def notify_admission(session: Session, subscriber: Subscriber, *, admitted_at: datetime, admission_type: str,
                     facility_npi: str, attending_npi: str, diagnosis: str, summary: str,
                     submitted_by: str) -> InpatientCase:
    """Record a notification: the initial days approved, the next review set, late flagged (caller commits)."""
    now = clock.now()
    days = rules.initial_days(diagnosis)
    item = InpatientCase(
        case_number=next_inpatient_case_number(session), subscriber_id=subscriber.subscriber_id,
        patient_name=subscriber.full_name, admitted_at=admitted_at, admission_type=admission_type,
        facility_npi=facility_npi, attending_npi=attending_npi, admitting_diagnosis=diagnosis, clinical_summary=summary,
        notified_at=now, late=rules.is_late(admitted_at, now), status=APPROVED, approved_days=days,
        next_review_date=rules.next_review(admitted_at, days), source="Portal", submitted_by=submitted_by)
    session.add(item)
    session.add(InpatientReview(case_number=item.case_number, kind="Initial review", review_date=now.date(),
                                clinical_update=summary, days_requested=0, days_approved=days, total_days_approved=days,
                                outcome=APPROVED,
                                next_review_date=item.next_review_date, submitted_by=submitted_by, submitted_at=now))
    late = (f" This notification was received after {_day(rules.notification_due(admitted_at))}, the end of the "
            "next business day after admission, and is flagged Late notification." if item.late else "")
    _letter(session, item, "Inpatient Admission Approval", f"Inpatient admission {item.case_number}: {days} day(s) approved", [
        ("Admit Date", f"{_day(admitted_at.date())} {admitted_at:%H:%M}"), ("Admission Type", admission_type),
        ("Facility", _provider_name(session, facility_npi)), ("Admitting Diagnosis", diagnosis),
        ("Days Approved", str(days)), ("Next Review Date", _day(item.next_review_date))],
        f"Keystone Mutual's utilization management nurse reviewed the admission under policy KM-UM-201 and "
        f"approved {days} inpatient day(s) from the admit date. Submit a concurrent review with the clinical "
        f"update on {_day(item.next_review_date)}, or report the discharge if the member leaves earlier.{late}")
    return item


def submit_review(session: Session, item: InpatientCase, *, review_date: date, update: str, days_requested: int,
                  submitted_by: str) -> InpatientReview:
    """A continued-stay review: the rules decide; approved days extend the case (caller commits)."""
    decision = rules.decide_review(update, days_requested)
    if decision.days:
        item.approved_days += decision.days
        item.next_review_date = rules.next_review(item.admitted_at, item.approved_days)
    review = InpatientReview(case_number=item.case_number, kind="Concurrent review", review_date=review_date,
                             clinical_update=update, days_requested=days_requested, days_approved=decision.days,
                             total_days_approved=item.approved_days, outcome=decision.outcome, next_review_date=item.next_review_date,
                             submitted_by=submitted_by, submitted_at=clock.now())
    session.add(review)
    _letter(session, item, "Concurrent Review Determination",
            f"Concurrent review of {item.case_number}: {decision.outcome}", [
                ("Review Date", _day(review_date)), ("Days Requested", str(days_requested)),
                ("Days Approved", str(decision.days)), ("Total Days Approved", str(item.approved_days)),
                ("Next Review Date", _day(item.next_review_date))], decision.reason)
    return review


def report_discharge(session: Session, item: InpatientCase, *, review_date: date, discharged_on: date,
                     disposition: str, submitted_by: str) -> InpatientReview:
    """The member went home (or elsewhere): the case closes, no more reviews (caller commits)."""
    item.status, item.discharged_on, item.disposition, item.next_review_date = DISCHARGED, discharged_on, disposition, None
    review = InpatientReview(case_number=item.case_number, kind="Discharge", review_date=review_date,
                             clinical_update=None, days_requested=0, days_approved=0,
                             total_days_approved=item.approved_days, discharged_on=discharged_on,
                             disposition=disposition, outcome="Discharge recorded", next_review_date=None,
                             submitted_by=submitted_by, submitted_at=clock.now())
    session.add(review)
    _letter(session, item, "Inpatient Discharge Confirmation", f"Inpatient case {item.case_number} closed: discharged", [
        ("Discharge Date", _day(discharged_on)), ("Disposition", disposition),
        ("Total Days Approved", str(item.approved_days))],
        "Keystone Mutual recorded the member's discharge. The inpatient case is closed; no further concurrent "
        "review is needed.")
    return review


def _provider_name(session: Session, npi: str) -> str:
    provider = session.get(Provider, npi)
    return f"{provider.name} (NPI {npi})" if provider else f"NPI {npi}"


def _letter(session: Session, item: InpatientCase, letter_type: str, subject: str, fields, body: str) -> None:
    issue_letter(session, letter_type=letter_type, subscriber_id=item.subscriber_id, claim_number=None,
                 related_type="inpatient", related_id=item.case_number, subject=subject,
                 fields=[("Case Number", item.case_number), ("Member", f"{item.patient_name} ({item.subscriber_id})"),
                         *fields], body=body, issued_on=clock.today())
