"""Portal B's workflow tables: correspondence, precertification lines, events and peer-to-peer
reviews. Same declarative base as models.py (one metadata, one snapshot).
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from admindesk.envs.common.documents.stored_files import StoredFileColumns
from admindesk.envs.payer_portal_b.models import Base


class Correspondence(StoredFileColumns, Base):
    """A letter Keystone issued (appeal decision, peer-to-peer outcome...), with its PDF."""

    __tablename__ = "correspondence"

    letter_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    letter_type: Mapped[str] = mapped_column(String(48))
    subscriber_id: Mapped[str] = mapped_column(String(32))
    claim_number: Mapped[str | None] = mapped_column(String(20))
    related_type: Mapped[str] = mapped_column(String(16))
    related_id: Mapped[str] = mapped_column(String(20))
    subject: Mapped[str] = mapped_column(String(200))
    issued_on: Mapped[date] = mapped_column(Date)


class PrecertLine(Base):
    """One service line of a multi-line precertification request, decided on its own."""

    __tablename__ = "precert_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str] = mapped_column(ForeignKey("precert_requests.reference_number"))
    line_no: Mapped[int] = mapped_column(Integer)
    service_code: Mapped[str] = mapped_column(String(10))
    units: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    approved_units: Mapped[int | None] = mapped_column(Integer)


class PrecertEvent(Base):
    """The status timeline of a precertification (submitted, extension approved, withdrawn...)."""

    __tablename__ = "precert_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str] = mapped_column(String(20))
    event: Mapped[str] = mapped_column(String(48))
    detail: Mapped[str] = mapped_column(Text)
    changes: Mapped[dict] = mapped_column(JSON)
    actor: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(DateTime)


class PeerToPeer(Base):
    """A peer-to-peer review of a denied precertification: the slot, the reviewer, the outcome."""

    __tablename__ = "peer_to_peer_reviews"

    p2p_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    precert_reference: Mapped[str] = mapped_column(String(20))
    physician_name: Mapped[str] = mapped_column(String(128))
    callback_phone: Mapped[str] = mapped_column(String(16))
    slot: Mapped[datetime] = mapped_column(DateTime)
    reviewer: Mapped[str] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16))
    outcome: Mapped[str | None] = mapped_column(String(24))
    outcome_note: Mapped[str] = mapped_column(Text, default="")
    requested_by: Mapped[str] = mapped_column(String(64))
    requested_at: Mapped[datetime] = mapped_column(DateTime)


class WhatsNewNotice(Base):
    """The "What's new at Keystone" notice as one user saw it: first shown, and dismissed."""

    __tablename__ = "whats_new_notices"

    username: Mapped[str] = mapped_column(String(64), primary_key=True)
    first_shown_at: Mapped[datetime] = mapped_column(DateTime)
    times_shown: Mapped[int] = mapped_column(Integer)
    dismissed_at: Mapped[datetime | None] = mapped_column(DateTime)
