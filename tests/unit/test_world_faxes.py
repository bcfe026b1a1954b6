"""Received faxes render to the same PDF bytes (and sha256) in the world as in the fax app."""

from __future__ import annotations

import hashlib

from admindesk.envs.fax.documents import inbound_pdf
from admindesk.envs.fax.models import InboundFax as FaxRow
from admindesk.envs.fax.models import InboundFaxPage
from admindesk.envs.world import build_world
from admindesk.envs.world.faxes import inbound_fax_pdf, inbound_fax_sha256


def _as_fax_app_row(fax) -> FaxRow:
    """The row the fax app seeds for a world fax (not added to any session)."""
    return FaxRow(id=fax.id, from_number=fax.from_number, from_name=fax.from_name, to_number=fax.to_number,
                  received_at=fax.received_at, subject=fax.subject, page_count=fax.page_count,
                  pages=[InboundFaxPage(fax_id=fax.id, page_no=n, text=t)
                         for n, t in enumerate(fax.pages_text, start=1)])


def test_world_fax_pdf_is_byte_identical_to_the_fax_apps():
    world = build_world()
    multi_page = next(f for f in world.faxes if f.page_count > 1)
    for fax in (world.faxes[0], multi_page):
        pdf = inbound_fax_pdf(fax)
        assert pdf.startswith(b"%PDF") and pdf == inbound_pdf(_as_fax_app_row(fax))
        assert inbound_fax_sha256(fax) == hashlib.sha256(pdf).hexdigest()
        assert fax.file_name == f"fax-{fax.id}.pdf"


def test_fax_pdfs_are_deterministic_and_distinct():
    faxes = build_world().faxes
    hashes = [inbound_fax_sha256(f) for f in faxes]
    assert hashes == [inbound_fax_sha256(f) for f in faxes]
    assert len(set(hashes)) == len(faxes)
