"""Home page (announcements, recent activity) and the contact and fax numbers page."""
from __future__ import annotations

from flask import Blueprint, render_template
from sqlalchemy import select

from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import db

from ..models import Announcement, Appeal, MedicalPolicy, PrecertRequest
from ..portal import payer

home = Blueprint("home", __name__)


@home.get("/")
def index():
    """Announcements, the office's latest precertification requests and appeals."""
    describe(record_type="home", tab="announcements")
    session = db()
    announcements = session.scalars(select(Announcement).order_by(Announcement.posted_on.desc(), Announcement.id))
    recent_precerts = session.scalars(select(PrecertRequest).where(PrecertRequest.source == "Portal")
                                      .order_by(PrecertRequest.submitted_at.desc(),
                                                PrecertRequest.reference_number.desc()).limit(5))
    recent_appeals = session.scalars(select(Appeal).order_by(Appeal.submitted_at.desc(),
                                                             Appeal.appeal_id.desc()).limit(5))
    return render_template("home.html", announcements=list(announcements), recent_precerts=list(recent_precerts),
                           recent_appeals=list(recent_appeals), payer=payer())


@home.get("/contacts")
def contacts():
    """Phone and fax numbers, and the services that must be requested by fax."""
    profile = payer()
    describe(record_type="payer", record_id=profile.payer_id, tab="contacts")
    fax_only = db().scalars(select(MedicalPolicy).where(MedicalPolicy.submission_method == "Fax only")
                            .order_by(MedicalPolicy.policy_number))
    return render_template("contacts.html", payer=profile, fax_only=list(fax_only))
