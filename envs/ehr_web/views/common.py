"""Helpers every EHR view uses: record lookups, staff names, what counts as an open work item."""
from __future__ import annotations

from flask import g
from sqlalchemy import and_, or_, select

from admindesk.envs.common.state.kit_models import StaffUser
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.ehr_web.models import Patient
from admindesk.envs.ehr_web.models_work import WorkItem
from admindesk.envs.ehr_web.vocab import QUEUES, WORK_POOLS, Queue


def patient_or_404(mrn: str) -> Patient:
    return get_or_404(Patient, mrn)


def staff_names() -> dict[str, str]:
    """Who a work item can be assigned to, with the name shown: the EHR's staff (username -> display
    name, by display name), then the teams' pools (assignee pickers, filters, the assignee shown)."""
    staff = {user.username: user.display_name
             for user in db().scalars(select(StaffUser).order_by(StaffUser.display_name))}
    return staff | {pool: f"{name} (team pool)" for pool, name in WORK_POOLS.items()}


def display_name(username: str | None) -> str:
    """Template filter: a staff member's name for a username (the username if unknown)."""
    if not username:
        return ""
    if "staff_names" not in g:
        g.staff_names = staff_names()
    return g.staff_names.get(username, username)


def open_items_filter(queue: Queue):
    """Items of `queue` still to be worked (not in a closing status)."""
    return WorkItem.status.not_in(queue.closed_statuses)


def open_in_any_queue():
    """Items still to be worked, each judged by its own queue's closing statuses."""
    return or_(*(and_(WorkItem.queue == queue.name, open_items_filter(queue)) for queue in QUEUES.values()))
