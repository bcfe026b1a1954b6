"""Inbox: received faxes, their page images and PDF, and what users do with them.

The list shows what the fax server knows of a call (line, caller number, CSID, pages, time)
and, once a person has filed a fax, the index they gave it (patient, reference, document
type); search and filters read both."""
from __future__ import annotations

import re

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import and_, or_, select
from sqlalchemy.orm import defer

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.documents.scan_pages import render_page
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.fax.fax_pages import fax_scan
from admindesk.envs.fax.forms import AssignFaxForm, FileFaxForm, ReadStateForm
from admindesk.envs.fax.models import DOCUMENT_TYPES, READ, UNREAD, FaxLine, InboundFax, InboundFaxEvent
from admindesk.envs.fax.numbers import digits_only
from admindesk.envs.fax.views import assignee_choices, send_pending, staff_names

bp = Blueprint("inbox", __name__)

PER_PAGE = 20
FAX_ID = re.compile(r"^FAX-\d{6}$")
VIEWS = {"all": "All faxes", "unread": "Unread", "unfiled": "Not filed", "mine": "Assigned to me",
         "filed": "Filed"}
TABS = ("pages", "details", "history")
SORT_COLUMNS = {"received": InboundFax.received_at, "caller": InboundFax.from_number, "csid": InboundFax.csid,
                "line": InboundFax.to_number, "pages": InboundFax.pages, "status": InboundFax.status,
                "patient": InboundFax.index_patient_name, "id": InboundFax.id}
# What the list's filters keep from one request to the next (and the bulk form's return).
FILTER_ARGS = ("view", "line", "type", "q", "page")


def _fax_or_404(fax_id: str) -> InboundFax:
    if not FAX_ID.match(fax_id):
        abort(404)
    return get_or_404(InboundFax, fax_id)


def _log(fax: InboundFax, action: str, note: str = "", sha256: str | None = None) -> None:
    db().add(InboundFaxEvent(fax_id=fax.id, at=clock.now(), username=current_username(), action=action,
                             note=note.strip(), sha256=sha256))


@bp.get("/")
def home():
    describe(action="home")
    return redirect(url_for("inbox.index"))


def _search(stmt, q: str):
    """Faxes whose id, caller number, CSID or index (patient, MRN, reference) holds `q`."""
    like = f"%{q}%"
    conditions = [InboundFax.id.ilike(like), InboundFax.csid.ilike(like), InboundFax.index_patient_name.ilike(like),
                  InboundFax.index_mrn.ilike(like), InboundFax.index_reference.ilike(like)]
    digits = digits_only(q)
    if len(digits) == 11 and digits.startswith("1"):  # typed as shown, "+1 717-555-0123"
        digits = digits[1:]
    if len(digits) >= 3:
        conditions.append(InboundFax.from_number.contains(digits))
    # "Last, First" as filed is also found as "First Last".
    words = q.replace(",", " ").split()
    if len(words) > 1:
        conditions.append(and_(*(InboundFax.index_patient_name.ilike(f"%{word}%") for word in words)))
    return stmt.where(or_(*conditions))


@bp.get("/inbox")
def index():
    """The shared inbox: search, views (unread, filed, mine), line and document type, sort and pages."""
    view = request.args.get("view", "all")
    view = view if view in VIEWS else "all"
    lines = {line.number: line for line in db().scalars(select(FaxLine).order_by(FaxLine.label))}
    line = request.args.get("line", "")
    line = line if line in lines else ""
    doc_type = request.args.get("type", "")
    doc_type = doc_type if doc_type in DOCUMENT_TYPES else ""
    # Faxes sent since the last look have gone out, and suppliers' replies to them arrived.
    send_pending()
    q = request.args.get("q", "").strip()[:100]
    stmt = select(InboundFax).options(defer(InboundFax.content))  # the list shows no PDF bytes
    if line:
        stmt = stmt.where(InboundFax.to_number == line)
    if doc_type:
        stmt = stmt.where(InboundFax.index_document_type == doc_type)
    if view == "unread":
        stmt = stmt.where(InboundFax.status == UNREAD)
    elif view == "unfiled":
        stmt = stmt.where(InboundFax.is_filed.is_(False))
    elif view == "filed":
        stmt = stmt.where(InboundFax.is_filed.is_(True))
    elif view == "mine":
        stmt = stmt.where(InboundFax.assigned_to == current_username())
    if q:
        stmt = _search(stmt, q)
    if "sort" in request.args:
        stmt = apply_sort(stmt, SORT_COLUMNS, "received").order_by(InboundFax.id)
    else:
        stmt = stmt.order_by(InboundFax.received_at.desc(), InboundFax.id.desc())
    page = paginate(db(), stmt, PER_PAGE)
    describe(record_type="inbox", tab=view, line=line or None, document_type=doc_type or None, q=q or None,
             page=page.number)
    title = lines[line].label if line else doc_type or VIEWS[view]
    return render_template("inbox/index.html", page=page, view=view, views=VIEWS, q=q, line=line, lines=lines,
                           doc_type=doc_type, document_types=DOCUMENT_TYPES, title=title, staff=staff_names())


BULK_ACTIONS = {"read": "marked read", "unread": "marked unread", "take": "assigned to you"}


@bp.post("/inbox/bulk")
def bulk():
    """Mark the ticked faxes read or unread, or take them into your own queue."""
    action = request.form.get("bulk_action", "")
    ids = request.form.getlist("fax_id")
    describe(record_type="inbox", action=f"bulk_{action if action in BULK_ACTIONS else 'invalid'}",
             fax_ids=ids[:50])
    back = redirect(url_for("inbox.index", **{k: v for k, v in request.args.items() if k in FILTER_ARGS}))
    if action not in BULK_ACTIONS:
        abort(400)
    if not ids:
        flash("Tick at least one fax in the list first; nothing was changed.", "error")
        return back
    if len(ids) > PER_PAGE or not all(FAX_ID.match(i) for i in ids):
        abort(400)
    faxes = list(db().scalars(select(InboundFax).options(defer(InboundFax.content))
                              .where(InboundFax.id.in_(ids)).order_by(InboundFax.id)))
    if len(faxes) != len(set(ids)):
        abort(404)
    for fax in faxes:
        if action == "take":
            fax.assigned_to = current_username()
            _log(fax, f"Assigned to {staff_names().get(current_username(), current_username())}", "Bulk action")
        else:
            fax.status = READ if action == "read" else UNREAD
            _log(fax, f"Marked {fax.status.lower()}", "Bulk action")
    db().commit()
    flash(f"{len(faxes)} fax{'es' if len(faxes) != 1 else ''} {BULK_ACTIONS[action]}: "
          f"{', '.join(f.id for f in faxes)}.", "success")
    return back


def _render_fax(fax: InboundFax, tab: str, status: int = 200, **forms):
    forms.setdefault("read_form", ReadStateForm(prefix="read"))
    forms.setdefault("file_form", FileFaxForm(prefix="file"))
    forms.setdefault("assign_form", AssignFaxForm(prefix="assign")).assignee.choices = assignee_choices()
    page_urls = [url_for("inbox.page_image", fax_id=fax.id, page_no=page.page_no) for page in fax.page_texts]
    return render_template("inbox/fax.html", fax=fax, tab=tab, tabs=TABS, staff=staff_names(), page_urls=page_urls,
                           **forms), status


@bp.get("/inbox/<fax_id>")
def show(fax_id: str):
    """One received fax: page images, details, history. Opening it marks it read."""
    fax = _fax_or_404(fax_id)
    tab = request.args.get("tab", "pages")
    tab = tab if tab in TABS else "pages"
    if fax.status == UNREAD:
        fax.status = READ
        _log(fax, "Opened")
        db().commit()
    describe(record_type="inbound_fax", record_id=fax.id, tab=tab)
    form = AssignFaxForm(prefix="assign", data={"assignee": fax.assigned_to or ""})
    return _render_fax(fax, tab, assign_form=form)


@bp.get("/inbox/<fax_id>/pages/<int:page_no>.png")
def page_image(fax_id: str, page_no: int):
    """One page drawn as an image (as a fax machine would print it)."""
    fax = _fax_or_404(fax_id)
    scan = fax_scan(fax)
    if not 1 <= page_no <= scan.page_count:
        abort(404)
    describe(record_type="inbound_fax", record_id=fax.id, tab="pages", action="view_page", page=page_no)
    return Response(render_page(scan, page_no), mimetype="image/png")


@bp.get("/inbox/<fax_id>/download")
def download(fax_id: str):
    """The fax as the PDF it arrived as (its stored bytes, whose hash is the fax's `sha256`)."""
    fax = _fax_or_404(fax_id)
    describe(record_type="inbound_fax", record_id=fax.id, action="download_pdf")
    response = Response(fax.content, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'attachment; filename="{fax.file_name}"'
    return response


@bp.post("/inbox/<fax_id>/read-state")
def set_read_state(fax_id: str):
    """Mark read or unread (the button says which), with an optional note."""
    fax = _fax_or_404(fax_id)
    target = request.form.get("state")
    form = ReadStateForm(prefix="read")
    describe(record_type="inbound_fax", record_id=fax.id, action=f"mark_{(target or 'invalid').lower()}")
    if target not in (READ, UNREAD):
        abort(400)
    if not form.validate_on_submit():
        return _render_fax(fax, "details", 422, read_form=form, open_dialog="read-dialog")
    fax.status = target
    _log(fax, f"Marked {target.lower()}", form.note.data or "")
    db().commit()
    flash(f"Fax {fax.id} marked {target.lower()}.", "success")
    return redirect(url_for("inbox.index") if target == UNREAD else url_for("inbox.show", fax_id=fax.id))


@bp.post("/inbox/<fax_id>/file")
def file_fax(fax_id: str):
    """File (index) the fax to the patient its pages name, with an optional case, claim or
    authorization reference and document type, and a note of what was done with it."""
    fax = _fax_or_404(fax_id)
    form = FileFaxForm(prefix="file")
    describe(record_type="inbound_fax", record_id=fax.id, action="file_fax")
    if fax.is_filed:
        form.note.errors = ["This fax is already filed."]
        return _render_fax(fax, "details", 409, file_form=form, open_dialog="file-dialog")
    if not form.validate_on_submit():
        return _render_fax(fax, "details", 422, file_form=form, open_dialog="file-dialog")
    fax.index_patient_name = " ".join(form.patient_name.data.split())
    fax.index_dob = getattr(form.dob, "date", None)
    fax.index_mrn = (form.mrn.data or "").strip().upper() or None
    fax.index_reference = " ".join((form.reference.data or "").split()) or None
    fax.index_document_type = form.document_type.data or None
    fax.is_filed, fax.filed_by, fax.filed_at, fax.status = True, current_username(), clock.now(), READ
    _log(fax, "Filed", f"{_index_summary(fax)}. {form.note.data.strip()}", sha256=fax.sha256)
    db().commit()
    flash(f"Fax {fax.id} filed to {fax.index_patient_name}.", "success")
    return redirect(url_for("inbox.show", fax_id=fax.id, tab="details"))


def _index_summary(fax: InboundFax) -> str:
    """The index as one line of the fax's history."""
    parts = [f"Patient {fax.index_patient_name}"]
    if fax.index_dob:
        parts.append(f"DOB {fax.index_dob:%m/%d/%Y}")
    if fax.index_mrn:
        parts.append(f"MRN {fax.index_mrn}")
    if fax.index_reference:
        parts.append(f"Ref {fax.index_reference}")
    if fax.index_document_type:
        parts.append(fax.index_document_type)
    return ", ".join(parts)


@bp.post("/inbox/<fax_id>/assign")
def assign(fax_id: str):
    """Assign the fax to a colleague, or back to the shared inbox."""
    fax = _fax_or_404(fax_id)
    form = AssignFaxForm(prefix="assign")
    form.assignee.choices = assignee_choices()
    describe(record_type="inbound_fax", record_id=fax.id, action="assign_fax")
    if not form.validate_on_submit():
        return _render_fax(fax, "details", 422, assign_form=form, open_dialog="assign-dialog")
    fax.assigned_to = form.assignee.data or None
    who = staff_names().get(fax.assigned_to, "the shared inbox")
    _log(fax, f"Assigned to {who}", form.note.data or "")
    db().commit()
    flash(f"Fax {fax.id} assigned to {who}.", "success")
    return redirect(url_for("inbox.show", fax_id=fax.id, tab="details"))
