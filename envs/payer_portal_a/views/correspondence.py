"""Correspondence inbox: payer letters, each viewable in the page and as a PDF."""
from __future__ import annotations

from flask import Blueprint, Response, abort, render_template, request
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import db
from admindesk.envs.payer_portal_a.letters import (
    APPEAL_CATEGORY,
    APPROVAL_CATEGORY,
    DENIAL_CATEGORY,
    PENDED_CATEGORY,
    letter_pdf,
)
from admindesk.envs.payer_portal_a.models import Letter
from admindesk.envs.payer_portal_a.web import payer_choices

correspondence = Blueprint("correspondence", __name__, url_prefix="/correspondence")
CATEGORIES = (PENDED_CATEGORY, APPROVAL_CATEGORY, DENIAL_CATEGORY, APPEAL_CATEGORY)
SORTS = {"sent": Letter.sent_at, "subject": Letter.subject, "member": Letter.member_name, "category": Letter.category}


@correspondence.get("")
def inbox():
    """Letters, newest first, filtered by payer, type and read state."""
    describe(tab="correspondence")
    stmt = select(Letter)
    payer_id, category, state = (request.args.get(k, "") for k in ("payer_id", "category", "state"))
    if payer_id:
        stmt = stmt.where(Letter.payer_id == payer_id)
    if category in CATEGORIES:
        stmt = stmt.where(Letter.category == category)
    if state == "unread":
        stmt = stmt.where(Letter.read_at.is_(None))
    if request.args.get("sort") is None:
        stmt = stmt.order_by(Letter.sent_at.desc(), Letter.id.desc())
    else:
        stmt = apply_sort(stmt, SORTS, "sent")
    page = paginate(db(), stmt, per_page=20)
    return render_template("inbox/inbox.html", section="inbox", page=page, payers=payer_choices(),
                           categories=CATEGORIES, filters={"payer_id": payer_id, "category": category, "state": state})


def _letter(letter_number: str) -> Letter:
    letter = db().scalar(select(Letter).where(Letter.letter_number == letter_number))
    if letter is None:
        abort(404)
    return letter


@correspondence.get("/<letter_number>")
def letter(letter_number: str):
    """Read a letter (marks it read the first time)."""
    row = _letter(letter_number)
    describe(record_type="letter", record_id=row.letter_number, tab="letter",
             case_number=row.case_number, claim_number=row.claim_number)
    if row.read_at is None:
        row.read_at = clock.now()
        db().commit()
    return render_template("inbox/letter.html", section="inbox", letter=row)


@correspondence.get("/<letter_number>/pdf")
def letter_download(letter_number: str):
    """The letter as a PDF download with a stable file name."""
    row = _letter(letter_number)
    describe(action="download_letter", record_type="letter", record_id=row.letter_number, tab="letter")
    return Response(letter_pdf(row), mimetype="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="{row.letter_number}.pdf"'})
