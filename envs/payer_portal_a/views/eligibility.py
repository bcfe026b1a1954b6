"""Eligibility & benefits inquiry: member id + date of birth + date of service."""
from __future__ import annotations

from flask import Blueprint, render_template
from sqlalchemy import func, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.payer_portal_a import numbering
from admindesk.envs.payer_portal_a.forms import EligibilityForm
from admindesk.envs.payer_portal_a.models import EligibilityCheck, Member, PlanBenefit
from admindesk.envs.payer_portal_a.web import payer_choices

eligibility = Blueprint("eligibility", __name__, url_prefix="/eligibility")


def find_member(form) -> Member | None:
    """The member for the form's payer and member ID, or last + first name, with the
    date of birth; adds the field error when there is none (or more than one)."""
    query = select(Member).where(Member.payer_id == form.payer_id.data).order_by(Member.effective.desc())
    member_id = (form.member_id.data or "").strip().upper()
    if not member_id:
        return _member_by_name(form, query)
    member = db().scalar(query.where(func.upper(Member.member_id) == member_id))
    if member is None:
        form.member_id.errors.append("No member with this ID was found for the selected payer. Check the ID "
                                     "on the member's card and the payer.")
        return None
    if member.dob != form.dob.data:
        form.dob.errors.append("The date of birth does not match our records for this member ID.")
        return None
    return member


def _member_by_name(form, query) -> Member | None:
    matches = list(db().scalars(query.where(func.upper(Member.last_name) == form.last_name.data.strip().upper(),
                                            func.upper(Member.first_name) == form.first_name.data.strip().upper(),
                                            Member.dob == form.dob.data)))
    if not matches:
        form.last_name.errors.append("No member with this name and date of birth was found for the selected payer.")
        return None
    if len({m.member_id for m in matches}) > 1:
        form.member_id.errors.append("More than one member matches this name and date of birth; enter the member ID.")
        return None
    return matches[0]


def _recent_checks():
    return list(db().scalars(select(EligibilityCheck).order_by(EligibilityCheck.id.desc()).limit(10)))


@eligibility.route("", methods=["GET", "POST"])
def check():
    """The inquiry form; a valid inquiry shows coverage, benefits and auth hints."""
    form = EligibilityForm()
    form.payer_id.choices = payer_choices()
    describe(tab="eligibility")
    if not form.is_submitted():
        return render_template("eligibility/check.html", section="eligibility", form=form, recent=_recent_checks())
    member = find_member(form) if form.validate() else None
    if member is None:
        return render_template("eligibility/check.html", section="eligibility", form=form,
                               recent=_recent_checks()), 422
    session = db()
    active = member.active_on(form.service_date.data)
    record = EligibilityCheck(
        reference_number=numbering.eligibility_reference(session), payer_id=member.payer_id,
        member_id=member.member_id, dob=member.dob, service_date=form.service_date.data,
        result="Active" if active else "Inactive", coverage_id=member.coverage_id, checked_at=clock.now(),
        checked_by=current_username())
    session.add(record)
    session.commit()
    describe(action="eligibility_inquiry", record_type="member", record_id=member.member_id, tab="eligibility",
             reference=record.reference_number, result=record.result)
    benefits = list(session.scalars(select(PlanBenefit).where(PlanBenefit.plan_id == member.plan_id)
                                    .order_by(PlanBenefit.id)))
    return render_template("eligibility/result.html", section="eligibility", member=member, record=record,
                           benefits=benefits)
