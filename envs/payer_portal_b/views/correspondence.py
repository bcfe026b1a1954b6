"""Correspondence: the letters Keystone issued to the office (appeal decisions...), with PDFs."""
from __future__ import annotations

from flask import Blueprint, render_template, request
from sqlalchemy import or_, select

from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import paginate
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.payer_portal_b.portal import pdf_response, requested_page_size, status_counts
from admindesk.envs.payer_portal_b.workflow_models import Correspondence

correspondence = Blueprint("correspondence", __name__, url_prefix="/correspondence")


@correspondence.get("")
def inbox():
    """Letters newest first, searchable by letter id, claim, Subscriber ID or related record."""
    query = request.args.get("q", "").strip()[:40]
    stmt = select(Correspondence)
    if query:
        pattern = f"%{query}%"
        stmt = stmt.where(or_(Correspondence.letter_id.ilike(pattern), Correspondence.claim_number.ilike(pattern),
                              Correspondence.subscriber_id.ilike(pattern), Correspondence.related_id.ilike(pattern)))
    stmt = stmt.order_by(Correspondence.issued_on.desc(), Correspondence.letter_id.desc())
    tabs = status_counts(Correspondence.letter_type, ())
    status = request.args.get("status", "")
    if status in dict(tabs):
        stmt = stmt.where(Correspondence.letter_type == status)
    page = paginate(db(), stmt, per_page=requested_page_size())
    describe(record_type="correspondence", tab="inbox", query=query, letter_type=status)
    return render_template("correspondence.html", page=page, query=query, tabs=tabs, status=status)


@correspondence.get("/<letter_id>.pdf")
def download(letter_id: str):
    letter = get_or_404(Correspondence, letter_id)
    describe(action="download_letter", record_type="correspondence", record_id=letter_id,
             related_id=letter.related_id)
    return pdf_response(letter.content, letter.file_name)
