"""A received fax's pages as the fax server shows them: scan-like images under the
sending machine's transmit header, the sender's letterhead where a page opens with it."""
from __future__ import annotations

from admindesk.envs.common.documents.scan_pages import ScanSource, text_pages
from admindesk.envs.fax.documents import transmit_header
from admindesk.envs.fax.models import InboundFax

# Senders sign their organization's name with a department ("... Utilization Management");
# the organization is the name before it, the part a letterhead and logo carry.
_DEPARTMENTS = (" Utilization Management", " - Prior Authorization", " - Appeals", " - Intake")


def sender_organization(from_name: str) -> str:
    """The organization of a fax sender's name, without its department."""
    for department in _DEPARTMENTS:
        if from_name.endswith(department):
            return from_name[: -len(department)]
    return from_name


def fax_scan(fax: InboundFax) -> ScanSource:
    """What the page images of a received fax are drawn from: its stored page texts."""
    texts = [page.text for page in fax.page_texts]
    total = len(texts)
    headers = tuple(transmit_header(fax.received_at, fax.from_name, fax.from_number, number, total)
                    for number in range(1, total + 1))
    return ScanSource(fax.id, text_pages(texts, sender=fax.from_name), organization=sender_organization(fax.from_name),
                      fax_headers=headers, monospace=True)
