"""A received fax's pages as the fax server shows them: scan-like images under the
sending machine's transmit header, the sender's letterhead where a page opens with it."""
from __future__ import annotations

from admindesk.envs.common.documents.scan_pages import ScanSource, text_pages
from admindesk.envs.fax.documents import transmit_header
from admindesk.envs.fax.models import InboundFax


def letterhead(texts: list[str]) -> str:
    """The sender's name as its paper prints it: the first line of the first page (the server
    knows no sender; the letterhead and logo are part of the pages that came in)."""
    first = texts[0].strip().splitlines() if texts else []
    return first[0].strip() if first else ""


def fax_scan(fax: InboundFax) -> ScanSource:
    """What the page images of a received fax are drawn from: its stored page texts."""
    texts = [page.text for page in fax.page_texts]
    total = len(texts)
    headers = tuple(transmit_header(fax.received_at, fax.csid, fax.from_number, number, total)
                    for number in range(1, total + 1))
    sender = letterhead(texts)
    return ScanSource(fax.id, text_pages(texts, sender=sender), organization=sender,
                      fax_headers=headers, monospace=True)
