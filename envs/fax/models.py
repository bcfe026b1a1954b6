"""Tables of the fax server: lines, directory, inbound faxes, drafts, outbound jobs.

Statuses are readable strings ("Unread", "Queued", "Retrying", "Sent", "Failed") and fax numbers
are stored as 10 plain digits, so snapshot queries read naturally, e.g.
`outbound_faxes[?to_number=='8005550142'].status`.
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from admindesk.envs.common.documents.stored_files import StoredFileColumns

# Inbound fax read states, outbound job states, directory line states.
UNREAD, READ = "Unread", "Read"
QUEUED, RETRYING, SENT, FAILED = "Queued", "Retrying", "Sent", "Failed"
# Transmission log events besides the statuses: a dial, and a busy signal with a retry scheduled.
DIALING, LINE_BUSY = "Dialing", "Line busy"
# The document types a coordinator indexes a received fax as (what reading its pages shows).
DOCUMENT_TYPES = ("Payer determination", "Request for information", "Explanation of benefits",
                  "Appeal correspondence", "Claim acknowledgment", "Supplier order", "Clinical records",
                  "Records request", "Pharmacy", "Other")
ACTIVE, DISCONNECTED = "Active", "Disconnected"
OPEN, SUBMITTED, DISCARDED = "Open", "Submitted", "Discarded"
# What a DME supplier answers to an order packet, and the items it may find missing.
ORDER_CONFIRMED, ITEMS_MISSING, PLAN_NOT_ACCEPTED = "Order Confirmation", "Missing Items", "Plan Not Accepted"
REPLY_KINDS = (ORDER_CONFIRMED, ITEMS_MISSING, PLAN_NOT_ACCEPTED)
MISSING_ITEMS = {"insurance": "Insurance: the patient's health plan named on the cover sheet",
                 "written_order": "The signed written order for the item",
                 "clinical_notes": "Supporting clinical notes (face-to-face evaluation, progress note or test report)"}

CONTACT_TYPES = ("Payer - Prior Authorization", "Payer - Appeals", "DME Supplier",
                 "Provider Office", "Health System Site", "Other")


class Base(DeclarativeBase):
    """Declarative base of the fax server's own tables."""


class FaxLine(Base):
    """A fax line (DID) of the health system that this server sends from and receives on."""

    __tablename__ = "fax_lines"

    number: Mapped[str] = mapped_column(String(10), primary_key=True)
    label: Mapped[str] = mapped_column(String(160))
    facility_id: Mapped[str] = mapped_column(String(32))
    address: Mapped[str] = mapped_column(String(240))
    phone: Mapped[str] = mapped_column(String(10))
    # The line new faxes go out on unless the sender picks another.
    is_default: Mapped[bool] = mapped_column(Boolean, default=False)


class DirectoryContact(Base):
    """A shared phonebook entry: a payer department, supplier, provider office, site."""

    __tablename__ = "directory_contacts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(160))
    organization: Mapped[str] = mapped_column(String(160))
    contact_type: Mapped[str] = mapped_column(String(40))
    fax_number: Mapped[str] = mapped_column(String(10), index=True)
    phone_number: Mapped[str | None] = mapped_column(String(10))
    line_status: Mapped[str] = mapped_column(String(16), default=ACTIVE)
    notes: Mapped[str] = mapped_column(Text, default="")
    # The world record this entry describes (payer, supplier id or NPI), for checks.
    external_ref: Mapped[str | None] = mapped_column(String(32))
    added_by: Mapped[str | None] = mapped_column(String(64))
    added_at: Mapped[datetime | None] = mapped_column(DateTime)


class InboundFax(StoredFileColumns, Base):
    """A received fax waiting in the shared inbox, with the PDF it arrived as.

    The server knows only what the call gave it: the line (DID) it arrived on, the caller's
    number, the CSID the sending machine transmitted (set by the sender: terse, stale or
    blank), the pages and the time. Who sent it, about whom and why is read from the pages
    by a person, who files (indexes) it: the patient as the fax names them and optionally
    a case, claim or authorization reference and a document type (`index_*`).
    The kit's stored-file columns hold that PDF (`content`, `sha256`, `pages`...), so a
    check can compare a filed fax with the EHR document it became by `sha256`.
    """

    __tablename__ = "inbound_faxes"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    from_number: Mapped[str] = mapped_column(String(10))
    csid: Mapped[str] = mapped_column(String(20), default="")
    to_number: Mapped[str] = mapped_column(String(10))
    received_at: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(16), default=UNREAD)
    is_filed: Mapped[bool] = mapped_column(Boolean, default=False)
    filed_by: Mapped[str | None] = mapped_column(String(64))
    filed_at: Mapped[datetime | None] = mapped_column(DateTime)
    assigned_to: Mapped[str | None] = mapped_column(String(64))
    index_patient_name: Mapped[str | None] = mapped_column(String(120))
    index_mrn: Mapped[str | None] = mapped_column(String(20))
    index_dob: Mapped[date | None] = mapped_column(Date)
    index_reference: Mapped[str | None] = mapped_column(String(40))
    index_document_type: Mapped[str | None] = mapped_column(String(40))

    line: Mapped[FaxLine | None] = relationship(primaryjoin="foreign(InboundFax.to_number) == FaxLine.number",
                                                viewonly=True)
    page_texts: Mapped[list[InboundFaxPage]] = relationship(order_by="InboundFaxPage.page_no")
    events: Mapped[list[InboundFaxEvent]] = relationship(order_by="InboundFaxEvent.id")


class InboundFaxPage(Base):
    """The text content of one received page (rendered to an image on request)."""

    __tablename__ = "inbound_fax_pages"

    fax_id: Mapped[str] = mapped_column(ForeignKey("inbound_faxes.id"), primary_key=True)
    page_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(Text)


class InboundFaxEvent(Base):
    """What a user did with a received fax (read, filed, assigned), with their note."""

    __tablename__ = "inbound_fax_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    fax_id: Mapped[str] = mapped_column(ForeignKey("inbound_faxes.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    username: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    note: Mapped[str] = mapped_column(Text, default="")
    # On a "Filed" row: the hash of the PDF that was filed (the fax's `sha256`).
    sha256: Mapped[str | None] = mapped_column(String(64))


class ComposeDraft(Base):
    """A fax being composed; kept server-side until it is sent or discarded."""

    __tablename__ = "compose_drafts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    status: Mapped[str] = mapped_column(String(16), default=OPEN)
    from_number: Mapped[str] = mapped_column(String(10))
    to_number: Mapped[str] = mapped_column(String(10), default="")
    recipient_name: Mapped[str] = mapped_column(String(160), default="")
    contact_id: Mapped[int | None] = mapped_column(ForeignKey("directory_contacts.id"))
    cover_to: Mapped[str] = mapped_column(String(160), default="")
    cover_from: Mapped[str] = mapped_column(String(160), default="")
    cover_re: Mapped[str] = mapped_column(String(200), default="")
    urgent: Mapped[bool] = mapped_column(Boolean, default=False)
    comments: Mapped[str] = mapped_column(Text, default="")
    # A key of cover_templates.TEMPLATES: the cover sheet's title and notice.
    cover_template: Mapped[str] = mapped_column(String(24), default="standard")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)
    outbound_fax_id: Mapped[int | None] = mapped_column(Integer)

    attachments: Mapped[list[DraftAttachment]] = relationship(order_by="DraftAttachment.id",
                                                              cascade="all, delete-orphan")

    @property
    def total_pages(self) -> int:
        """Attachment pages plus the cover sheet."""
        return 1 + sum(a.pages for a in self.attachments)


class DraftAttachment(StoredFileColumns, Base):
    """A PDF the user uploaded into a draft."""

    __tablename__ = "draft_attachments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    draft_id: Mapped[int] = mapped_column(ForeignKey("compose_drafts.id"), index=True)
    uploaded_at: Mapped[datetime] = mapped_column(DateTime)


class OutboundFax(Base):
    """A send job: the cover sheet, its attachments and the transmission outcome."""

    __tablename__ = "outbound_faxes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sent_by: Mapped[str] = mapped_column(String(64))
    from_number: Mapped[str] = mapped_column(String(10))
    to_number: Mapped[str] = mapped_column(String(10), index=True)
    recipient_name: Mapped[str] = mapped_column(String(160))
    contact_id: Mapped[int | None] = mapped_column(ForeignKey("directory_contacts.id"))
    cover_to: Mapped[str] = mapped_column(String(160))
    cover_from: Mapped[str] = mapped_column(String(160))
    cover_re: Mapped[str] = mapped_column(String(200))
    urgent: Mapped[bool] = mapped_column(Boolean)
    comments: Mapped[str] = mapped_column(Text)
    total_pages: Mapped[int] = mapped_column(Integer)
    cover_template: Mapped[str] = mapped_column(String(24), default="standard")
    status: Mapped[str] = mapped_column(String(16), default=QUEUED)
    # Dial attempts made so far, and when the next one is due while the job is Retrying.
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(DateTime)
    failure_reason: Mapped[str | None] = mapped_column(Text)
    queued_at: Mapped[datetime] = mapped_column(DateTime)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime)
    resend_of: Mapped[int | None] = mapped_column(ForeignKey("outbound_faxes.id"))
    cover_sheet: Mapped[bytes] = mapped_column(LargeBinary)
    cover_sha256: Mapped[str] = mapped_column(String(64))

    attachments: Mapped[list[FaxAttachment]] = relationship(order_by="FaxAttachment.position")
    events: Mapped[list[TransmissionEvent]] = relationship(order_by="TransmissionEvent.id")


class FaxAttachment(StoredFileColumns, Base):
    """A document sent with an outbound fax; its hash can be compared with the EHR's."""

    __tablename__ = "fax_attachments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    outbound_fax_id: Mapped[int] = mapped_column(ForeignKey("outbound_faxes.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)


class TransmissionEvent(Base):
    """One step of a send job's transmission log (Queued, Dialing, Line busy, Sent / Failed)."""

    __tablename__ = "transmission_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    outbound_fax_id: Mapped[int] = mapped_column(ForeignKey("outbound_faxes.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    event: Mapped[str] = mapped_column(String(16))
    detail: Mapped[str] = mapped_column(Text, default="")


class SupplierNetwork(Base):
    """A health plan a DME supplier is contracted with (in network): the supplier accepts
    orders for that payer's members, and refuses other payers' (see supplier_replies)."""

    __tablename__ = "supplier_networks"

    supplier_ref: Mapped[str] = mapped_column(String(32), primary_key=True)
    payer_ref: Mapped[str] = mapped_column(String(32), primary_key=True)
    payer_name: Mapped[str] = mapped_column(String(160))


class SupplierReply(Base):
    """A DME supplier's answer to an order packet faxed to it: what it decided and why.

    `kind` is one of REPLY_KINDS; `missing_items` lists MISSING_ITEMS codes, comma-separated.
    """

    __tablename__ = "supplier_replies"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    outbound_fax_id: Mapped[int] = mapped_column(ForeignKey("outbound_faxes.id"), unique=True)
    inbound_fax_id: Mapped[str] = mapped_column(ForeignKey("inbound_faxes.id"), unique=True)
    supplier_ref: Mapped[str] = mapped_column(String(32))
    supplier_name: Mapped[str] = mapped_column(String(160))
    kind: Mapped[str] = mapped_column(String(24))
    payer_name: Mapped[str | None] = mapped_column(String(160))
    missing_items: Mapped[str] = mapped_column(String(120), default="")
    supplier_order_number: Mapped[str | None] = mapped_column(String(24))
    received_at: Mapped[datetime] = mapped_column(DateTime)
