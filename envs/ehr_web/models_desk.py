"""The desk around the chart: the in-basket, saved work-queue views, and the answers a
user gave to the interruptions of a working day (best-practice alerts, chart locks)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from admindesk.envs.ehr_web.models import Base, Patient, Provider

# In-basket folders: letters and calls from payers, and messages between staff.
PAYER_CORRESPONDENCE = "Payer Correspondence"
STAFF_MESSAGE = "Staff Message"
INBASKET_FOLDERS = (PAYER_CORRESPONDENCE, STAFF_MESSAGE)
INBASKET_STATUSES = ("Unread", "Read", "Done")


class InBasketMessage(Base):
    """A message in a user's in-basket (recipient None: the shared revenue-cycle pool)."""

    __tablename__ = "inbasket_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    folder: Mapped[str] = mapped_column(String(32), index=True)
    recipient: Mapped[str | None] = mapped_column(String(64))
    sender: Mapped[str] = mapped_column(String(128))
    received_at: Mapped[datetime] = mapped_column(DateTime)
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    mrn: Mapped[str | None] = mapped_column(ForeignKey("patients.mrn"))
    order_id: Mapped[str | None] = mapped_column(String(24))
    claim_number: Mapped[str | None] = mapped_column(String(24))
    status: Mapped[str] = mapped_column(String(8), default="Unread")
    done_at: Mapped[datetime | None] = mapped_column(DateTime)
    done_by: Mapped[str | None] = mapped_column(String(64))

    patient: Mapped[Patient | None] = relationship(viewonly=True)


# What a staff message to a clinician asks of them, and how soon.
MESSAGE_TYPES = ("Signature needed", "Peer-to-peer requested", "Documentation needed", "Clinical question", "FYI")
MESSAGE_PRIORITIES = ("Routine", "High")


class StaffMessage(Base):
    """A message the desk sent to a clinician's In Basket about a patient (and an order): the
    work only a clinician can do, such as signing an order or taking a payer's peer-to-peer."""

    __tablename__ = "staff_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sender: Mapped[str] = mapped_column(String(64))
    to_npi: Mapped[str] = mapped_column(ForeignKey("providers.npi"))
    message_type: Mapped[str] = mapped_column(String(32))
    priority: Mapped[str] = mapped_column(String(8))
    subject: Mapped[str] = mapped_column(String(120))
    body: Mapped[str] = mapped_column(Text)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"))
    order_id: Mapped[str | None] = mapped_column(String(24))
    sent_at: Mapped[datetime] = mapped_column(DateTime)

    patient: Mapped[Patient] = relationship(viewonly=True)
    recipient: Mapped[Provider] = relationship(viewonly=True)


class SavedQueueView(Base):
    """A user's named set of work-queue filters ("My urgent Aetna items")."""

    __tablename__ = "saved_queue_views"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), index=True)
    queue: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(60))
    query: Mapped[str] = mapped_column(String(400))  # the queue page's query string
    created_at: Mapped[datetime] = mapped_column(DateTime)


class AlertResponse(Base):
    """How a user answered a best-practice alert: acknowledged, or dismissed with a reason."""

    __tablename__ = "bpa_responses"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    alert: Mapped[str] = mapped_column(String(40))
    action: Mapped[str] = mapped_column(String(16))  # Acknowledged | Dismissed
    reason: Mapped[str | None] = mapped_column(String(120))
    username: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(DateTime)


class ChartLockEvent(Base):
    """What a user did about a chart another user had open: took it over or waited for it."""

    __tablename__ = "chart_lock_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    locked_by: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(16))  # Took over | Waited
    username: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(DateTime)
