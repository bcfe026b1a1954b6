"""HMO referrals: a PCP's referral of a subscriber to a specialist, searched, submitted and viewed."""
from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from sqlalchemy import or_, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_b.fields import split_codes
from admindesk.envs.payer_portal_b.forms import options
from admindesk.envs.payer_portal_b.forms_referral import ReferralForm
from admindesk.envs.payer_portal_b.models import Plan, Provider
from admindesk.envs.payer_portal_b.numbering import next_referral_number
from admindesk.envs.payer_portal_b.portal import has_errors, requested_page_size
from admindesk.envs.payer_portal_b.precert_service import check_diagnoses, check_subscriber
from admindesk.envs.payer_portal_b.referral_models import Referral
from admindesk.envs.payer_portal_b.rules.referral_rules import check_referral, referral_end

referrals = Blueprint("referrals", __name__, url_prefix="/referrals")


def _form() -> ReferralForm:
    form = ReferralForm()
    specialties = db().scalars(select(Provider.specialty).where(Provider.kind == "Individual",
                                                                Provider.specialty != "Primary Care")
                               .distinct().order_by(Provider.specialty))
    form.specialty.choices = options([("", "Select a specialty..."), *specialties])
    if not form.is_submitted() and request.args.get("subscriber_id"):
        form.subscriber_id.data = request.args["subscriber_id"][:20]
    return form


def _hmo_plans() -> list[Plan]:
    return list(db().scalars(select(Plan).where(Plan.product == "HMO")))


@referrals.get("")
def search():
    """Referrals on file, by Subscriber ID or referral number (newest first)."""
    query = request.args.get("q", "").strip()[:40]
    stmt = select(Referral)
    if query:
        stmt = stmt.where(or_(Referral.subscriber_id.ilike(f"%{query}%"), Referral.referral_number.ilike(f"%{query}%")))
    stmt = stmt.order_by(Referral.submitted_at.desc(), Referral.referral_number.desc())
    page = paginate(db(), stmt, per_page=requested_page_size())
    describe(record_type="referral", tab="search", query=query)
    return render_template("referral_list.html", page=page, query=query,
                           providers={p.npi: p.name for p in db().scalars(select(Provider))})


@referrals.route("/new", methods=["GET", "POST"])
def new():
    """The referral form; validated, then checked against the HMO referral rule."""
    form = _form()
    if not form.is_submitted():
        describe(record_type="referral", tab="referral_form")
        return render_template("referral_form.html", form=form, plans=_hmo_plans())
    session = db()
    valid = form.validate()
    subscriber = None
    if not form.subscriber_id.errors and not form.subscriber_dob.errors:
        subscriber = check_subscriber(session, form.subscriber_id, form.subscriber_dob)
    if not form.diagnosis_codes.errors:
        check_diagnoses(session, form.diagnosis_codes)
    if valid and not has_errors(form) and subscriber is not None:
        for problem in check_referral(session, subscriber, form.referring_npi.data.strip(),
                                      form.specialist_npi.data.strip(), form.specialty.data, form.start_date.data):
            getattr(form, problem.field).errors.append(problem.message)
    if not valid or has_errors(form):
        describe(action="submit_referral_rejected", record_type="referral")
        return render_template("referral_form.html", form=form, plans=_hmo_plans()), 422
    item = Referral(
        referral_number=next_referral_number(session), subscriber_id=subscriber.subscriber_id,
        patient_name=subscriber.full_name, referring_npi=form.referring_npi.data.strip(),
        specialist_npi=form.specialist_npi.data.strip(), specialty=form.specialty.data,
        diagnosis_codes=split_codes(form.diagnosis_codes.data), visits=form.visits.data,
        start_date=form.start_date.data, end_date=referral_end(form.start_date.data), status="Approved",
        source="Portal", submitted_by=current_username(), submitted_at=clock.now())
    session.add(item)
    session.commit()
    describe(action="submit_referral", record_type="referral", record_id=item.referral_number, status=item.status)
    flash(f"Referral {item.referral_number} approved.", "success")
    return redirect(url_for("referrals.detail", referral_number=item.referral_number))


@referrals.get("/<referral_number>")
def detail(referral_number: str):
    item = get_or_404(Referral, referral_number)
    describe(record_type="referral", record_id=referral_number, tab="detail")
    return render_template("referral_detail.html", item=item,
                           referring=db().get(Provider, item.referring_npi),
                           specialist=db().get(Provider, item.specialist_npi))
