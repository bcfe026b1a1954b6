"""Finds, in the seeded world, a prior-auth work item that portal A should approve.

Chosen from the EHR and portal A snapshots and portal A's medical policy, so the end-to-end
test keeps working when seeds or ids change: an open Prior Auth item whose order needs
auth at a portal-A payer, whose member is active there, whose providers are in the
payer's directory, whose chart holds every document type the policy requires, and which
has no active request on file (that would be judged a duplicate).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from importlib import resources

import yaml

# How an EHR document type is filed in portal A's "Document type" list.
PORTAL_A_DOCUMENT_TYPE = {
    "Progress Note": "Clinical notes", "Imaging Report": "Imaging report",
    "PT Note": "Physical therapy notes", "Sleep Study": "Sleep study report",
    "Lab Result": "Lab results", "Medication History": "Medication history",
    "Face-to-Face Evaluation": "Face-to-face evaluation", "Written Order": "Standard written order",
}

# Questionnaire answers that meet portal A's criteria, per questionnaire the test can answer.
# Values are what the form shows: typed numbers, option labels of the selects.
APPROVING_ANSWERS = {
    "lumbar_mri": {"conservative_therapy_weeks": "8", "red_flag_symptoms": "None",
                   "prior_imaging": "X-ray"},
    "knee_mri": {"conservative_therapy_weeks": "6", "mechanical_symptoms": "Yes",
                 "prior_imaging": "Yes"},
    "brain_mri": {"symptom_duration_months": "4", "focal_neurologic_deficit": "No",
                  "known_condition": "No"},
}
ACTIVE_REQUEST_STATUSES = ("Approved", "Pended")


@dataclass(frozen=True)
class PriorAuthCase:
    """The work item the test works, and what the test expects to find along the way."""

    work_item_id: int
    order_id: str
    mrn: str
    member_id: str
    code: str
    questionnaire: str
    payer_name: str
    documents: tuple[dict, ...]  # EHR document rows to download and attach, one per required type

    @property
    def answers(self) -> dict[str, str]:
        """The approving answers for this order's questionnaire."""
        return APPROVING_ANSWERS[self.questionnaire]


def load_portal_a_policy() -> dict:
    """Portal A's medical policy YAML as plain data."""
    text = (resources.files("admindesk.envs.payer_portal_a") / "policy" / "medical_policy.yaml").read_text()
    return yaml.safe_load(text)


def _covers(service: dict, diagnosis: str) -> bool:
    return any(diagnosis.startswith(prefix) for prefix in service["covered_diagnoses"])


def _requires_auth(service: dict, product: str, place_of_service: str) -> bool:
    for exception in service.get("exceptions", []):
        if product in exception.get("products", [product]) and \
                place_of_service in exception.get("places_of_service", [place_of_service]):
            return False
    return service["auth_required"]


def _active_on(member: dict, day: str) -> bool:
    return member["effective"] <= day and (member["termination"] is None or day <= member["termination"])


def find_approvable_case(ehr: dict, portal_a: dict, policy: dict) -> PriorAuthCase:
    """The first open Prior Auth item (by id) portal A should approve; raises LookupError."""
    orders = {o["id"]: o for o in ehr["orders"]}
    coverages = {c["id"]: c for c in ehr["coverages"]}
    facilities = {f["id"]: f for f in ehr["facilities"]}
    auths = {a["order_id"]: a for a in ehr["order_authorizations"]}
    members = {m["coverage_id"]: m for m in portal_a["members"]}
    products = {p["id"]: p["product"] for p in portal_a["plans"]}
    payer_names = {p["id"]: p["name"] for p in portal_a["payers"]}
    directory = {p["npi"] for p in portal_a["providers"]}
    active_ids = {r["id"] for r in portal_a["pa_requests"] if r["status"] in ACTIVE_REQUEST_STATUSES}
    requested = {(r["member_id"], line["code"]) for r in portal_a["pa_requests"]
                 for line in portal_a["pa_service_lines"]
                 if line["request_id"] == r["id"] and r["id"] in active_ids}
    for item in sorted(ehr["work_items"], key=lambda w: w["id"]):
        if item["queue"] != "Prior Auth" or item["status"] != "New" or not item["order_id"]:
            continue
        order = orders[item["order_id"]]
        service = policy["services"].get(order["code"])
        coverage = coverages.get(order["coverage_id"])
        member = members.get(order["coverage_id"])
        if not (order["needs_auth"] and service and service["questionnaire"] in APPROVING_ANSWERS
                and coverage and member and coverage["payer_id"] in payer_names
                and _active_on(member, order["planned_date"])
                and _requires_auth(service, products[member["plan_id"]], order["place_of_service"])
                and any(_covers(service, dx) for dx in order["diagnosis_codes"].split(","))
                and {order["ordering_npi"], facilities[order["facility_id"]]["npi"]} <= directory
                and (member["member_id"], order["code"]) not in requested
                and not auths[order["id"]]["auth_number"]):
            continue
        documents = _supporting_documents(ehr["documents"], order["id"], service["required_documents"])
        if documents is not None:
            return PriorAuthCase(
                work_item_id=item["id"], order_id=order["id"], mrn=order["mrn"],
                member_id=member["member_id"], code=order["code"],
                questionnaire=service["questionnaire"],
                payer_name=payer_names[coverage["payer_id"]], documents=documents)
    raise LookupError("no open Prior Auth item in the seeded world that portal A would approve")


def _supporting_documents(documents: list[dict], order_id: str,
                          required: list[str]) -> tuple[dict, ...] | None:
    """One document of the order per required type, each with a title unique on the order
    page (the download link is named by title); None when a type is missing."""
    linked = [d for d in documents if d["order_id"] == order_id]
    titles = [d["title"] for d in linked]
    chosen = []
    for document_type in required:
        match = next((d for d in linked if PORTAL_A_DOCUMENT_TYPE.get(d["kind"]) == document_type
                      and titles.count(d["title"]) == 1), None)
        if match is None:
            return None
        chosen.append(match)
    return tuple(chosen)


def us_date(iso: str | date) -> str:
    """MM/DD/YYYY, the way every app's forms take dates."""
    day = date.fromisoformat(iso) if isinstance(iso, str) else iso
    return day.strftime("%m/%d/%Y")
