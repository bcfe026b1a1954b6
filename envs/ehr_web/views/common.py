"""Helpers every EHR view uses: the request's database session and record lookups."""
from __future__ import annotations

from sqlalchemy import select

from admindesk.envs.common.kit_models import StaffUser
from admindesk.envs.common.web import db, get_or_404

from ..models import Patient


def patient_or_404(mrn: str) -> Patient:
    return get_or_404(Patient, mrn)


def staff_users() -> list[StaffUser]:
    """The EHR's staff, in a stable order (assignee pickers, filters)."""
    return list(db().scalars(select(StaffUser).order_by(StaffUser.display_name)))


def staff_names() -> dict[str, str]:
    """username -> display name."""
    return {user.username: user.display_name for user in staff_users()}
