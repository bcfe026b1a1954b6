"""Compose: drafts kept server-side, PDF attachments, directory pick, send to the outbox."""
from __future__ import annotations

from flask import Blueprint, Response, abort, flash, g, redirect, render_template, request, url_for
from sqlalchemy import func, or_, select
from sqlalchemy.orm import selectinload

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.documents.uploads import UploadError, read_pdf_upload
from admindesk.envs.common.pagination import paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.fax import drafts
from admindesk.envs.fax.cover_templates import TEMPLATES
from admindesk.envs.fax.forms import ComposeForm
from admindesk.envs.fax.models import (
    ACTIVE,
    DISCARDED,
    OPEN,
    ComposeDraft,
    DirectoryContact,
    DraftAttachment,
    InboundFax,
    OutboundFax,
)
from admindesk.envs.fax.numbers import digits_only, format_fax_number
from admindesk.envs.fax.views import line_choices, send_pending

bp = Blueprint("compose", __name__)

SEARCH_LIMIT = 25


def _own_draft(draft_id: int) -> ComposeDraft:
    draft = get_or_404(ComposeDraft, draft_id)
    if draft.owner != current_username():
        abort(404)  # other users' drafts are private: do not even confirm they exist
    return draft


def _form(draft: ComposeDraft | None = None) -> ComposeForm:
    """The compose form: from the draft on a GET, from the posted fields otherwise."""
    if draft is None:
        form = ComposeForm()
    else:
        form = ComposeForm(obj=draft)
        form.to_number.data = format_fax_number(draft.to_number)
    form.from_number.choices = line_choices()
    return form


def _search_directory(term: str) -> list[DirectoryContact]:
    stmt = select(DirectoryContact).order_by(DirectoryContact.name, DirectoryContact.id).limit(SEARCH_LIMIT)
    if term:
        like = f"%{term}%"
        conditions = [DirectoryContact.name.ilike(like), DirectoryContact.organization.ilike(like),
                      DirectoryContact.contact_type.ilike(like)]
        if len(digits_only(term)) >= 3:
            conditions.append(DirectoryContact.fax_number.contains(digits_only(term)))
        stmt = stmt.where(or_(*conditions))
    return list(db().scalars(stmt))


RECENT_LIMIT = 8


def _recent_recipients() -> list[DirectoryContact]:
    """The directory contacts most recently faxed from this server (the compose side panel)."""
    stmt = (select(DirectoryContact).join(OutboundFax, OutboundFax.contact_id == DirectoryContact.id)
            .group_by(DirectoryContact.id).order_by(func.max(OutboundFax.queued_at).desc(), DirectoryContact.id)
            .limit(RECENT_LIMIT))
    return list(db().scalars(stmt))


def _render(draft: ComposeDraft, form: ComposeForm, status: int = 200, results=None):
    job = db().get(OutboundFax, draft.outbound_fax_id) if draft.outbound_fax_id else None
    return render_template("compose/draft.html", draft=draft, form=form, results=results, job=job,
                           recent=_recent_recipients() if draft.status == OPEN else [],
                           templates=TEMPLATES), status


@bp.get("/cover-sheets")
def cover_sheets():
    """The cover-sheet templates a sender can pick, with what each prints and is for."""
    describe(record_type="cover_sheets", tab="templates")
    return render_template("compose/cover_sheets.html", templates=TEMPLATES)


@bp.get("/drafts")
def index():
    """The Drafts folder: the user's unsent faxes."""
    # The list shows attachment and page counts: load every row's attachments in one query,
    # without their PDF bytes.
    stmt = (select(ComposeDraft).where(ComposeDraft.owner == current_username(), ComposeDraft.status == OPEN)
            .options(selectinload(ComposeDraft.attachments).defer(DraftAttachment.content))
            .order_by(ComposeDraft.updated_at.desc(), ComposeDraft.id.desc()))
    page = paginate(db(), stmt, 20)
    describe(record_type="drafts", tab="drafts")
    return render_template("compose/index.html", page=page)


@bp.post("/drafts/new")
def create():
    """Start a new fax, optionally addressed to a directory contact."""
    contact = None
    contact_id = request.form.get("contact_id", "")
    if contact_id:
        if not contact_id.isdigit():
            abort(404)
        contact = get_or_404(DirectoryContact, int(contact_id))
    draft = drafts.new_draft(db(), current_username(), g.user.display_name, contact)
    db().commit()
    describe(action="create_draft", record_type="draft", record_id=str(draft.id),
             contact_id=contact.id if contact else None)
    flash(f"New fax started as draft {draft.id}" + (f", addressed to {contact.name}" if contact else "")
          + ". Fill in the cover sheet, attach documents, then press Send fax.", "success")
    return redirect(url_for("compose.edit", draft_id=draft.id))


@bp.post("/inbox/<fax_id>/forward")
def forward(fax_id: str):
    """Start a new fax with a received fax attached as a PDF."""
    fax = get_or_404(InboundFax, fax_id)
    draft = drafts.new_draft(db(), current_username(), g.user.display_name)
    draft.cover_re = f"Fwd: fax {fax.id} from {format_fax_number(fax.from_number)}"[:200]
    drafts.attach_bytes(draft, fax.file_name, fax.content, fax.pages)
    db().commit()
    describe(action="forward_fax", record_type="inbound_fax", record_id=fax.id, draft_id=draft.id)
    flash(f"Fax {fax.id} attached to a new fax. Address it and send.", "success")
    return redirect(url_for("compose.edit", draft_id=draft.id))


@bp.get("/drafts/<int:draft_id>")
def edit(draft_id: int):
    """The compose screen (or, once sent, where the job went)."""
    draft = _own_draft(draft_id)
    describe(record_type="draft", record_id=str(draft.id), tab="compose")
    return _render(draft, _form(draft))


def _apply(draft: ComposeDraft, form: ComposeForm) -> None:
    if form.to_number.digits != draft.to_number:
        draft.contact_id = None  # a hand-typed number is no longer the picked contact's
    draft.from_number, draft.to_number = form.from_number.data, form.to_number.digits
    draft.recipient_name = form.recipient_name.data.strip()
    draft.cover_to, draft.cover_from = form.cover_to.data.strip(), form.cover_from.data.strip()
    draft.cover_re, draft.urgent = form.cover_re.data.strip(), form.urgent.data
    draft.cover_template = form.cover_template.data
    draft.comments, draft.updated_at = form.comments.data.strip(), clock.now()


@bp.post("/drafts/<int:draft_id>")
def update(draft_id: int):
    """Every compose button posts here; `action` says which one was pressed."""
    draft = _own_draft(draft_id)
    action = request.form.get("action", "save")
    verb, _, argument = action.partition(":")
    describe(record_type="draft", record_id=str(draft.id), tab="compose", action=f"draft_{verb}")
    if draft.status != OPEN:
        flash("This fax was already sent or discarded; it can no longer be changed.", "error")
        return redirect(url_for("compose.edit", draft_id=draft.id))
    if verb == "discard":
        draft.status, draft.updated_at = DISCARDED, clock.now()
        db().commit()
        flash(f"Draft {draft.id} discarded.", "success")
        return redirect(url_for("compose.index"))
    form = _form()
    if not form.validate_on_submit():
        return _render(draft, form, 422)
    handler = _ACTIONS.get(verb)
    if handler is None:
        abort(400)
    # A chosen file rides along with any button (Save, Send...), so it is never silently dropped.
    chosen = request.files.get(form.attachment.name)
    upload = None
    if verb == "upload" or (chosen is not None and chosen.filename):
        try:
            upload = read_pdf_upload(chosen)
        except UploadError as exc:
            form.attachment.errors = [str(exc)]
            return _render(draft, form, 422)
        if len(draft.attachments) >= drafts.MAX_ATTACHMENTS:
            form.attachment.errors = [f"A fax can carry at most {drafts.MAX_ATTACHMENTS} attachments."]
            return _render(draft, form, 422)
    _apply(draft, form)
    if upload is not None:
        drafts.attach(draft, upload)
        describe(file_name=upload.filename, sha256=upload.sha256)
    return handler(draft, form, argument, upload)


def _to_compose(draft: ComposeDraft, anchor: str | None = None):
    return redirect(url_for("compose.edit", draft_id=draft.id, _anchor=anchor))


def _save(draft, form, _argument, upload):
    db().commit()
    flash(_attached(upload) + "Draft saved.", "success")
    return _to_compose(draft)


def _attached(upload) -> str:
    if upload is None:
        return ""
    return f"Attached {upload.filename} ({upload.pages} page{'s' if upload.pages != 1 else ''}). "


def _upload(draft, form, _argument, upload):
    db().commit()
    flash(_attached(upload).strip(), "success")
    return _to_compose(draft, "attachments")


def _remove(draft, form, argument, _upload):
    item = next((a for a in draft.attachments if argument.isdigit() and a.id == int(argument)), None)
    if item is None:
        abort(404)
    draft.attachments.remove(item)
    db().commit()
    flash(f"Removed {item.file_name}.", "success")
    return _to_compose(draft, "attachments")


def _search(draft, form, _argument, upload):
    db().commit()
    term = form.directory_q.data.strip()
    describe(q=term)
    if upload is not None:
        flash(_attached(upload).strip(), "success")
    return _render(draft, form, results=_search_directory(term))


def _pick(draft, form, argument, upload):
    contact = db().get(DirectoryContact, int(argument)) if argument.isdigit() else None
    if contact is None:
        abort(404)
    drafts.address_to(draft, contact)
    db().commit()
    describe(contact_id=contact.id)
    note = "" if contact.line_status == ACTIVE else f" Note: this line is marked {contact.line_status}."
    flash(f"{_attached(upload)}Recipient set to {contact.name}.{note}", "warning" if note else "success")
    return _to_compose(draft)


def _send(draft, form, _argument, _upload):
    problems = drafts.send_problems(draft)
    if problems:
        db().rollback()  # nothing is saved when the send is refused, not even a new attachment
        draft = _own_draft(draft.id)
        for name, message in problems.items():
            form[name].errors = list(form[name].errors) + [message]
        return _render(draft, form, 422)
    fax = drafts.send(db(), draft, current_username())
    db().commit()
    send_pending(fax)  # the carrier dials at once: nobody has to open the outbox for it to go out
    describe(outbound_fax_id=fax.id, to_number=fax.to_number)
    flash(f"Fax job {fax.id} queued for transmission to {fax.recipient_name}: {fax.status}.", "success")
    return _to_compose(draft)


_ACTIONS = {"save": _save, "upload": _upload, "remove": _remove, "search": _search, "pick": _pick,
            "send": _send}


@bp.get("/drafts/<int:draft_id>/attachments/<int:attachment_id>")
def attachment(draft_id: int, attachment_id: int):
    """Open an uploaded attachment to check it before sending."""
    draft = _own_draft(draft_id)
    item = db().get(DraftAttachment, attachment_id)
    if item is None or item.draft_id != draft.id:
        abort(404)
    describe(record_type="draft", record_id=str(draft.id), tab="attachments", action="open_attachment",
             file_name=item.file_name)
    response = Response(item.content, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="{item.file_name}"'
    return response
