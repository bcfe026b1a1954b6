"""Claim status: search, claim detail with service lines, the EOB and the appeal deadline."""
from __future__ import annotations

from flask import Blueprint, render_template, request
from sqlalchemy import false, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.payer_portal_b.claim_models import CorrectedClaim
from admindesk.envs.payer_portal_b.forms import ClaimSearchForm
from admindesk.envs.payer_portal_b.models import (
    AdjustmentCode,
    Appeal,
    Claim,
    ClaimAdjustment,
    ClaimLine,
    ExplanationOfBenefits,
    Provider,
)
from admindesk.envs.payer_portal_b.portal import requested_page_size, status_counts
from admindesk.envs.payer_portal_b.rules.recovery_rules import recoveries_of, recovery_of

claims = Blueprint("claims", __name__, url_prefix="/claims")
TABS = ("summary", "eob", "appeals", "corrected")
CLAIM_STATUSES = ("Denied", "Paid", "Partially Paid", "Pending")
SORT_COLUMNS = {"claim": Claim.claim_number, "subscriber": Claim.subscriber_id, "dos": Claim.service_date,
                "billed": Claim.billed_amount, "status": Claim.status, "received": Claim.received_on}


@claims.get("")
def search():
    """Claims on file, narrowed by claim number, Subscriber ID and date-of-service range."""
    form = ClaimSearchForm(request.args)
    stmt = select(Claim)
    if form.validate():
        if form.service_from.data and form.service_to.data and form.service_to.data < form.service_from.data:
            form.service_to.errors.append("The end of the range cannot be before its start.")
        if form.claim_number.data:
            stmt = stmt.where(Claim.claim_number.ilike(f"%{form.claim_number.data.strip()}%"))
        if form.subscriber_id.data:
            stmt = stmt.where(Claim.subscriber_id == form.subscriber_id.data.strip().upper())
        if form.service_from.data:
            stmt = stmt.where(Claim.service_date >= form.service_from.data)
        if form.service_to.data:
            stmt = stmt.where(Claim.service_date <= form.service_to.data)
    tabs = status_counts(Claim.status, CLAIM_STATUSES)
    status = request.args.get("status", "")
    if status in dict(tabs):
        stmt = stmt.where(Claim.status == status)
    if form.errors:
        stmt = stmt.where(false())  # a bad criterion shows its message, not every claim
    if "sort" in request.args:
        stmt = apply_sort(stmt, SORT_COLUMNS, "received")
    else:
        stmt = stmt.order_by(Claim.received_on.desc(), Claim.claim_number)
    page = paginate(db(), stmt, per_page=requested_page_size())
    recoveries = recoveries_of(db(), [claim.claim_number for claim in page.items])
    describe(record_type="claim", tab="search", claim_number=form.claim_number.data or "",
             subscriber_id=form.subscriber_id.data or "", status=status)
    return render_template("claims.html", form=form, page=page, tabs=tabs, status=status,
                           recoveries=recoveries), (422 if form.errors else 200)


@claims.get("/<claim_number>")
def detail(claim_number: str):
    """One claim; tabs: summary (lines), eob (adjustments and appeal deadline), appeals, corrected claims."""
    claim = get_or_404(Claim, claim_number)
    tab = request.args.get("tab", "summary")
    tab = tab if tab in TABS else "summary"
    session = db()
    lines = list(session.scalars(select(ClaimLine).where(ClaimLine.claim_number == claim_number)
                                 .order_by(ClaimLine.line_no)))
    adjustments = list(session.scalars(select(ClaimAdjustment).where(ClaimAdjustment.claim_number == claim_number)
                                       .order_by(ClaimAdjustment.line_no, ClaimAdjustment.id)))
    # A claim reprocessed after an appeal or a corrected claim has a later EOB: the tab shows the
    # latest (its payment and appeal rights) and lists them all.
    eobs = list(session.scalars(select(ExplanationOfBenefits).where(ExplanationOfBenefits.claim_number == claim_number)
                                .order_by(ExplanationOfBenefits.paid_on, ExplanationOfBenefits.eob_id)))
    eob = eobs[-1] if eobs else None
    descriptions = {(a.code_set, a.code): a.description for a in session.scalars(select(AdjustmentCode))}
    appeals = list(session.scalars(select(Appeal).where(Appeal.claim_number == claim_number).order_by(Appeal.appeal_id)))
    corrected = list(session.scalars(select(CorrectedClaim).where(CorrectedClaim.original_claim_number == claim_number)
                                     .order_by(CorrectedClaim.corrected_claim_number)))
    rendering = session.get(Provider, claim.rendering_npi)
    days_left = (eob.appeal_deadline - clock.today()).days if eob else None
    recovery = recovery_of(session, claim_number)
    describe(record_type="claim", record_id=claim_number, tab=tab)
    return render_template("claim_detail.html", claim=claim, tab=tab, lines=lines, adjustments=adjustments,
                           eob=eob, eobs=eobs, descriptions=descriptions, appeals=appeals, corrected=corrected, rendering=rendering,
                           days_left=days_left, recovery=recovery)
