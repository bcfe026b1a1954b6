"""Actions on a precertification: withdraw, change an approval, request a peer-to-peer review
and record its outcome.

The rules are precert_rules'; a refusal re-renders the detail page with the rule quoted
on the form (422) and writes nothing.
"""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_b.forms_workflow import ChangeForm, PeerToPeerForm, PeerToPeerOutcomeForm, WithdrawForm
from admindesk.envs.payer_portal_b.models import Appeal, PrecertRequest
from admindesk.envs.payer_portal_b.numbering import next_authorization_number, next_p2p_id
from admindesk.envs.payer_portal_b.rules.precert_rules import (
    SLOT_FORMAT,
    add_event,
    apply_change,
    change_problem,
    offered_slots,
    p2p_outcome_problem,
    p2p_problem,
    slot_choices,
    withdraw_problem,
)
from admindesk.envs.payer_portal_b.views.precert import render_detail
from admindesk.envs.payer_portal_b.workflow_models import PeerToPeer

precert_actions = Blueprint("precert_actions", __name__, url_prefix="/precertification")

def _refuse(item: PrecertRequest, action: str, **forms):
    """The detail page again, the refusal stated at the top (the action's form may be hidden)."""
    describe(action=f"{action}_rejected", record_type="precert", record_id=item.reference_number)
    [form] = forms.values()
    refusal = " ".join(error for errors in form.errors.values() for error in errors)
    return render_detail(item, status=422, refusal=refusal, **forms)


@precert_actions.post("/<reference>/withdraw")
def withdraw(reference: str):
    item = get_or_404(PrecertRequest, reference)
    form = WithdrawForm()
    if form.validate():
        problem = withdraw_problem(item, clock.today())
        if problem is None:
            item.status, item.updated_at = "Withdrawn", clock.now()
            add_event(db(), item, "Withdrawn", form.reason.data.strip(), current_username(), clock.now())
            db().commit()
            describe(action="withdraw_precert", record_type="precert", record_id=reference)
            flash(f"Precertification {reference} was withdrawn.", "success")
            return redirect(url_for("precert.detail", reference=reference))
        form.reason.errors.append(problem)
    return _refuse(item, "withdraw_precert", withdraw_form=form)


@precert_actions.post("/<reference>/change")
def change(reference: str):
    """Extension, date change or units increase of an approved precertification."""
    item = get_or_404(PrecertRequest, reference)
    form = ChangeForm()
    if form.validate():
        values = {"new_start": form.new_start.data, "new_end": form.new_end.data, "new_units": form.new_units.data}
        problem = change_problem(db(), item, form.change_type.data, clock.today(), **values)
        if problem is None:
            changes = apply_change(item, form.change_type.data, **values)
            item.updated_at = clock.now()
            add_event(db(), item, f"{form.change_type.data} approved", form.reason.data.strip(), current_username(),
                      clock.now(), changes)
            db().commit()
            describe(action="change_precert", record_type="precert", record_id=reference,
                     change_type=form.change_type.data)
            flash(f"{form.change_type.data} approved for {reference}.", "success")
            return redirect(url_for("precert.detail", reference=reference))
        form.change_type.errors.append(problem)
    return _refuse(item, "change_precert", change_form=form)


@precert_actions.post("/<reference>/peer-to-peer")
def peer_to_peer(reference: str):
    """Schedule a peer-to-peer review of a denial in one of Keystone's offered slots."""
    item = get_or_404(PrecertRequest, reference)
    form = PeerToPeerForm()
    form.slot.choices = slot_choices(clock.today())
    if form.validate():
        has_appeal = db().scalars(select(Appeal.appeal_id).where(Appeal.precert_reference == reference)).first()
        problem = p2p_problem(db(), item, clock.today(), has_appeal is not None)
        if problem is None:
            reviewers = {at.strftime(SLOT_FORMAT): (at, who) for at, who in offered_slots(clock.today())}
            at, reviewer = reviewers[form.slot.data]
            review = PeerToPeer(p2p_id=next_p2p_id(db()), precert_reference=reference,
                                physician_name=form.physician_name.data.strip(),
                                callback_phone="".join(ch for ch in form.callback_phone.data if ch.isdigit()),
                                slot=at, reviewer=reviewer, status="Scheduled", outcome=None, outcome_note="",
                                requested_by=current_username(), requested_at=clock.now())
            db().add(review)
            add_event(db(), item, "Peer-to-peer scheduled", f"{review.p2p_id} on {at:%d-%b-%Y %H:%M} with {reviewer}.",
                      current_username(), clock.now())
            db().commit()
            describe(action="request_peer_to_peer", record_type="precert", record_id=reference, p2p_id=review.p2p_id)
            flash(f"Peer-to-peer {review.p2p_id} scheduled for {at:%d-%b-%Y %H:%M} with {reviewer}.", "success")
            return redirect(url_for("precert.detail", reference=reference))
        form.slot.errors.append(problem)
    return _refuse(item, "request_peer_to_peer", p2p_form=form)


@precert_actions.post("/<reference>/peer-to-peer/<p2p_id>/outcome")
def peer_to_peer_outcome(reference: str, p2p_id: str):
    """Record a held (or withdrawn) peer-to-peer; an overturn approves the precertification."""
    item = get_or_404(PrecertRequest, reference)
    review = get_or_404(PeerToPeer, p2p_id)
    if review.precert_reference != reference:
        abort(404)
    form = PeerToPeerOutcomeForm()
    if form.validate():
        problem = p2p_outcome_problem(review, form.outcome.data, clock.now())
        if problem is None:
            outcome, note, now = form.outcome.data, form.note.data.strip(), clock.now()
            review.status = "Withdrawn" if outcome == "Withdrawn" else "Held"
            review.outcome, review.outcome_note = outcome, note
            add_event(db(), item, f"Peer-to-peer {outcome.lower()}", f"{p2p_id} with {review.reviewer}: {note}",
                      current_username(), now)
            if outcome == "Overturned":
                item.status, item.decision_reason = "Approved", f"Approved after peer-to-peer {p2p_id}."
                item.authorization_number = item.authorization_number or next_authorization_number(db())
                item.approved_units = item.units
                item.approved_start, item.approved_end = max(item.start_date, now.date()), item.end_date
                add_event(db(), item, "Approved", f"Denial overturned on peer-to-peer {p2p_id}.", current_username(),
                          now, {"status": ["Denied", "Approved"]})
            item.updated_at = now
            db().commit()
            describe(action="record_peer_to_peer_outcome", record_type="precert", record_id=reference,
                     p2p_id=p2p_id, outcome=outcome)
            flash(f"Peer-to-peer {p2p_id}: {outcome}.", "success")
            return redirect(url_for("precert.detail", reference=reference))
        form.outcome.errors.append(problem)
    return _refuse(item, "record_peer_to_peer_outcome", outcome_form=form)
