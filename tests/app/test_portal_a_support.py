"""Shared helpers of the payer portal A tests (no tests here): finding seeded records in
the snapshot and walking the prior-auth wizard through the test client."""
from __future__ import annotations

import io
import re
from datetime import date

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_a.organizations import tax_id

NOW = date(2026, 11, 16)  # the kit's default frozen clock


def us(day: date | str) -> str:
    """A date as the portal's MM/DD/YYYY text."""
    day = date.fromisoformat(day) if isinstance(day, str) else day
    return day.strftime("%m/%d/%Y")


def pdf_file(name: str = "note.pdf", body: str = "Clinical note") -> tuple[io.BytesIO, str]:
    return io.BytesIO(render_pdf("Clinical note", [("Patient", "Test")], body)), name


def active_member(snapshot: dict, product: str = "PPO") -> dict:
    """A primary member whose coverage has no end date, on a plan of `product`."""
    products = {p["id"]: p["product"] for p in snapshot["plans"]}
    busy = {r["member_id"] for r in snapshot["pa_requests"]}
    return next(m for m in snapshot["members"] if m["termination"] is None and products[m["plan_id"]] == product
                and m["member_id"] not in busy and m["effective"] < "2026-01-01")


def terminated_member(snapshot: dict) -> dict:
    return next(m for m in snapshot["members"] if m["termination"] and m["termination"] < NOW.isoformat())


def providers(snapshot: dict) -> tuple[str, str]:
    """(an individual NPI, a facility NPI) from the directory."""
    individual = next(p["npi"] for p in snapshot["providers"] if p["entity_type"] == "Individual")
    facility = next(p["npi"] for p in snapshot["providers"] if p["entity_type"] == "Organization")
    return individual, facility


def case_with_status(snapshot: dict, status: str) -> dict:
    return next(r for r in snapshot["pa_requests"] if r["status"] == status and r["created_by"] == "payer")


def approved_lumbar_case(snapshot: dict) -> tuple[dict, dict]:
    """A seeded approved 72148 request still running, with its member's coverage active."""
    active = {m["coverage_id"] for m in snapshot["members"] if m["termination"] is None}
    for request in snapshot["pa_requests"]:
        line = next(iter(lines_of(snapshot, request["id"])), None)
        if (request["status"] == "Approved" and line and line["code"] == "72148" and line["to_date"] > NOW.isoformat()
                and request["coverage_id"] in active and line["from_date"] >= "2026-06-01"):
            return request, line
    raise LookupError("no approved lumbar MRI case on file")


def lines_of(snapshot: dict, request_id: int) -> list[dict]:
    return [line for line in snapshot["pa_service_lines"] if line["request_id"] == request_id]


def claim_with_deadline(snapshot: dict, *, passed: bool) -> dict:
    deadlines = {r["claim_number"]: r["appeal_deadline"] for r in snapshot["remittances"]}
    return next(c for c in snapshot["claims"] if c["claim_number"] in deadlines
                and (deadlines[c["claim_number"]] < NOW.isoformat()) == passed)


def request_by_id(snapshot: dict, request_id: int) -> dict:
    return next(r for r in snapshot["pa_requests"] if r["id"] == request_id)


def draft_id(response) -> int:
    """The draft id from a wizard redirect."""
    return int(re.search(r"/requests/(\d+)/", response.location).group(1))


LUMBAR_MET = {"conservative_therapy_weeks": "8", "red_flag_symptoms": "None", "prior_imaging": "X-ray",
              "prior_imaging_date": "09/01/2026"}
LUMBAR_NOT_MET = {"conservative_therapy_weeks": "2", "red_flag_symptoms": "None", "prior_imaging": "None",
                  "prior_imaging_date": ""}


def organization(snapshot: dict) -> dict:
    """The first registered organization (a facility of the account's health system) by name."""
    return min((p for p in snapshot["providers"] if p["entity_type"] == "Organization" and p["specialty"] == "Facility"),
               key=lambda p: p["name"])


def header(snapshot: dict, member: dict, **change) -> dict:
    """A valid step-1 header for `member` (organization, its TIN, an outpatient imaging request)."""
    org = organization(snapshot)
    return {"organization_npi": org["npi"], "tin": tax_id(org["npi"]), "payer_id": member["payer_id"],
            "request_type": "Outpatient", "service_type": "Diagnostic imaging", "place_of_service": "22",
            "member_id": member["member_id"], "dob": us(member["dob"]), **change}


def start_draft(client, member: dict, typed_member_id: str | None = None, snapshot: dict | None = None) -> int:
    """Start a draft; `typed_member_id` is the member ID as typed (a second draft for the same
    member types it differently, or the kit would take it for a double click of the first)."""
    snapshot = snapshot or client.snapshot()
    response = client.post("/authorizations/new", header(snapshot, member,
                                                         member_id=typed_member_id or member["member_id"]))
    assert response.status_code == 302, response.get_data(as_text=True)
    return draft_id(response)


def build_draft(client, snapshot: dict, member: dict, *, code: str = "72148", dx: str = "M54.16",
                answers: dict | None = None, documents: tuple[str, ...] = ("Clinical notes",),
                start: str = "12/01/2026", end: str = "12/31/2026", pos: str = "22", units: str = "1",
                typed_member_id: str | None = None) -> int:
    """Walk steps 1-5 with valid data; returns the draft id ready for review."""
    request_id = start_draft(client, member, typed_member_id, snapshot)
    requesting, facility = providers(snapshot)
    base = f"/authorizations/requests/{request_id}"
    assert client.post(f"{base}/providers", {"requesting_npi": requesting, "servicing_npi": facility}).status_code == 302
    response = client.post(f"{base}/services/add", {"code": code, "units": units, "diagnosis_codes": dx,
                                                    "from_date": start, "to_date": end, "place_of_service": pos})
    assert response.status_code == 302, response.get_data(as_text=True)
    assert client.post(f"{base}/services").status_code == 302
    response = client.post(f"{base}/questionnaire", answers if answers is not None else LUMBAR_MET)
    assert response.status_code == 302, response.get_data(as_text=True)
    for document_type in documents:
        stream, name = pdf_file()
        response = client.post(f"{base}/attachments/add", {"document_type": document_type, "file": (stream, name)},
                               content_type="multipart/form-data")
        assert response.status_code == 302, response.get_data(as_text=True)
    return request_id


def submit(client, request_id: int):
    return client.post(f"/authorizations/requests/{request_id}/submit", {"attest": "y"})
