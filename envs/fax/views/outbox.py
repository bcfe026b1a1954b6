"""Outbox: send jobs, their transmission log, cover sheet and attachments; resend."""
from __future__ import annotations

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import or_, select

from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.fax import drafts
from admindesk.envs.fax.cover_templates import template
from admindesk.envs.fax.forms import ResendForm
from admindesk.envs.fax.models import FAILED, MISSING_ITEMS, SENT, FaxAttachment, OutboundFax, SupplierReply
from admindesk.envs.fax.numbers import digits_only
from admindesk.envs.fax.transmission import PENDING, RETRIES
from admindesk.envs.fax.views import send_pending, staff_names

bp = Blueprint("outbox", __name__)

PER_PAGE = 20
# Opening the outbox hands every queued job to the carrier first, so "In progress" holds
# only jobs waiting for a retry after a busy signal.
FOLDERS = {"all": ("Outbox", ()), "pending": ("In progress", PENDING), "sent": ("Sent items", (SENT,)),
           "failed": ("Failed", (FAILED,))}
SORT_COLUMNS = {"queued": OutboundFax.queued_at, "to": OutboundFax.recipient_name,
                "number": OutboundFax.to_number, "status": OutboundFax.status,
                "pages": OutboundFax.total_pages, "id": OutboundFax.id}


@bp.get("/outbox")
def index():
    """All send jobs (or one status folder); opening it lets queued jobs go out."""
    folder = request.args.get("folder", "all")
    folder = folder if folder in FOLDERS else "all"
    send_pending()
    q = request.args.get("q", "").strip()[:100]
    stmt = select(OutboundFax)
    statuses = FOLDERS[folder][1]
    if statuses:
        stmt = stmt.where(OutboundFax.status.in_(statuses))
    if q:
        like = f"%{q}%"
        conditions = [OutboundFax.recipient_name.ilike(like), OutboundFax.cover_re.ilike(like),
                      OutboundFax.sent_by.ilike(like)]
        if q.isdigit() and len(q) <= 9:
            conditions.append(OutboundFax.id == int(q))  # a job number
        if len(digits_only(q)) >= 3:
            conditions.append(OutboundFax.to_number.contains(digits_only(q)))
        stmt = stmt.where(or_(*conditions))
    if "sort" in request.args:
        stmt = apply_sort(stmt, SORT_COLUMNS, "queued").order_by(OutboundFax.id)
    else:
        stmt = stmt.order_by(OutboundFax.id.desc())
    page = paginate(db(), stmt, PER_PAGE)
    describe(record_type="outbox", tab=folder, q=q or None, page=page.number)
    return render_template("outbox/index.html", page=page, folder=folder, folders=FOLDERS, q=q,
                           staff=staff_names())


def _job(job_id: int) -> OutboundFax:
    return get_or_404(OutboundFax, job_id)


def _render_job(fax: OutboundFax, form: ResendForm | None = None, status: int = 200):
    form = form or ResendForm(data={"to_number": fax.to_number})
    resent_as = list(db().scalars(select(OutboundFax.id).where(OutboundFax.resend_of == fax.id)
                                  .order_by(OutboundFax.id)))
    reply = db().scalar(select(SupplierReply).where(SupplierReply.outbound_fax_id == fax.id))
    return render_template("outbox/job.html", fax=fax, form=form, resent_as=resent_as, reply=reply,
                           missing_labels=MISSING_ITEMS, staff=staff_names(), max_attempts=RETRIES,
                           cover_template=template(fax.cover_template)), status


@bp.get("/outbox/<int:job_id>")
def show(job_id: int):
    """One send job: status, transmission log, cover fields and attachments."""
    fax = _job(job_id)
    send_pending(fax)
    describe(record_type="outbound_fax", record_id=str(fax.id), tab="details")
    return _render_job(fax)


@bp.get("/outbox/<int:job_id>/cover-sheet")
def cover_sheet(job_id: int):
    """The generated cover sheet PDF."""
    fax = _job(job_id)
    describe(record_type="outbound_fax", record_id=str(fax.id), tab="cover_sheet", action="open_cover_sheet")
    response = Response(fax.cover_sheet, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="fax-job-{fax.id}-cover.pdf"'
    return response


@bp.get("/outbox/<int:job_id>/attachments/<int:attachment_id>")
def attachment(job_id: int, attachment_id: int):
    """One attachment exactly as it was sent."""
    fax = _job(job_id)
    item = db().get(FaxAttachment, attachment_id)
    if item is None or item.outbound_fax_id != fax.id:
        abort(404)
    describe(record_type="outbound_fax", record_id=str(fax.id), tab="attachments", action="open_attachment",
             file_name=item.file_name)
    response = Response(item.content, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="{item.file_name}"'
    return response


@bp.post("/outbox/<int:job_id>/resend")
def resend(job_id: int):
    """Queue a failed job again, to the same or a corrected number."""
    fax = _job(job_id)
    form = ResendForm()
    describe(record_type="outbound_fax", record_id=str(fax.id), action="resend")
    if fax.status != FAILED:
        form.to_number.errors = ["Only a failed fax can be resent."]
        return _render_job(fax, form, 409)
    valid = form.validate_on_submit()
    if valid and not form.to_number.digits:
        form.to_number.errors = ["Enter the fax number."]
        valid = False
    if not valid:
        return _render_job(fax, form, 422)
    job = drafts.resend(db(), fax, form.to_number.digits, current_username())
    db().commit()
    send_pending(job)  # a job is dialed as soon as it is queued
    describe(new_job=job.id)
    flash(f"Fax job {fax.id} resent as job {job.id}.", "success")
    return redirect(url_for("outbox.show", job_id=job.id))
