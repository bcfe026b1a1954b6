"""DME suppliers answer the order packets faxed to them, by fixed rules.

When the carrier delivers a job (status Sent) to the fax number of an active
"DME Supplier" directory entry, the supplier (the entry's `external_ref`) replies:
1. It reads the cover sheet (Attention, Re, comments) and the text of every attached PDF.
2. The patient's plan is the first payer the directory knows (the organisation of a
   "Payer - ..." entry) whose name appears on the cover sheet, ignoring case.
3. A plan the supplier is not contracted with (no `supplier_networks` row) gets
   "Plan Not Accepted": the supplier cannot accept the patient's plan, and checks nothing else.
4. Otherwise it lists what is missing, in this order: `insurance` (no plan named on the
   cover sheet); `written_order` (no attachment of type Written Order: the EHR prints
   "Type: Written Order" on it, and a "standard/detailed written order" title counts
   too); `clinical_notes` (no attachment of a supporting type: Face-to-Face Evaluation,
   Progress Note, Sleep Study, Lab Result, PT Note, Imaging Report). Anything missing
   gets "Missing Items" with that list.
5. A complete packet gets "Order Confirmation" with a supplier order number
   SO-<supplier code>-<6 digits> from a counter (same actions, same numbers).
The reply arrives REPLY_DELAY after the transmission ended, on the line the job went out
on, as an unread inbound fax with its stored PDF; a `supplier_replies` row links the job,
the reply fax, the kind, the plan named and what was missing. One reply per job.

Which plans a supplier serves: the world has no contract list, so `seed_supplier_networks`
derives one: the supplier at position i (world order) is in network with the payer at
position j unless (i + j) is a multiple of NETWORK_GAP. With seven payers and seven
suppliers this leaves every payer at least one in-network supplier per equipment category.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass
from datetime import timedelta

from pypdf import PdfReader
from pypdf.errors import PdfReadError
from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common.state.sequences import next_value
from admindesk.envs.fax.fax_files import file_reply
from admindesk.envs.fax.models import (
    ACTIVE,
    ITEMS_MISSING,
    MISSING_ITEMS,
    ORDER_CONFIRMED,
    PLAN_NOT_ACCEPTED,
    DirectoryContact,
    OutboundFax,
    SupplierNetwork,
    SupplierReply,
)
from admindesk.envs.fax.numbers import format_fax_number

REPLY_DELAY = timedelta(minutes=18)
NETWORK_GAP = 4
ORDER_NUMBER_SEQUENCE, ORDER_NUMBER_START = "supplier_order_number", 480001
WRITTEN_ORDER_TYPES = ("written order",)
SUPPORTING_TYPES = ("face-to-face evaluation", "progress note", "sleep study", "lab result", "pt note",
                    "imaging report")
_TYPE_LINE = re.compile(r"^Type:\s*(.+)$", re.MULTILINE)
_WRITTEN_ORDER_TITLE = re.compile(r"\b(standard|detailed) written order\b", re.IGNORECASE)


def seed_supplier_networks(session: Session, world) -> None:
    """The in-network payers of every supplier, by the rule in the module docstring."""
    for i, supplier in enumerate(world.suppliers):
        session.add_all(SupplierNetwork(supplier_ref=supplier.id, payer_ref=payer.id, payer_name=payer.name)
                        for j, payer in enumerate(world.payers) if (i + j) % NETWORK_GAP)


@dataclass(frozen=True)
class Packet:
    """What the supplier found in a job: the plan named, and the kinds of documents attached."""

    payer_name: str | None
    document_types: frozenset[str]
    has_written_order_title: bool

    def missing(self) -> list[str]:
        """MISSING_ITEMS codes the packet lacks, in the rule's order."""
        missing = []
        if self.payer_name is None:
            missing.append("insurance")
        if not (self.has_written_order_title or self.document_types & set(WRITTEN_ORDER_TYPES)):
            missing.append("written_order")
        if not self.document_types & set(SUPPORTING_TYPES):
            missing.append("clinical_notes")
        return missing


def _pdf_text(content: bytes) -> str:
    try:
        return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(content)).pages)
    except (PdfReadError, ValueError, KeyError, TypeError):
        return ""  # an unreadable attachment tells the supplier nothing


def read_packet(session: Session, job: OutboundFax) -> Packet:
    """Read the job's cover sheet and attachments as the supplier's intake desk would."""
    cover = " ".join((job.cover_to, job.cover_re, job.comments)).lower()
    payers = session.scalars(select(DirectoryContact.organization).where(
        DirectoryContact.contact_type.startswith("Payer")).distinct().order_by(DirectoryContact.organization))
    payer_name = next((name for name in payers if name.lower() in cover), None)
    texts = [_pdf_text(item.content) for item in job.attachments]
    types = frozenset(match.strip().lower() for text in texts for match in _TYPE_LINE.findall(text))
    return Packet(payer_name, types, any(_WRITTEN_ORDER_TITLE.search(text) for text in texts))


def station_id(organization: str) -> str:
    """The CSID a supplier's fax machine sends: its name in capitals, cut to the 20 characters
    a CSID holds."""
    return organization.upper()[:20].rstrip()


def _letter(supplier: str, job: OutboundFax, kind: str, packet: Packet, order_number: str | None,
            missing: list[str], in_network: list[str]) -> str:
    """The page text of the supplier's reply."""
    head = (f"{supplier}\nDME Order Intake\n\nTo: {job.cover_from or 'Ordering office'}\n"
            f"Re: your fax job {job.id} of {job.completed_at:%m/%d/%Y %H:%M} ({job.total_pages} pages)"
            f"{' - ' + job.cover_re if job.cover_re else ''}\n\n")
    if kind == ORDER_CONFIRMED:
        return (head + f"ORDER CONFIRMATION\n\nWe have accepted this order for a {packet.payer_name} member. "
                f"Supplier order number: {order_number}. Our delivery team will call the patient to schedule "
                "delivery and set-up. Please reference the order number on any further correspondence.")
    if kind == PLAN_NOT_ACCEPTED:
        return (head + f"UNABLE TO ACCEPT ORDER\n\n{supplier} is not contracted with {packet.payer_name} and cannot "
                "accept this patient's plan. No order has been opened. Please send the order to a supplier in "
                f"the plan's network. Plans we accept: {', '.join(in_network)}.")
    items = "\n".join(f"- {MISSING_ITEMS[code]}" for code in missing)
    return (head + f"ADDITIONAL INFORMATION NEEDED\n\nWe cannot open an order yet. Please fax the following to "
            f"{format_fax_number(job.to_number)}, referencing job {job.id}:\n{items}")


def reply_to_order(session: Session, job: OutboundFax) -> SupplierReply | None:
    """The supplier's reply to a delivered job, or None when the number is no active supplier's."""
    supplier = session.scalars(select(DirectoryContact).where(
        DirectoryContact.fax_number == job.to_number, DirectoryContact.contact_type == "DME Supplier",
        DirectoryContact.line_status == ACTIVE, DirectoryContact.external_ref.is_not(None))
        .order_by(DirectoryContact.id)).first()
    if supplier is None or session.scalar(select(SupplierReply.id).where(SupplierReply.outbound_fax_id == job.id)):
        return None
    packet = read_packet(session, job)
    in_network = list(session.scalars(select(SupplierNetwork.payer_name).where(
        SupplierNetwork.supplier_ref == supplier.external_ref).order_by(SupplierNetwork.payer_name)))
    missing, order_number = packet.missing(), None
    if packet.payer_name is not None and packet.payer_name not in in_network:
        kind, missing = PLAN_NOT_ACCEPTED, []
    elif missing:
        kind = ITEMS_MISSING
    else:
        kind = ORDER_CONFIRMED
        code = supplier.external_ref.split("-")[-1]
        order_number = f"SO-{code}-{next_value(session, ORDER_NUMBER_SEQUENCE, ORDER_NUMBER_START):06d}"
    text = _letter(supplier.organization, job, kind, packet, order_number, missing, in_network)
    arrival = file_reply(session, job, station_id(supplier.organization), supplier.fax_number,
                         job.completed_at + REPLY_DELAY, (text,))
    reply = SupplierReply(outbound_fax_id=job.id, inbound_fax_id=arrival.id, supplier_ref=supplier.external_ref,
                          supplier_name=supplier.organization, kind=kind, payer_name=packet.payer_name,
                          missing_items=",".join(missing), supplier_order_number=order_number,
                          received_at=arrival.received_at)
    session.add(reply)
    return reply
