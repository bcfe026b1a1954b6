"""API-channel gestures the reference solutions share: the EHR's FHIR API (find the patient,
read the order and its documents, record a decision, write a note, set a work item) and
Keystone Mutual's (eligibility, a PAS request). Each reads what it needs out of the answers,
as the screens' gestures read the pages (ehr_steps.py, portal_b.py)."""
from __future__ import annotations

from datetime import date, timedelta
from typing import Any
from urllib.parse import urlencode

from admindesk.harness.agents.reference.api_work import ApiWork
from admindesk.harness.agents.scripted import ScriptFailed

NPI = "http://hl7.org/fhir/sid/us-npi"
CPT, HCPCS = "http://www.ama-assn.org/go/cpt", "urn:oid:2.16.840.1.113883.6.285"
ICD10 = "http://hl7.org/fhir/sid/icd-10-cm"
PLACE_OF_SERVICE = "https://www.cms.gov/Medicare/Coding/place-of-service-codes/Place_of_Service_Code_Set"
KEYSTONE = "https://provider.keystonemutual.example/fhir"
QUESTION, DOCUMENT_TYPE = f"{KEYSTONE}/CodeSystem/precert-question", f"{KEYSTONE}/CodeSystem/document-type"
INFO_CATEGORY = "http://terminology.hl7.org/CodeSystem/claiminformationcategory"
REVIEW_ACTION_EXT = "http://hl7.org/fhir/us/davinci-pas/StructureDefinition/extension-reviewAction"
# The portal's clinical fields -> the PAS question codes and how each is valued.
QUESTIONS = {"conservative_therapy_weeks": ("conservative-therapy-weeks", "quantity"),
             "red_flag_symptoms": ("red-flag-symptoms", "boolean"), "prior_imaging": ("prior-imaging", "boolean"),
             "ahi": ("ahi", "quantity"), "spo2_rest": ("spo2-rest", "quantity")}


def entries(bundle: dict[str, Any]) -> list[dict[str, Any]]:
    """The resources of a searchset Bundle."""
    return [entry["resource"] for entry in bundle.get("entry", [])]


def search(work: ApiWork, server: str, resource: str, **params: str) -> list[dict[str, Any]]:
    return entries(work.get(server, f"/fhir/{resource}?{urlencode(params)}"))


def find_patient(work: ApiWork) -> str:
    """The MRN of the one EHR patient with the work item's name and birth date."""
    patient = work.patient
    found = search(work, "ehr", "Patient", family=patient["last_name"], given=patient["first_name"],
                   birthdate=str(patient["dob"]))
    if len(found) != 1:
        raise ScriptFailed(f"{len(found)} EHR patients match {work.patient_name}, born {patient['dob']}")
    return found[0]["id"]


def work_item(work: ApiWork, mrn: str, queue: str) -> dict[str, Any]:
    """The patient's open work item of `queue` (prior-auth, denials, dme); of several, the one on
    the case's order."""
    items = [task for task in search(work, "ehr", "Task", patient=mrn, code=queue) if task["status"] != "completed"]
    if len(items) > 1:
        orders = {f"ServiceRequest/{order}" for order in work.ids["orders"].values()}
        items = [task for task in items if task.get("focus", {}).get("reference") in orders]
    if len(items) != 1:
        raise ScriptFailed(f"{len(items)} open {queue} work items for {mrn}")
    return items[0]


def read_order(work: ApiWork, order_id: str) -> dict[str, Any]:
    """The order (a ServiceRequest); its facts go into work.notes as the screens' gesture does."""
    order = work.get("ehr", f"/fhir/ServiceRequest/{order_id}")
    coding = order["code"]["coding"][0]
    work.notes.update(order_id=order_id, code=coding["code"], code_system=coding["system"],
                      units=str(int(order["quantityQuantity"]["value"])),
                      diagnoses=",".join(c["coding"][0]["code"] for c in order.get("reasonCode", [])),
                      planned=order["occurrenceDateTime"][:10],
                      provider_npi=order["requester"]["reference"].split("/", 1)[1],
                      facility=order["performer"][0]["reference"].split("/", 1)[1],
                      place_of_service=order["locationCode"][0]["coding"][0]["code"])
    return order


def provider_facts(work: ApiWork) -> None:
    """The facility's NPI and the ordering provider's phone, for the request's providers."""
    facility = work.get("ehr", f"/fhir/Organization/{work.need('facility')}")
    work.notes["facility_npi"] = next(i["value"] for i in facility["identifier"] if i["system"] == NPI)
    provider = work.get("ehr", f"/fhir/Practitioner/{work.need('provider_npi')}")
    work.notes["provider"] = provider["name"][0].get("text") or provider["name"][0]["family"]
    work.notes["provider_phone"] = next(t["value"] for t in provider.get("telecom", []) if t["system"] == "phone")


def read_document(work: ApiWork, document_id: str) -> tuple[str, str]:
    """Open a chart document and fetch its PDF: (file name, base64 PDF)."""
    document = work.get("ehr", f"/fhir/DocumentReference/{document_id}")
    binary = work.get("ehr", f"/fhir/Binary/{document_id}")
    return document["content"][0]["attachment"]["title"], binary["data"]


def check_eligibility(work: ApiWork, member_id: str, on: date) -> str:
    """Keystone's eligibility answer for the member on the date: Active or Inactive."""
    answer = work.post("keystone", "/fhir/CoverageEligibilityRequest/$submit", {
        "resourceType": "CoverageEligibilityRequest", "status": "active", "purpose": ["validation", "benefits"],
        "contained": [{"resourceType": "Patient", "id": "member", "identifier": [{"value": member_id}],
                       "birthDate": str(work.patient["dob"])}],
        "patient": {"reference": "#member"}, "servicedDate": on.isoformat(), "created": on.isoformat(),
        "insurer": {"display": "Keystone Mutual Health"}})
    return "Active" if answer["insurance"][0].get("inforce") else "Inactive"


def precert_bundle(work: ApiWork, member_id: str, answers: dict[str, str], summary: str,
                   attachments: list[tuple[str, str, str]], requested_days: int) -> dict[str, Any]:
    """A PAS request Bundle for the order read earlier; attachments are (file name, base64, type code)."""
    notes = work.notes
    start = date.fromisoformat(work.need("planned"))
    info = [_info(1, "clinical-summary", {"valueString": summary})]
    for field, value in answers.items():
        code, kind = QUESTIONS[field]
        valued = {"valueBoolean": value == "Yes"} if kind == "boolean" else {"valueQuantity": {"value": float(value)}}
        info.append(_info(len(info) + 1, code, valued))
    for name, data, kind in attachments:
        info.append({"sequence": len(info) + 1, "category": {"coding": [{"system": INFO_CATEGORY, "code": "attachment"}]},
                     "code": {"coding": [{"system": DOCUMENT_TYPE, "code": kind}]},
                     "valueAttachment": {"contentType": "application/pdf", "title": name, "data": data}})
    system = CPT if notes["code_system"].endswith("cpt") else HCPCS
    claim = {"resourceType": "Claim", "status": "active", "use": "preauthorization",
             "type": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/claim-type", "code": "professional"}]},
             "patient": {"reference": "urn:uuid:patient"}, "created": f"{start.isoformat()}T09:00:00-05:00",
             "provider": {"reference": "urn:uuid:facility"},
             "careTeam": [{"sequence": 1, "provider": {"reference": "urn:uuid:provider"},
                           "role": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/claimcareteamrole",
                                                "code": "referring"}]}}],
             "enterer": {"reference": "urn:uuid:provider"},
             "priority": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/processpriority", "code": "normal"}]},
             "insurance": [{"sequence": 1, "focal": True, "coverage": {"reference": "urn:uuid:coverage"}}],
             "diagnosis": [{"sequence": n, "diagnosisCodeableConcept": {"coding": [{"system": ICD10, "code": code}]}}
                           for n, code in enumerate(notes["diagnoses"].split(","), start=1)],
             "supportingInfo": info,
             "item": [{"sequence": 1, "productOrService": {"coding": [{"system": system, "code": notes["code"]}]},
                       "quantity": {"value": int(notes["units"])},
                       "servicedPeriod": {"start": start.isoformat(),
                                          "end": (start + timedelta(days=requested_days - 1)).isoformat()},
                       "locationCodeableConcept": {"coding": [{"system": PLACE_OF_SERVICE,
                                                                        "code": notes["place_of_service"]}]}}]}
    patient = {"resourceType": "Patient", "identifier": [{"value": member_id}], "birthDate": str(work.patient["dob"]),
               "name": [{"family": work.patient["last_name"], "given": [work.patient["first_name"]]}]}
    resources = {"claim": claim, "patient": patient,
                 "coverage": {"resourceType": "Coverage", "status": "active", "subscriberId": member_id,
                              "beneficiary": {"reference": "urn:uuid:patient"},
                              "payor": [{"display": "Keystone Mutual Health"}]},
                 "facility": {"resourceType": "Organization", "identifier": [{"system": NPI, "value": notes["facility_npi"]}]},
                 "provider": {"resourceType": "Practitioner",
                              "identifier": [{"system": NPI, "value": notes["provider_npi"]}],
                              "name": [{"text": "Prior Authorization Coordinator"}],
                              "telecom": [{"system": "phone", "value": notes["provider_phone"]}]}}
    return {"resourceType": "Bundle", "type": "collection",
            "entry": [{"fullUrl": f"urn:uuid:{key}", "resource": resource} for key, resource in resources.items()]}


def _info(sequence: int, code: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"sequence": sequence, "category": {"coding": [{"system": INFO_CATEGORY, "code": "info"}]},
            "code": {"coding": [{"system": QUESTION, "code": code}]}, **value}


def claim_response_of(answer: dict[str, Any]) -> dict[str, Any]:
    """The ClaimResponse that leads a PAS response Bundle."""
    return next(resource for resource in entries(answer) if resource["resourceType"] == "ClaimResponse")


def approved_units(decision: dict[str, Any]) -> int:
    """The units a ClaimResponse's first item approves."""
    for adjudication in decision["item"][0].get("adjudication", []):
        if any(c.get("code") == "approved-units" for c in adjudication["category"].get("coding", [])):
            return int(adjudication["value"])
    raise ScriptFailed("the ClaimResponse approves no units")


def record_decision(work: ApiWork, mrn: str, order_id: str, decision: dict[str, Any], payer_id: str) -> None:
    """The payer's ClaimResponse recorded on the order's authorization section, pointed at the
    EHR's order, patient and payer."""
    recorded = {key: value for key, value in decision.items()
                if key in ("resourceType", "status", "type", "use", "created", "outcome", "disposition",
                           "preAuthRef", "preAuthPeriod", "item", "identifier")}
    recorded.update(request={"reference": f"ServiceRequest/{order_id}"}, patient={"reference": f"Patient/{mrn}"},
                    insurer={"reference": f"Organization/{payer_id}"})
    work.post("ehr", "/fhir/ClaimResponse", recorded)


def add_note(work: ApiWork, mrn: str, about: str | None, text: str) -> None:
    """A note on the patient's chart, or on an order, claim or work item (`about`, Type/id)."""
    work.post("ehr", "/fhir/Communication", {
        "resourceType": "Communication", "status": "completed", "subject": {"reference": f"Patient/{mrn}"},
        **({"about": [{"reference": about}]} if about else {}), "payload": [{"contentString": text}]})


def set_work_item(work: ApiWork, task: dict[str, Any], status: str) -> None:
    task = {**task, "businessStatus": {"text": status}}
    work.call("ehr", "PUT", f"/fhir/Task/{task['id']}", task)
