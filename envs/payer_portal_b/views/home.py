"""Home page (work summary counts, recent activity, announcements) and the contact and fax numbers page."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, render_template
from sqlalchemy import func, select

from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import db
from admindesk.envs.payer_portal_b.models import Announcement, Appeal, Claim, DmeRequest, MedicalPolicy, PrecertRequest
from admindesk.envs.payer_portal_b.portal import payer
from admindesk.envs.payer_portal_b.workflow_models import Correspondence
from admindesk.envs.world import ncci

home = Blueprint("home", __name__)
RECENT_ROWS = 6


@dataclass(frozen=True)
class SummaryTile:
    """One count on the home page's work summary, and the list it opens."""

    group: str
    label: str
    count: int
    endpoint: str
    status: str


def _count(model, column, value) -> int:
    return db().scalar(select(func.count()).select_from(model).where(column == value)) or 0


def work_summary() -> list[SummaryTile]:
    """Counts per status of the office's precertifications, DME requests, appeals and claims."""
    tiles = [SummaryTile("Precertification", f"{status} precertifications",
                         _count(PrecertRequest, PrecertRequest.status, status), "precert.status_list", status)
             for status in ("Pended", "Approved", "Denied")]
    tiles += [SummaryTile("Durable Medical Equipment", f"{status} DME requests",
                          _count(DmeRequest, DmeRequest.status, status), "dme.status_list", status)
              for status in ("Pended", "Approved", "Denied")]
    tiles += [SummaryTile("Appeals", f"Appeals {status.lower()}", _count(Appeal, Appeal.status, status),
                          "appeals.status_list", status) for status in ("In Review", "Decided")]
    tiles.append(SummaryTile("Claims", "Denied claims", _count(Claim, Claim.status, "Denied"),
                             "claims.search", "Denied"))
    return tiles


@home.get("/")
def index():
    """Work summary, the latest precertifications, DME requests, appeals and letters, announcements."""
    describe(record_type="home", tab="announcements")
    session = db()
    announcements = session.scalars(select(Announcement).order_by(Announcement.posted_on.desc(), Announcement.id))
    recent_precerts = session.scalars(select(PrecertRequest).order_by(
        PrecertRequest.submitted_at.desc(), PrecertRequest.reference_number.desc()).limit(RECENT_ROWS))
    recent_dme = session.scalars(select(DmeRequest).order_by(
        DmeRequest.submitted_at.desc(), DmeRequest.request_id.desc()).limit(RECENT_ROWS))
    recent_appeals = session.scalars(select(Appeal).order_by(
        Appeal.submitted_at.desc(), Appeal.appeal_id.desc()).limit(RECENT_ROWS))
    recent_letters = session.scalars(select(Correspondence).order_by(
        Correspondence.issued_on.desc(), Correspondence.letter_id.desc()).limit(RECENT_ROWS))
    return render_template("home.html", announcements=list(announcements), summary=work_summary(),
                           recent_precerts=list(recent_precerts), recent_dme=list(recent_dme),
                           recent_appeals=list(recent_appeals), recent_letters=list(recent_letters),
                           payer=payer())


@home.get("/reimbursement")
def reimbursement():
    """The practice's fee schedule under its participating agreement, and how payments are disputed."""
    profile = payer()
    describe(record_type="payer", record_id=profile.payer_id, tab="reimbursement")
    return render_template("reimbursement.html", payer=profile, ncci=ncci.edits())


@home.get("/contacts")
def contacts():
    """Phone and fax numbers, and the services that must be requested by fax."""
    profile = payer()
    describe(record_type="payer", record_id=profile.payer_id, tab="contacts")
    fax_only = db().scalars(select(MedicalPolicy).where(MedicalPolicy.submission_method == "Fax only")
                            .order_by(MedicalPolicy.policy_number))
    return render_template("contacts.html", payer=profile, fax_only=list(fax_only))
