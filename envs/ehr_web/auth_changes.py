"""The authorization lifecycle of an order: which changes a recorded authorization
accepts, what each change does, and the history row it leaves.

Rules (a refused change writes nothing and says why):
- Extension, units increase and date change apply to an Approved authorization that has
  not expired (end date on or after today): an expired authorization needs a new request.
- An extension moves the end date later (units and a new number may come with it).
- A units increase raises the approved units above what is approved now.
- A date change gives both new dates, end on or after start, different from the current.
- Cancellation applies to an Approved authorization or a request under review.
- Withdrawal applies only to a request under review (Submitted - Pending or Pended).
- Cancellation and withdrawal need a reason.
(That each change takes only its own fields is a field-level check of the form.)
"""
from __future__ import annotations

from datetime import date

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.ehr_web.forms_changes import AuthorizationChangeForm
from admindesk.envs.ehr_web.models import OrderAuthorization
from admindesk.envs.ehr_web.models_history import AuthorizationEvent
from admindesk.envs.ehr_web.vocab import PENDING_AUTH_STATUSES

_NEEDS_ACTIVE_APPROVAL = ("Extension", "Units increase", "Date change")


def _fmt(day: date | None) -> str:
    return day.strftime("%m/%d/%Y") if day else "(none)"


def change_problems(auth: OrderAuthorization, form: AuthorizationChangeForm, today: date) -> list[tuple]:
    """(field, message) pairs that refuse the change; empty when it may be applied."""
    change, problems = form.change.data, []
    if change in _NEEDS_ACTIVE_APPROVAL:
        if auth.status != "Approved":
            return [(form.change, f"{change}: only an approved authorization can be changed; "
                                  f"this one is {auth.status}.")]
        if auth.end_date is None or auth.end_date < today:
            return [(form.change, f"Authorization {auth.auth_number} expired on {_fmt(auth.end_date)}; an expired "
                                  "authorization cannot be changed. Submit a new request.")]
    if change == "Extension":
        if not form.new_end_date.data:
            problems.append((form.new_end_date, "Enter the new end date the payer approved."))
        elif form.new_end_date.data <= auth.end_date:
            problems.append((form.new_end_date, f"The new end date must be after the current end date "
                                                f"{_fmt(auth.end_date)}."))
        if form.new_units.data and int(form.new_units.data) < (auth.approved_units or 0):
            problems.append((form.new_units, "An extension cannot lower the approved units."))
    elif change == "Units increase":
        if not form.new_units.data:
            problems.append((form.new_units, "Enter the new number of approved units."))
        elif int(form.new_units.data) <= (auth.approved_units or 0):
            problems.append((form.new_units, f"The new units must be more than the {auth.approved_units} "
                                             "units approved now."))
    elif change == "Date change":
        start, end = form.new_start_date.data, form.new_end_date.data
        for field, value in ((form.new_start_date, start), (form.new_end_date, end)):
            if not value:
                problems.append((field, f"Enter the {field.label.text.lower()}."))
        if start and end and end < start:
            problems.append((form.new_end_date, "End date must be on or after the start date."))
        elif start and end and (start, end) == (auth.start_date, auth.end_date):
            problems.append((form.new_start_date, "These are the dates on file already."))
    elif change == "Cancellation" and auth.status not in ("Approved", *PENDING_AUTH_STATUSES):
        problems.append((form.change, f"Only an approved authorization or a request under review can be "
                                      f"cancelled; this one is {auth.status}."))
    elif change == "Withdrawal" and auth.status not in PENDING_AUTH_STATUSES:
        problems.append((form.change, f"Only a request still under review can be withdrawn; this one is "
                                      f"{auth.status}." + (" Cancel an approved authorization instead."
                                                           if auth.status == "Approved" else "")))
    if change in ("Cancellation", "Withdrawal") and not (form.note.data or "").strip():
        problems.append((form.note, f"Give the reason for the {change.lower()}."))
    return problems


def apply_change(auth: OrderAuthorization, form: AuthorizationChangeForm) -> None:
    """Change the authorization as the (checked) form says."""
    change = form.change.data
    if change == "Extension":
        auth.end_date = form.new_end_date.data
        if form.new_units.data:
            auth.approved_units = int(form.new_units.data)
    elif change == "Units increase":
        auth.approved_units = int(form.new_units.data)
    elif change == "Date change":
        auth.start_date, auth.end_date = form.new_start_date.data, form.new_end_date.data
    elif change == "Cancellation":
        auth.status = "Cancelled"
    elif change == "Withdrawal":
        auth.status = "Withdrawn"
    if form.new_auth_number.data:
        auth.auth_number = form.new_auth_number.data


def record_event(session: Session, auth: OrderAuthorization, event: str, username: str, note: str = "") -> None:
    """Append the authorization as it stands now to the order's history."""
    session.add(AuthorizationEvent(
        order_id=auth.order_id, event=event, status=auth.status, payer_id=auth.payer_id,
        auth_number=auth.auth_number, reference_number=auth.reference_number,
        approved_units=auth.approved_units, approved_code=auth.approved_code, units_used=auth.units_used or 0,
        start_date=auth.start_date,
        end_date=auth.end_date, recorded_at=clock.now(), recorded_by=username, note=note.strip()))


def saved_event_name(session: Session, auth: OrderAuthorization) -> str:
    """The history name of a save of the main authorization form."""
    earlier = session.scalar(select(func.count()).select_from(AuthorizationEvent)
                             .where(AuthorizationEvent.order_id == auth.order_id))
    if not earlier:
        return "Initial"
    return "Denial" if auth.status == "Denied" else "Update"


def history(session: Session, order_id: str) -> list[AuthorizationEvent]:
    """The order's authorization rows, oldest first."""
    return list(session.scalars(select(AuthorizationEvent).where(AuthorizationEvent.order_id == order_id)
                                .order_by(AuthorizationEvent.recorded_at, AuthorizationEvent.id)))
