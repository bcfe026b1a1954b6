"""Claim status inquiry and claim detail with the remittance (EOB) and its codes."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload
from wtforms import SelectField, StringField
from wtforms.validators import Length, Optional, Regexp

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.payer_portal_a.forms import MEMBER_ID_FORMAT, USDateField
from admindesk.envs.payer_portal_a.lifecycle_models import ClaimEvent, CorrectedClaim
from admindesk.envs.payer_portal_a.models import AdjustmentCode, Appeal, Claim, Remittance
from admindesk.envs.payer_portal_a.web import payer_choices

claims = Blueprint("claims", __name__, url_prefix="/claims")
CLAIM_TABS = ("summary", "remittance", "appeals", "timeline")
SORTS = {"claim": Claim.claim_number, "service": Claim.service_date, "status": Claim.status,
         "charge": Claim.total_charge, "patient": Claim.patient_name}
GROUP_CODES = {"CO": "Contractual obligation", "PR": "Patient responsibility", "OA": "Other adjustment",
               "PI": "Payer initiated reduction"}


class ClaimSearchForm(FlaskForm):
    """Find claims by claim number, or by payer + member id (optionally a service date span)."""

    class Meta:
        csrf = False

    payer_id = SelectField("Payer", validators=[Optional()], validate_choice=False)
    claim_number = StringField("Claim number", validators=[
        Optional(), Length(max=24, message="A claim number is at most 24 characters."),
        Regexp(r"^\s*[A-Za-z0-9-]+\s*$", message="A claim number has letters, digits and dashes only.")])
    member_id = StringField("Member ID", validators=[Optional(), *MEMBER_ID_FORMAT])
    from_date = USDateField("Service from", validators=[Optional()])
    to_date = USDateField("Service to", validators=[Optional()])


@claims.get("")
def search():
    """Claim status inquiry with sortable, paginated results."""
    form = ClaimSearchForm(request.args)
    form.payer_id.choices = payer_choices()
    describe(tab="claim_status")
    searched = "search" in request.args
    page = None
    if searched and form.validate():
        stmt = select(Claim)
        if form.claim_number.data:
            claim = db().scalar(stmt.where(func.upper(Claim.claim_number) == form.claim_number.data.strip().upper()))
            if claim is not None:
                return redirect(url_for("claims.detail", claim_number=claim.claim_number))
            # A claim status inquiry that finds nothing is an answer too (the claim is not on file).
            describe(record_type="claim", record_id=form.claim_number.data.strip().upper(), found="no")
            form.claim_number.errors.append("No claim was found with this number.")
        elif not (form.payer_id.data and form.member_id.data):
            form.member_id.errors.append("Enter a claim number, or select the payer and enter the member ID.")
        elif form.from_date.data and form.to_date.data and form.to_date.data < form.from_date.data:
            form.to_date.errors.append("The end of the date span must be on or after its start.")
        else:
            member_id = form.member_id.data.strip().upper()
            describe(record_type="member", record_id=member_id)
            stmt = stmt.where(Claim.payer_id == form.payer_id.data, func.upper(Claim.member_id) == member_id)
            stmt = stmt.options(selectinload(Claim.remittance))  # each row shows its appeal deadline
            if form.from_date.data:
                stmt = stmt.where(Claim.service_date >= form.from_date.data)
            if form.to_date.data:
                stmt = stmt.where(Claim.service_date <= form.to_date.data)
            page = paginate(db(), apply_sort(stmt, SORTS, "service"), per_page=15)
            if page.total == 0:
                form.member_id.errors.append("No claims found for this member, payer and dates.")
                page = None
    return render_template("claims/search.html", section="claims", form=form, page=page, searched=searched,
                           recent=_recently_adjudicated())


RECENT_CLAIMS = 10


def _recently_adjudicated() -> list[Claim]:
    """The latest remittances' claims: what a billing office checks first each morning."""
    return list(db().scalars(select(Claim).join(Remittance, (Remittance.claim_number == Claim.claim_number)
                                                & (Remittance.kind == "Original"))
                             .order_by(Remittance.paid_on.desc(), Claim.claim_number).limit(RECENT_CLAIMS)
                             .options(selectinload(Claim.remittance), selectinload(Claim.payer))))


@claims.get("/<claim_number>")
def detail(claim_number: str):
    """One claim: summary and lines, remittance advice (EOB) with codes, appeals."""
    claim = get_or_404(Claim, claim_number)
    tab = request.args.get("tab", "summary")
    tab = tab if tab in CLAIM_TABS else "summary"
    describe(record_type="claim", record_id=claim.claim_number, tab=tab)
    codes = {(r.code_set, r.code): r.description for r in db().scalars(select(AdjustmentCode))}
    appeals = list(db().scalars(select(Appeal).where(Appeal.claim_number == claim.claim_number).order_by(Appeal.id)))
    remittance = claim.remittance
    deadline_passed = bool(remittance and remittance.appeal_deadline < clock.today())
    corrections = list(db().scalars(select(CorrectedClaim).where(
        CorrectedClaim.original_claim_number == claim.claim_number).order_by(CorrectedClaim.id)))
    return render_template("claims/detail.html", section="claims", claim=claim, tab=tab, codes=codes,
                           appeals=appeals, remittance=remittance, deadline_passed=deadline_passed,
                           group_codes=GROUP_CODES, corrections=corrections, timeline=_timeline(claim))


def _timeline(claim: Claim) -> list[tuple]:
    """(when, what, note) from receipt through adjudication and every later event."""
    rows = [(claim.submitted_on, "Received", f"Claim received; billed {claim.total_charge:,.2f}.")]
    for remittance in claim.remittances:
        what = "Adjudicated" if remittance.kind == "Original" else f"{remittance.kind} payment"
        rows.append((remittance.paid_on, what, f"Remittance {remittance.id}: paid {remittance.paid_amount:,.2f} "
                                               f"({remittance.check_number})."))
    events = db().scalars(select(ClaimEvent).where(ClaimEvent.claim_number == claim.claim_number).order_by(ClaimEvent.id))
    rows += [(event.at, event.status, event.note) for event in events]
    return rows
