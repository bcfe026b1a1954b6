"""Choice lists every view of portal A builds its selects from."""
from __future__ import annotations

from sqlalchemy import select

from admindesk.envs.common.web import db
from admindesk.envs.payer_portal_a.forms import AttachmentForm
from admindesk.envs.payer_portal_a.models import Payer, Plan
from admindesk.envs.payer_portal_a.policy import load_policy


def payer_choices() -> dict[str, str]:
    """The "Select a payer" list every transaction starts with (value -> label)."""
    payers = db().scalars(select(Payer).order_by(Payer.name))
    return {"": "Select a payer", **{p.id: p.name for p in payers}}


def plan_choices() -> dict[str, str]:
    plans = db().scalars(select(Plan).join(Payer).order_by(Payer.name, Plan.name))
    return {"": "Select a plan", **{p.id: f"{p.payer.name} - {p.name}" for p in plans}}


def document_type_choices() -> dict[str, str]:
    """The medical policy's document types, after an empty prompt."""
    return {"": "Select a document type", **{value: value for value in load_policy().document_types}}


def attachment_form() -> AttachmentForm:
    """The one-PDF upload form of a draft or a pended case."""
    form = AttachmentForm()
    form.document_type.choices = document_type_choices()
    return form
