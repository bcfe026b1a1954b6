"""Notices a user has dismissed (the "What's new" modal is shown until dismissed)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from admindesk.envs.payer_portal_a.models import Base


class NoticeDismissal(Base):
    """One user's dismissal of one notice; the notice stays away for the episode."""

    __tablename__ = "notice_dismissals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    notice: Mapped[str] = mapped_column(String(32))
    username: Mapped[str] = mapped_column(String(64))
    dismissed_at: Mapped[datetime] = mapped_column(DateTime)
