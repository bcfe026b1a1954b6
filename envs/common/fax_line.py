"""The telephone line between the apps: a fax the fax server transmits reaches the app that
answers the dialed number (today portal A's payers' intake lines), over HTTP.

Apps never import each other (DESIGN.md): the fax server knows its peers only by URL
(`AppConfig.peers`, from `--peer NAME=URL`) and offers each delivered fax to them in name
order, at the moment the carrier reports it Sent, in the same request: an episode's
actions give the same calls in the same order, so it replays identically. A peer with a
`fax_receiver` (AppSpec) reads the pages and says whether the number is one of its own;
the machine that answered may fax a reply straight back on the same call (a payer returning
an incomplete request form), which the sender files in its inbox.

The line is `POST /_bench/fax-line`, behind the bench token: only the apps (which hold the
run's token) can put a fax on it; the agent's browser cannot reach /_bench, so it cannot
forge a fax to a payer.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import http.client
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from pypdf import PdfReader
from sqlalchemy.orm import Session

from admindesk.envs.common.documents.uploads import PdfUpload

FAX_LINE_PATH = "/_bench/fax-line"
BENCH_TOKEN_HEADER = "X-Bench-Token"
# A peer decides in milliseconds; one that has not answered in this long is down or hung.
DELIVERY_TIMEOUT = 10.0


class FaxLineError(RuntimeError):
    """A peer could not be reached, or answered the delivery with an error."""


@dataclass(frozen=True)
class FaxDelivery:
    """What arrives on the receiving machine: the dialed number, the caller's number and
    CSID, when the transmission ended, and the pages as the PDFs they were sent as (the
    cover sheet first, then each attachment)."""

    to_number: str
    caller_number: str
    csid: str
    received_at: datetime
    documents: tuple[bytes, ...]

    @property
    def pages(self) -> int:
        """How many documents (cover sheet included) the fax carried."""
        return len(self.documents)

    def to_json(self) -> dict:
        return {"to_number": self.to_number, "caller_number": self.caller_number, "csid": self.csid,
                "received_at": self.received_at.isoformat(),
                "documents": [base64.b64encode(item).decode("ascii") for item in self.documents]}

    @classmethod
    def from_json(cls, body: object) -> FaxDelivery:
        """Parse a delivery; a malformed one raises TypeError or ValueError naming what is wrong."""
        if not isinstance(body, dict):
            raise TypeError("the body must be a JSON object")
        for key in ("to_number", "caller_number", "csid", "received_at"):
            if not isinstance(body.get(key), str):
                raise TypeError(f"'{key}' must be a string")
        documents = body.get("documents")
        if not isinstance(documents, list) or not all(isinstance(item, str) for item in documents):
            raise TypeError("'documents' must be a list of base64 strings")
        try:
            decoded = tuple(base64.b64decode(item, validate=True) for item in documents)
            received_at = datetime.fromisoformat(body["received_at"])
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"bad delivery: {exc}") from exc
        return cls(body["to_number"], body["caller_number"], body["csid"], received_at, decoded)


@dataclass(frozen=True)
class FaxReply:
    """A fax the receiving machine sends back to the caller: what a fax server learns of it
    (the station id its machine transmits, its number, when it arrives) and the text of each
    page (who sent it and why is on the pages)."""

    csid: str
    from_number: str
    received_at: datetime
    pages_text: tuple[str, ...]

    def to_json(self) -> dict:
        return {"csid": self.csid, "from_number": self.from_number,
                "received_at": self.received_at.isoformat(), "pages_text": list(self.pages_text)}

    @classmethod
    def from_json(cls, body: dict) -> FaxReply:
        return cls(body["csid"], body["from_number"], datetime.fromisoformat(body["received_at"]),
                   tuple(body["pages_text"]))


@dataclass(frozen=True)
class LineAnswer:
    """How a delivery ended: the peer that answered the number (None: a machine outside the
    apps) and the reply it faxed back, if any."""

    peer: str | None = None
    reply: FaxReply | None = None


def received_document(content: bytes, file_name: str) -> PdfUpload:
    """A received document as the kit's stored-file values take it (same bytes, same hash).

    The sender checked every document as a PDF before it went out."""
    return PdfUpload(filename=file_name, content=content, sha256=hashlib.sha256(content).hexdigest(),
                     pages=len(PdfReader(io.BytesIO(content)).pages))


# (session, delivery) -> False when the dialed number is not this app's, True when it took the
# fax, or the FaxReply it faxes back to the caller (it took the fax too); the kit commits after it.
FaxReceiver = Callable[[Session, FaxDelivery], bool | FaxReply]


def _post(base_url: str, token: str, body: dict) -> dict:
    """POST `body` to the peer's fax line; its JSON reply, or FaxLineError."""
    target = urlsplit(base_url)
    conn = http.client.HTTPConnection(target.hostname, target.port, timeout=DELIVERY_TIMEOUT)
    try:
        conn.request("POST", FAX_LINE_PATH, body=json.dumps(body).encode(),
                     headers={BENCH_TOKEN_HEADER: token, "Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read()
    except OSError as exc:
        raise FaxLineError(f"{base_url} did not take the fax: {exc!r}") from exc
    finally:
        conn.close()
    if response.status != 200:
        raise FaxLineError(f"{base_url} refused the fax: HTTP {response.status} {data[:200]!r}")
    return json.loads(data)


def deliver(peers: Mapping[str, str], token: str, delivery: FaxDelivery) -> LineAnswer:
    """Offer the fax to each peer in name order, until one answers the number."""
    body = delivery.to_json()
    for name in sorted(peers):
        answer = _post(peers[name], token, body)
        if answer.get("accepted"):
            reply = answer.get("reply")
            return LineAnswer(name, FaxReply.from_json(reply) if reply else None)
    return LineAnswer()
