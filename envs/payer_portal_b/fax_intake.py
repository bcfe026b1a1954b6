"""Keystone Mutual's precertification fax line: the intake desk reads a faxed request form.

A fax-only service is requested on the Precertification Request Fax Form, faxed to the
payer's Precertification Fax (see common.fax_line), which says "Incomplete forms are
returned without review". The intake works each fax by fixed rules:
1. It reads every attached document (the cover sheet is not the form) and takes the first
   one titled "Precertification Request Fax Form" as the request.
2. No such form: the fax is correspondence (additional clinical information), logged as such.
3. A form that leaves a required field blank (every field but the referring provider; a
   rendering provider without an NPI counts as blank) is returned without review: the
   intake faxes a letter back to the calling number, RETURN_DELAY after the fax arrived,
   listing the blank fields. No case is opened.
4. A complete form is received for clinical review; the determination follows by fax later.
Every fax the line receives is a `precert_fax_intake` row (caller, documents, the form's
policy, subscriber ID and code, outcome, what was missing).
"""
from __future__ import annotations

import io
import re
from datetime import datetime, timedelta

from pypdf import PdfReader
from pypdf.errors import PdfReadError
from sqlalchemy import DateTime, Integer, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from admindesk.envs.common.fax_line import FaxDelivery, FaxReply
from admindesk.envs.payer_portal_b.fax_form import FORM_TITLE, missing_fields, read_form
from admindesk.envs.payer_portal_b.fields import format_phone
from admindesk.envs.payer_portal_b.models import Base, PayerProfile

RECEIVED, RETURNED, CORRESPONDENCE = "Received for review", "Returned - incomplete form", "No request form"
RETURN_DELAY = timedelta(minutes=35)
_POLICY_NUMBER = re.compile(r"\bKM-[A-Z]+-\d{3}\b")


class PrecertFaxIntake(Base):
    """One fax received on the precertification line, and what the intake did with it."""

    __tablename__ = "precert_fax_intake"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    caller_number: Mapped[str] = mapped_column(String(10))
    csid: Mapped[str] = mapped_column(String(40))
    received_at: Mapped[datetime] = mapped_column(DateTime)
    documents: Mapped[int] = mapped_column(Integer)
    policy_number: Mapped[str | None] = mapped_column(String(16))
    subscriber_id: Mapped[str | None] = mapped_column(String(40))
    service_code: Mapped[str | None] = mapped_column(String(16))
    outcome: Mapped[str] = mapped_column(String(32))
    # The labels of the form's blank required fields ("; "-separated), when it was returned.
    missing_fields: Mapped[str] = mapped_column(Text, default="")


def _text(content: bytes) -> str:
    try:
        return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(content)).pages)
    except (PdfReadError, ValueError, KeyError, TypeError):
        return ""  # an unreadable page tells the intake desk nothing


def _digits(number: str) -> str:
    return "".join(ch for ch in number if ch.isdigit())[-10:]


def return_letter(payer: PayerProfile, delivery: FaxDelivery, policy_number: str | None,
                  subscriber_id: str, missing: list[str]) -> str:
    """The page text of the letter returning an incomplete form."""
    items = "\n".join(f"- {label}" for label in missing)
    about = f"policy {policy_number}" if policy_number else "a fax-only service"
    member = f" for Subscriber ID {subscriber_id}" if subscriber_id else ""
    return (f"{payer.name}\nPrecertification Department\nFax {format_phone(payer.precert_fax)}\n\n"
            f"To: fax {delivery.csid}\nRe: your fax of {delivery.received_at:%m/%d/%Y %H:%M} "
            f"({delivery.pages} pages)\n\nPRECERTIFICATION REQUEST RETURNED - INCOMPLETE FORM\n\n"
            f"The Precertification Request Fax Form received{member} ({about}) is incomplete. As the form "
            "states, incomplete forms are returned without review: no precertification case has been opened "
            f"and this request has not been reviewed. The following required fields are blank:\n{items}\n\n"
            "Complete every required field and fax the form again with the clinical documentation to "
            f"{format_phone(payer.precert_fax)}. The form can be completed online in Provider Connect "
            "(Medical Policies, the policy's Precertification Request Fax Form).")


def station_id(payer_name: str) -> str:
    """The CSID the payer's precertification fax machine transmits (a fax server shows it)."""
    return f"{payer_name.split()[0].upper()} UM"


def receive_fax(session: Session, delivery: FaxDelivery) -> bool | FaxReply:
    """The kit's fax receiver for the precertification line (rules in the module docstring)."""
    payer = session.scalars(select(PayerProfile).order_by(PayerProfile.payer_id)).first()
    if payer is None or _digits(payer.precert_fax) != _digits(delivery.to_number):
        return False
    attached = delivery.documents[1:]  # the first document is the cover sheet
    form_text = next((text for text in map(_text, attached) if FORM_TITLE in text), None)
    entries = read_form(form_text) if form_text is not None else {}
    missing = missing_fields(entries) if form_text is not None else []
    policy = _POLICY_NUMBER.search(form_text or "")
    policy_number = policy.group(0) if policy else None
    outcome = CORRESPONDENCE if form_text is None else RETURNED if missing else RECEIVED
    session.add(PrecertFaxIntake(caller_number=delivery.caller_number, csid=delivery.csid,
                                 received_at=delivery.received_at, documents=len(attached),
                                 policy_number=policy_number, subscriber_id=entries.get("subscriber_id") or None,
                                 service_code=entries.get("service_code") or None, outcome=outcome,
                                 missing_fields="; ".join(missing)))
    if outcome != RETURNED:
        return True
    text = return_letter(payer, delivery, policy_number, entries.get("subscriber_id", ""), missing)
    return FaxReply(csid=station_id(payer.name), from_number=_digits(payer.precert_fax),
                    received_at=delivery.received_at + RETURN_DELAY, pages_text=(text,))
