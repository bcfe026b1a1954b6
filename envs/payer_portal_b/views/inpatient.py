"""Inpatient: a provider's admission notifications, searched, submitted, and reviewed concurrently."""
from __future__ import annotations

from datetime import datetime

from flask import Blueprint, flash, redirect, render_template, request, url_for
from sqlalchemy import or_, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_b.inpatient.forms import (
    CONTINUED_STAY,
    AdmissionNotificationForm,
    ConcurrentReviewForm,
)
from admindesk.envs.payer_portal_b.inpatient.models import InpatientCase, InpatientReview
from admindesk.envs.payer_portal_b.inpatient.service import (
    APPROVED,
    notify_admission,
    report_discharge,
    submit_review,
)
from admindesk.envs.payer_portal_b.models import DiagnosisCode, Provider
from admindesk.envs.payer_portal_b.portal import has_errors, requested_page_size, status_counts
from admindesk.envs.payer_portal_b.precert_service import check_subscriber
from admindesk.envs.payer_portal_b.rules.inpatient_rules import policy
from admindesk.envs.payer_portal_b.workflow_models import Correspondence

inpatient = Blueprint("inpatient", __name__, url_prefix="/inpatient")
TABS = ("summary", "reviews", "letters")


@inpatient.get("")
def search():
    """Inpatient cases, by Subscriber ID, name or case number, newest admission first."""
    query = request.args.get("q", "").strip()[:40]
    status = request.args.get("status", "").strip()[:24]
    stmt = select(InpatientCase)
    if query:
        like = f"%{query}%"
        stmt = stmt.where(or_(InpatientCase.subscriber_id.ilike(like), InpatientCase.case_number.ilike(like),
                              InpatientCase.patient_name.ilike(like)))
    if status:
        stmt = stmt.where(InpatientCase.status == status)
    stmt = stmt.order_by(InpatientCase.admitted_at.desc(), InpatientCase.case_number.desc())
    page = paginate(db(), stmt, per_page=requested_page_size())
    describe(record_type="inpatient_case", tab="search", query=query)
    return render_template("inpatient_list.html", page=page, query=query, status=status,
                           tabs=status_counts(InpatientCase.status, ("Approved", "Discharged")))


def _check_notification(session, form: AdmissionNotificationForm):
    """The subscriber, and every reference the notification names; errors go on the fields."""
    subscriber = None
    if not form.subscriber_id.errors and not form.subscriber_dob.errors:
        subscriber = check_subscriber(session, form.subscriber_id, form.subscriber_dob)
    admit_date = form.admit_date.data
    if admit_date is not None and not form.admit_date.errors:
        if admit_date > clock.today():
            form.admit_date.errors.append("The admit date cannot be in the future: notify an admission once it "
                                          "has happened.")
        elif subscriber is not None and not subscriber.active_on(admit_date):
            form.admit_date.errors.append("The subscriber's coverage is not active on the admit date.")
    facility = session.get(Provider, (form.facility_npi.data or "").strip())
    if not form.facility_npi.errors and (facility is None or facility.kind != "Organization"):
        form.facility_npi.errors.append("This NPI is not a facility in the Keystone Mutual provider file.")
    attending = session.get(Provider, (form.attending_npi.data or "").strip())
    if not form.attending_npi.errors and (attending is None or attending.kind != "Individual"):
        form.attending_npi.errors.append("This NPI is not a physician in the Keystone Mutual provider file.")
    code = (form.admitting_diagnosis.data or "").strip().upper()
    if not form.admitting_diagnosis.errors and session.get(DiagnosisCode, code) is None:
        form.admitting_diagnosis.errors.append(f"{code} is not an ICD-10-CM code Keystone Mutual recognizes.")
    if subscriber is not None and admit_date is not None and not has_errors(form):
        open_case = session.scalars(select(InpatientCase).where(
            InpatientCase.subscriber_id == subscriber.subscriber_id, InpatientCase.status == APPROVED)).first()
        if open_case is not None:
            form.subscriber_id.errors.append(f"An open inpatient case is on file for this subscriber "
                                             f"({open_case.case_number}, admitted "
                                             f"{open_case.admitted_at:%d-%b-%Y}). Submit a concurrent review "
                                             "on that case instead.")
    return subscriber


@inpatient.route("/new", methods=["GET", "POST"])
def new():
    """The New Admission Notification form; a refused one keeps what was typed and says why."""
    form = AdmissionNotificationForm()
    if not form.is_submitted():
        if request.args.get("subscriber_id"):
            form.subscriber_id.data = request.args["subscriber_id"][:20]
        describe(record_type="inpatient_case", tab="notification_form")
        return render_template("inpatient_form.html", form=form, policy=policy())
    session = db()
    valid = form.validate()
    subscriber = _check_notification(session, form)
    if not valid or has_errors(form) or subscriber is None:
        describe(action="notify_admission_rejected", record_type="inpatient_case")
        return render_template("inpatient_form.html", form=form, policy=policy()), 422
    hour, minute = (int(part) for part in form.admit_time.data.split(":"))
    item = notify_admission(
        session, subscriber, admitted_at=datetime.combine(form.admit_date.data, datetime.min.time()).replace(
            hour=hour, minute=minute), admission_type=form.admission_type.data,
        facility_npi=form.facility_npi.data.strip(), attending_npi=form.attending_npi.data.strip(),
        diagnosis=form.admitting_diagnosis.data.strip().upper(), summary=form.clinical_summary.data.strip(),
        submitted_by=current_username())
    session.commit()
    describe(action="notify_admission", record_type="inpatient_case", record_id=item.case_number,
             status=item.status, late=item.late)
    flash(f"Admission notification {item.case_number} received: {item.approved_days} day(s) approved, next review "
          f"{item.next_review_date:%d-%b-%Y}." + (" Late notification." if item.late else ""), "success")
    return redirect(url_for("inpatient.detail", case_number=item.case_number))


def _render_detail(item: InpatientCase, tab: str, form: ConcurrentReviewForm | None = None, status: int = 200):
    session = db()
    reviews = list(session.scalars(select(InpatientReview).where(InpatientReview.case_number == item.case_number)
                                   .order_by(InpatientReview.submitted_at, InpatientReview.id)))
    letters = list(session.scalars(select(Correspondence).where(Correspondence.related_type == "inpatient",
                                                               Correspondence.related_id == item.case_number)
                                   .order_by(Correspondence.issued_on, Correspondence.letter_id)))
    if form is None:
        form = ConcurrentReviewForm(formdata=None)
        form.review_date.data = clock.today()
    return render_template("inpatient_detail.html", item=item, tab=tab, tabs=TABS, reviews=reviews, letters=letters,
                           form=form, facility=session.get(Provider, item.facility_npi),
                           attending=session.get(Provider, item.attending_npi),
                           diagnosis=session.get(DiagnosisCode, item.admitting_diagnosis)), status


@inpatient.get("/<case_number>")
def detail(case_number: str):
    item = get_or_404(InpatientCase, case_number)
    tab = request.args.get("tab", "summary")
    tab = tab if tab in TABS else "summary"
    describe(record_type="inpatient_case", record_id=case_number, tab=tab)
    return _render_detail(item, tab)


@inpatient.post("/<case_number>/reviews")
def review(case_number: str):
    """A concurrent review or a discharge report on an open case."""
    item = get_or_404(InpatientCase, case_number)
    form = ConcurrentReviewForm()
    valid = form.validate()
    if item.status != APPROVED:
        form.review_type.errors = [*form.review_type.errors, f"This case is {item.status}: it takes no more reviews."]
    when = form.review_date.data
    if when is not None and not form.review_date.errors and not (item.admitted_at.date() <= when <= clock.today()):
        form.review_date.errors = [*form.review_date.errors, "The review date is between the admit date and today."]
    left = form.discharge_date.data
    if left is not None and not form.discharge_date.errors and not (item.admitted_at.date() <= left <= clock.today()):
        form.discharge_date.errors = [*form.discharge_date.errors,
                                      "The discharge date is between the admit date and today."]
    if not valid or has_errors(form):
        describe(action="submit_inpatient_review_rejected", record_type="inpatient_case", record_id=case_number)
        return _render_detail(item, "reviews", form, 422)
    session = db()
    if form.review_type.data == CONTINUED_STAY:
        done = submit_review(session, item, review_date=when, update=form.clinical_update.data.strip(),
                             days_requested=form.days_requested.data, submitted_by=current_username())
        message = (f"Concurrent review {done.outcome.lower()}: {done.days_approved} day(s) added, next review "
                   f"{item.next_review_date:%d-%b-%Y}.")
    else:
        done = report_discharge(session, item, review_date=when, discharged_on=left,
                                disposition=form.disposition.data, submitted_by=current_username())
        message = f"Discharge recorded: case {item.case_number} is closed."
    session.commit()
    describe(action="submit_inpatient_review", record_type="inpatient_case", record_id=case_number,
             kind=done.kind, outcome=done.outcome)
    flash(message, "success")
    return redirect(url_for("inpatient.detail", case_number=case_number, tab="reviews"))
