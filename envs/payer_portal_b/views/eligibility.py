"""Subscriber eligibility: Subscriber ID + date of birth (+ date of service) -> coverage."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_b.forms import EligibilityForm
from admindesk.envs.payer_portal_b.models import EligibilityInquiry, Plan, Subscriber
from admindesk.envs.payer_portal_b.numbering import next_inquiry_id

eligibility = Blueprint("eligibility", __name__, url_prefix="/eligibility")
NOT_FOUND = "No subscriber matches this Subscriber ID and date of birth. Check the member's card."


def _recent_inquiries() -> list[EligibilityInquiry]:
    return list(db().scalars(select(EligibilityInquiry).order_by(EligibilityInquiry.inquiry_id.desc()).limit(10)))


@eligibility.route("", methods=["GET", "POST"])
def lookup():
    """The lookup form; a match is logged as an inquiry and shown on its own page."""
    form = EligibilityForm()
    if form.validate_on_submit():
        session = db()
        subscriber_id = form.subscriber_id.data.strip().upper()
        subscriber = session.get(Subscriber, subscriber_id)
        if subscriber is None or subscriber.dob != form.dob.data:
            form.subscriber_id.errors.append(NOT_FOUND)
            describe(action="eligibility_not_found", record_type="subscriber", record_id=subscriber_id)
            return render_template("eligibility.html", form=form, inquiries=_recent_inquiries()), 422
        service_date = form.service_date.data or clock.today()
        inquiry = EligibilityInquiry(
            inquiry_id=next_inquiry_id(session), subscriber_id=subscriber_id, dob=form.dob.data,
            service_date=service_date, result="Active" if subscriber.active_on(service_date) else "Inactive",
            plan_id=subscriber.plan_id, requested_by=current_username(), requested_at=clock.now())
        session.add(inquiry)
        session.commit()
        describe(action="check_eligibility", record_type="subscriber", record_id=subscriber_id,
                 inquiry_id=inquiry.inquiry_id, result=inquiry.result)
        return redirect(url_for("eligibility.result", inquiry_id=inquiry.inquiry_id))
    describe(record_type="eligibility", tab="lookup")
    status = 422 if form.errors else 200
    return render_template("eligibility.html", form=form, inquiries=_recent_inquiries()), status


@eligibility.get("/<inquiry_id>")
def result(inquiry_id: str):
    """The coverage answer of one inquiry, with the plan's benefit summary."""
    inquiry = get_or_404(EligibilityInquiry, inquiry_id)
    subscriber = db().get(Subscriber, inquiry.subscriber_id)
    plan = db().get(Plan, subscriber.plan_id)
    describe(record_type="subscriber", record_id=subscriber.subscriber_id, tab="eligibility",
             inquiry_id=inquiry_id)
    return render_template("eligibility_result.html", inquiry=inquiry, subscriber=subscriber, plan=plan)
