"""Generated files: cover sheets and received faxes as PDFs.

PDFs are deterministic (pinned creation date: same inputs, same bytes). A received
fax's PDF is rendered once, when the fax arrives, and stored with it. Its page images
are drawn on request from the page texts (fax_pages.py), never stored.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from fpdf import FPDF

from admindesk.envs.common.documents.pdf import PINNED_CREATION_DATE, render_pdf
from admindesk.envs.fax.cover_templates import template
from admindesk.envs.fax.models import FaxLine, OutboundFax
from admindesk.envs.fax.numbers import format_fax_number

CONFIDENTIALITY = ("CONFIDENTIALITY NOTICE: This facsimile contains protected health information that is "
                   "privileged and confidential under HIPAA. It is intended only for the recipient named "
                   "above. If you received it in error, notify the sender by telephone and destroy all copies.")


def _latin1(text: str) -> str:
    """Text the PDF core fonts can draw (they are Latin-1): dashes and quotes made plain."""
    plain = text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2019", "'")
    return plain.encode("latin-1", "replace").decode("latin-1")


def transmit_header(received_at: datetime, station: str, from_number: str, page_no: int, page_total: int) -> str:
    """The line the sending machine prints atop each page: time, its station id (as the sender
    set it, possibly blank), its number and the page count."""
    station = f"FROM: {station[:34]}  " if station.strip() else ""
    return f"{received_at:%m/%d/%Y %H:%M}  {station}{format_fax_number(from_number)}   P.{page_no:03d}/{page_total:03d}"


def received_fax_pdf(fax_id: str, csid: str, from_number: str, received_at: datetime,
                     page_texts: Sequence[str]) -> bytes:
    """A received fax as the PDF the server stores: one PDF page per fax page, each under the
    sender's transmit header (deterministic: the same fax always gives the same bytes)."""
    pdf = FPDF(format="Letter")
    pdf.set_creation_date(PINNED_CREATION_DATE)
    pdf.set_title(_latin1(f"Fax {fax_id} from {format_fax_number(from_number)}"))
    pdf.set_author(_latin1(f"Fax {fax_id}"))
    pdf.set_margins(18, 14, 18)
    pdf.set_auto_page_break(auto=True, margin=16)
    for page_no, text in enumerate(page_texts, start=1):
        pdf.add_page()
        pdf.set_font("courier", "", 8)
        pdf.cell(0, 4, _latin1(transmit_header(received_at, csid, from_number, page_no, len(page_texts))),
                 new_x="LMARGIN", new_y="NEXT")
        pdf.ln(6)
        pdf.set_font("courier", "", 10)
        pdf.multi_cell(0, 5, _latin1(text), new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def received_fax_name(fax_id: str) -> str:
    """The stored (and downloaded) file name of a received fax."""
    return f"fax-{fax_id}.pdf"


def cover_sheet_pdf(job: OutboundFax, line: FaxLine, sent_on: str) -> bytes:
    """The cover sheet of a send job, from its cover fields and its cover-sheet template."""
    layout = template(job.cover_template)
    title = f"URGENT - {layout.title}" if job.urgent else layout.title
    fields = [("Date", sent_on), ("To", job.cover_to or job.recipient_name),
              ("Recipient", job.recipient_name), ("Fax", format_fax_number(job.to_number)),
              ("From", job.cover_from), ("From fax", format_fax_number(line.number)),
              ("Phone", format_fax_number(line.phone)), ("Re", job.cover_re),
              ("Pages (incl. cover)", str(job.total_pages)),
              ("Urgent", "Yes" if job.urgent else "No")]
    body = "".join(part + "\n\n" for part in (layout.notice, job.comments.strip()) if part) + CONFIDENTIALITY
    return render_pdf(title, fields, body, letterhead=f"{line.label}\n{line.address}",
                      footer=line.label)
