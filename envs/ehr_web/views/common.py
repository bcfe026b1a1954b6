"""Helpers every EHR view uses: the request's database session and record lookups."""
from __future__ import annotations

from flask import abort, current_app, g
from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common.kit_models import StaffUser

from ..models import Patient


def db() -> Session:
    """The database session of the current request."""
    return current_app.extensions["admindesk"].db.request_session()


def get_or_404(model, key):
    """The row with primary key `key`, or a 404 page (malformed ids are simply not found)."""
    row = db().get(model, key) if key else None
    if row is None:
        abort(404)
    return row


def patient_or_404(mrn: str) -> Patient:
    return get_or_404(Patient, mrn)


def staff_users() -> list[StaffUser]:
    """The EHR's staff, in a stable order (assignee pickers, filters)."""
    return list(db().scalars(select(StaffUser).order_by(StaffUser.display_name)))


def staff_names() -> dict[str, str]:
    """username -> display name."""
    return {user.username: user.display_name for user in staff_users()}


def current_username() -> str:
    return g.user.username
