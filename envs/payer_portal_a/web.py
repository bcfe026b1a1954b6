"""Helpers every view of portal A uses: the request's database session and look-ups."""
from __future__ import annotations

from sqlalchemy import select

from admindesk.envs.common.web import db

from .models import Payer, Plan


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
