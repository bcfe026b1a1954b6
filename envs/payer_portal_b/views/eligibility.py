"""Subscriber eligibility: Subscriber ID + date of birth (+ date of service) -> coverage."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, url_for
from sqlalchemy import select

from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.payer_portal_b.claim_models import BenefitAccumulator
from admindesk.envs.payer_portal_b.eligibility_service import NOT_FOUND, record_inquiry
from admindesk.envs.payer_portal_b.forms import EligibilityForm
from admindesk.envs.payer_portal_b.models import EligibilityInquiry, Plan, Provider, Subscriber

eligibility = Blueprint("eligibility", __name__, url_prefix="/eligibility")


def _recent_inquiries() -> list[EligibilityInquiry]:
    return list(db().scalars(select(EligibilityInquiry).order_by(EligibilityInquiry.inquiry_id.desc()).limit(10)))


@eligibility.route("", methods=["GET", "POST"])
def lookup():
    """The lookup form; a match is logged as an inquiry and shown on its own page."""
    form = EligibilityForm()
    if form.validate_on_submit():
        inquiry = record_inquiry(db(), form.subscriber_id.data, form.dob.data, form.service_date.data)
        if inquiry is None:
            form.subscriber_id.errors.append(NOT_FOUND)
            return render_template("eligibility.html", form=form, inquiries=_recent_inquiries()), 422
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
    pcp = db().get(Provider, subscriber.pcp_npi) if subscriber.pcp_npi else None
    return render_template("eligibility_result.html", inquiry=inquiry, subscriber=subscriber, plan=plan, pcp=pcp,
                           accumulators=_accumulators(subscriber.subscriber_id))


def _accumulators(subscriber_id: str) -> list[BenefitAccumulator]:
    return list(db().scalars(select(BenefitAccumulator).where(BenefitAccumulator.subscriber_id == subscriber_id)
                             .order_by(BenefitAccumulator.period_start.desc())))


@eligibility.get("/<inquiry_id>/accumulators")
def accumulators(inquiry_id: str):
    """The subscriber's visit-limited benefits: limit, period, visits applied and each visit."""
    inquiry = get_or_404(EligibilityInquiry, inquiry_id)
    subscriber = db().get(Subscriber, inquiry.subscriber_id)
    describe(record_type="subscriber", record_id=subscriber.subscriber_id, tab="accumulators",
             inquiry_id=inquiry_id)
    return render_template("eligibility_accumulators.html", inquiry=inquiry, subscriber=subscriber,
                           plan=db().get(Plan, subscriber.plan_id), accumulators=_accumulators(subscriber.subscriber_id))
