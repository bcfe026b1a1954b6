"""Directory: the shared phonebook of payer, supplier and provider fax lines."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import or_, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.fax.directory_groups import GROUPS, in_group, member_counts
from admindesk.envs.fax.forms import ContactForm
from admindesk.envs.fax.models import (
    ACTIVE,
    CONTACT_TYPES,
    DISCONNECTED,
    DirectoryContact,
    OutboundFax,
    SupplierNetwork,
)
from admindesk.envs.fax.numbers import digits_only

bp = Blueprint("directory", __name__)

PER_PAGE = 25
SORT_COLUMNS = {"name": DirectoryContact.name, "organization": DirectoryContact.organization,
                "type": DirectoryContact.contact_type, "fax": DirectoryContact.fax_number,
                "status": DirectoryContact.line_status}


@bp.get("/directory")
def index():
    """Search by name, organization or number; filter by type or group; sort; page."""
    q = request.args.get("q", "").strip()[:100]
    kind = request.args.get("type", "")
    kind = kind if kind in CONTACT_TYPES else ""
    group = request.args.get("group", "")
    group = group if group in GROUPS else ""
    stmt = in_group(select(DirectoryContact), group)
    if kind:
        stmt = stmt.where(DirectoryContact.contact_type == kind)
    if q:
        like = f"%{q}%"
        conditions = [DirectoryContact.name.ilike(like), DirectoryContact.organization.ilike(like),
                      DirectoryContact.notes.ilike(like)]
        if len(digits_only(q)) >= 3:
            conditions += [DirectoryContact.fax_number.contains(digits_only(q)),
                           DirectoryContact.phone_number.contains(digits_only(q))]
        stmt = stmt.where(or_(*conditions))
    stmt = apply_sort(stmt, SORT_COLUMNS, "name").order_by(DirectoryContact.id)
    page = paginate(db(), stmt, PER_PAGE)
    describe(record_type="directory", tab=kind or "all", group=group or None, q=q or None, page=page.number)
    return render_template("directory/index.html", page=page, q=q, kind=kind, types=CONTACT_TYPES,
                           group=group, groups=GROUPS, counts=member_counts(db()))


@bp.get("/directory/groups")
def groups():
    """The shared distribution lists and how many contacts each holds."""
    describe(record_type="directory", tab="groups")
    return render_template("directory/groups.html", groups=GROUPS, counts=member_counts(db()))


@bp.route("/directory/new", methods=["GET", "POST"])
def create():
    """Add a contact; the fax number must be 10 digits and not already listed."""
    form = ContactForm()
    describe(record_type="directory", tab="new_contact", action="add_contact" if request.method == "POST" else None)
    if form.validate_on_submit():
        existing = db().scalar(select(DirectoryContact).where(
            DirectoryContact.fax_number == form.fax_number.digits, DirectoryContact.line_status == ACTIVE))
        if existing is not None:
            form.fax_number.errors = [f"This number is already in the directory as \u201c{existing.name}\u201d."]
        else:
            contact = DirectoryContact(
                name=form.name.data.strip(), organization=form.organization.data.strip(),
                contact_type=form.contact_type.data, fax_number=form.fax_number.digits,
                phone_number=form.phone_number.digits or None, line_status=ACTIVE,
                notes=(form.notes.data or "").strip(), added_by=current_username(), added_at=clock.now())
            db().add(contact)
            db().commit()
            describe(record_id=str(contact.id))
            flash(f"Added {contact.name} to the directory.", "success")
            return redirect(url_for("directory.show", contact_id=contact.id))
    status = 422 if request.method == "POST" else 200
    return render_template("directory/new.html", form=form), status


@bp.get("/directory/<int:contact_id>")
def show(contact_id: int):
    """A contact card with the faxes sent to its number."""
    contact = get_or_404(DirectoryContact, contact_id)
    jobs = list(db().scalars(select(OutboundFax).where(OutboundFax.to_number == contact.fax_number)
                             .order_by(OutboundFax.id.desc()).limit(20)))
    networks = list(db().scalars(select(SupplierNetwork.payer_name).where(
        SupplierNetwork.supplier_ref == contact.external_ref).order_by(SupplierNetwork.payer_name))) \
        if contact.contact_type == "DME Supplier" and contact.external_ref else []
    describe(record_type="contact", record_id=str(contact.id), tab="details")
    return render_template("directory/contact.html", contact=contact, jobs=jobs, networks=networks)


@bp.post("/directory/<int:contact_id>/line-status")
def set_line_status(contact_id: int):
    """Mark a line disconnected (or back in service) after a carrier report."""
    contact = get_or_404(DirectoryContact, contact_id)
    target = request.form.get("line_status")
    describe(record_type="contact", record_id=str(contact.id), action="set_line_status", line_status=target)
    if target not in (ACTIVE, DISCONNECTED):
        abort(400)
    contact.line_status = target
    db().commit()
    flash(f"{contact.name} is now marked {target}.", "success")
    return redirect(url_for("directory.show", contact_id=contact.id))
