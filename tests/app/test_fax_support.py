"""Shared helpers of the fax server tests (no tests here): PDFs to upload, drafts and
sends through the test client, and snapshot lookups."""
from __future__ import annotations

import hashlib
import io
import itertools

from admindesk.envs.common.documents.pdf import render_pdf

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_PRESSES = itertools.count(1)


def pdf_bytes(title: str = "Letter of medical necessity", paragraphs: int = 1) -> bytes:
    """A real PDF; more paragraphs make more pages."""
    return render_pdf(title, [("Patient", "Test Patient"), ("Claim", "CLM-1")],
                      "\n".join(f"Paragraph {i}: " + "medical necessity " * 60 for i in range(paragraphs)))


def sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def upload(content: bytes, name: str = "letter.pdf") -> tuple[io.BytesIO, str]:
    return io.BytesIO(content), name


def new_draft(client) -> int:
    """Start a fax through the toolbar's New fax button; returns the draft id."""
    # The kit takes an identical post within seconds for a double click and applies it once;
    # tests that start several faxes on purpose mark each press as its own.
    response = client.post("/drafts/new", {"press": str(next(_PRESSES))})
    assert response.status_code == 302
    return int(response.headers["Location"].rsplit("/", 1)[1])


def compose_fields(**overrides) -> dict:
    """A complete compose form (the default line, a valid number, cover fields)."""
    fields = {"from_number": "", "to_number": "", "recipient_name": "Payer Appeals Unit",
              "cover_to": "Appeals Unit", "cover_from": "Jordan Ellis", "cover_re": "Appeal for claim CLM-1",
              "comments": "Please see the attached letter.", "directory_q": ""}
    fields.update(overrides)
    return fields


def default_line(snapshot: dict) -> str:
    return next(line["number"] for line in snapshot["fax_lines"] if line["is_default"])


def appeals_contact(snapshot: dict) -> dict:
    """The first payer appeals line in the directory (an active, reachable number)."""
    return next(c for c in snapshot["directory_contacts"] if c["contact_type"] == "Payer - Appeals")


def post_draft(client, draft_id: int, action: str, **overrides):
    """Press one compose button with a complete form (plus overrides), with files if given.

    Without an explicit `to_number`, the fax goes to a payer's appeals line."""
    fields = compose_fields(**overrides)
    if not fields["from_number"] or "to_number" not in overrides:
        snapshot = client.snapshot()
        fields["from_number"] = fields["from_number"] or default_line(snapshot)
        if "to_number" not in overrides:
            fields["to_number"] = appeals_contact(snapshot)["fax_number"]
    fields["action"] = action
    return client.post(f"/drafts/{draft_id}", fields, content_type="multipart/form-data")


def send_fax(client, content: bytes | None = None, **overrides) -> int:
    """Compose, attach and send one fax; returns the outbound job id."""
    draft_id = new_draft(client)
    files = {"attachment": upload(content if content is not None else pdf_bytes())}
    response = post_draft(client, draft_id, "send", **files, **overrides)
    assert response.status_code == 302, response.get_data(as_text=True)
    jobs = client.snapshot()["outbound_faxes"]
    return jobs[-1]["id"]


def audit_rows(snapshot: dict, **match) -> list[dict]:
    return [row for row in snapshot["audit_events"] if all(row.get(k) == v for k, v in match.items())]


def text(response) -> str:
    return response.get_data(as_text=True)
