"""Helpers every view of portal A uses: the request's database session and look-ups."""
from __future__ import annotations

from flask import abort, current_app, g
from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import Payer, Plan


def db() -> Session:
    """The database session of the current request."""
    return current_app.extensions["admindesk"].db.request_session()


def username() -> str:
    return g.user.username


def payer_choices() -> dict[str, str]:
    """The "Select a payer" list every transaction starts with (value -> label)."""
    payers = db().scalars(select(Payer).order_by(Payer.name))
    return {"": "Select a payer", **{p.id: p.name for p in payers}}


def plan_choices() -> dict[str, str]:
    plans = db().scalars(select(Plan).join(Payer).order_by(Payer.name, Plan.name))
    return {"": "Select a plan", **{p.id: f"{p.payer.name} - {p.name}" for p in plans}}


def select_choices(prompt: str, values) -> dict[str, str]:
    """Choices for a select whose labels are its values, after an empty prompt."""
    return {"": prompt, **{value: value for value in values}}


def get_or_404(model, key):
    """The row with primary key `key`, or the kit's 404 page."""
    row = db().get(model, key)
    if row is None:
        abort(404)
    return row
