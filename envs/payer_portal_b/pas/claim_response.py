"""The PAS response Bundle of a precertification: a ClaimResponse as the status screen reads.

- `identifier`: the portal's reference number; `id` is the same number.
- `outcome`: `queued` while the request is Pended (a decision is still to come), else `complete`.
- `disposition`: the portal's decision reason; `processNote`: the review type and due time.
- `preAuthRef` and `preAuthPeriod`: the authorization number and approved span, once certified.
- Each `item` (itemSequence = the Claim's item sequence, Keystone's line number) carries an
  adjudication of category `submitted` with the Da Vinci PAS reviewAction extension: the X12
  278 review action code (codes.REVIEW_ACTIONS: A1 certified in total, A2 certified in part
  (fewer units or a shorter span than asked), A3 not certified, A4 pended, NA no action
  required, C cancelled; a Duplicate has none) and, when certified, the authorization number
  as its `number`; the line's reason as `reason.text`; approved units as a second
  adjudication (Keystone's `approved-units` category).
- The extension `precert-status` holds the portal's own status word (Approved, Partially
  Approved, Pended, Denied, Duplicate, Not Required, Withdrawn, Cancelled).
"""
from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.models import PayerProfile, PrecertRequest, Provider, Subscriber
from admindesk.envs.payer_portal_b.pas.codes import (
    ADJUDICATION_SYSTEM,
    CERTIFIED_PARTIAL,
    CLAIM_TYPE_SYSTEM,
    IDENTIFIER_TYPE_SYSTEM,
    ITEM_PREAUTH_PERIOD_URL,
    KEYSTONE_ADJUDICATION_SYSTEM,
    KEYSTONE_BASE,
    MEMBER_NUMBER_TYPE,
    NPI_SYSTEM,
    PAYER_ID_SYSTEM,
    PRECERT_REFERENCE_SYSTEM,
    PRECERT_STATUS_URL,
    REVIEW_ACTION_CODE_URL,
    REVIEW_ACTION_URL,
    REVIEW_ACTIONS,
    SUBSCRIBER_ID_SYSTEM,
    X12_306_SYSTEM,
)
from admindesk.envs.payer_portal_b.pas.outcomes import fhir_date, fhir_datetime
from admindesk.envs.payer_portal_b.workflow_models import PrecertLine

CERTIFIED = ("Approved", "Partially Approved")
CANCELLED = ("Withdrawn", "Cancelled")
GENDERS = {"F": "female", "M": "male"}


def full_url(kind: str, key: str) -> str:
    """A stable urn:uuid for one resource of the answer (same record, same URL)."""
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{KEYSTONE_BASE}/{kind}/{key}')}"


def response_bundle(session: Session, item: PrecertRequest) -> dict:
    """The PAS response Bundle: the ClaimResponse first, then the resources it references."""
    subscriber = session.get(Subscriber, item.subscriber_id)
    payer = session.scalars(select(PayerProfile)).one()
    provider = session.get(Provider, item.rendering_npi) if item.rendering_npi else None
    resources = [claim_response(session, item, provider), patient_resource(subscriber), insurer_resource(payer)]
    if provider is not None:
        resources.append(_provider(provider))
    return {"resourceType": "Bundle", "type": "collection",
            "entry": [{"fullUrl": full_url(r["resourceType"], r["id"]), "resource": r} for r in resources]}


def claim_response(session: Session, item: PrecertRequest, provider: Provider | None) -> dict:
    """The ClaimResponse of one precertification, as the module docstring describes."""
    reference = item.reference_number
    resource = {
        "resourceType": "ClaimResponse", "id": reference,
        "extension": [{"url": PRECERT_STATUS_URL, "valueString": item.status}],
        "identifier": [{"system": PRECERT_REFERENCE_SYSTEM, "value": reference}],
        "status": "cancelled" if item.status in CANCELLED else "active",
        "type": {"coding": [{"system": CLAIM_TYPE_SYSTEM, "code": "professional"}]},
        "use": "preauthorization",
        "patient": {"reference": full_url("Patient", item.subscriber_id)},
        "created": fhir_datetime(item.submitted_at),
        "insurer": {"reference": full_url("Organization", "payer")},
        "request": {"identifier": {"system": PRECERT_REFERENCE_SYSTEM, "value": reference}},
        "outcome": "queued" if item.status == "Pended" else "complete",
        "disposition": item.decision_reason,
        "item": [_item(item, *line) for line in _lines(session, item)],
    }
    if provider is not None:
        kind = "Practitioner" if provider.kind == "Individual" else "Organization"
        resource["requestor"] = {"reference": full_url(kind, provider.npi)}
    if item.status in CERTIFIED and item.authorization_number:
        resource["preAuthRef"] = item.authorization_number
        if item.approved_start:
            resource["preAuthPeriod"] = {"start": fhir_date(item.approved_start), "end": fhir_date(item.approved_end)}
    if item.decision_due is not None and item.status == "Pended":
        resource["processNote"] = [{"number": 1, "type": "display", "text": (
            f"{item.urgency} review; decision due {item.decision_due.strftime(DATE_FORMAT + ' %H:%M')}.")}]
    return resource


def _lines(session: Session, item: PrecertRequest) -> list[tuple[int, str, int, str, str, int | None]]:
    """(line number, code, units, status, reason, approved units): the stored lines, else the request's one."""
    stored = session.scalars(select(PrecertLine).where(PrecertLine.reference_number == item.reference_number)
                             .order_by(PrecertLine.line_no)).all()
    if stored:
        return [(line.line_no, line.service_code, line.units, line.status, line.reason, line.approved_units)
                for line in stored]
    return [(1, item.service_code, item.units, item.status, item.decision_reason, item.approved_units)]


def _item(item: PrecertRequest, line_no: int, code: str, units: int, status: str, reason: str,
          approved_units: int | None) -> dict:
    action = REVIEW_ACTIONS.get(status)
    certified = status == "Approved"
    shorter = item.approved_start is not None and (item.approved_start, item.approved_end) != (item.start_date,
                                                                                               item.end_date)
    if certified and (approved_units != units or shorter):
        action = CERTIFIED_PARTIAL
    review = []
    if action is not None:
        review.append({"url": REVIEW_ACTION_CODE_URL, "valueCodeableConcept": {
            "coding": [{"system": X12_306_SYSTEM, "code": action[0], "display": action[1]}], "text": status}})
    if certified and item.authorization_number:
        review.append({"url": "number", "valueString": item.authorization_number})
    decision = {"category": {"coding": [{"system": ADJUDICATION_SYSTEM, "code": "submitted"}]},
                "reason": {"text": reason or status}}
    if review:
        decision["extension"] = [{"url": REVIEW_ACTION_URL, "extension": review}]
    adjudication = [decision]
    if certified and approved_units is not None:
        adjudication.append({"category": {"coding": [{"system": KEYSTONE_ADJUDICATION_SYSTEM, "code": "approved-units",
                                                      "display": f"Approved units of {code}"}]},
                             "value": approved_units})
    result = {"itemSequence": line_no, "adjudication": adjudication}
    if certified and item.approved_start:
        result["extension"] = [{"url": ITEM_PREAUTH_PERIOD_URL, "valuePeriod": {
            "start": fhir_date(item.approved_start), "end": fhir_date(item.approved_end)}}]
    return result


def patient_resource(subscriber: Subscriber) -> dict:
    """The subscriber as a Patient (id the Subscriber ID), as Keystone has them on file."""
    return {"resourceType": "Patient", "id": subscriber.subscriber_id,
            "identifier": [{"type": {"coding": [{"system": IDENTIFIER_TYPE_SYSTEM, "code": MEMBER_NUMBER_TYPE}]},
                            "system": SUBSCRIBER_ID_SYSTEM, "value": subscriber.subscriber_id}],
            "name": [{"family": subscriber.last_name, "given": [subscriber.first_name]}],
            "gender": GENDERS.get(subscriber.sex, "unknown"), "birthDate": fhir_date(subscriber.dob)}


def insurer_resource(payer: PayerProfile) -> dict:
    """Keystone Mutual as the insurer Organization (id `payer`)."""
    return {"resourceType": "Organization", "id": "payer",
            "identifier": [{"system": PAYER_ID_SYSTEM, "value": payer.payer_id}], "name": payer.name}


def _provider(provider: Provider) -> dict:
    identifier = [{"system": NPI_SYSTEM, "value": provider.npi}]
    if provider.kind == "Individual":
        return {"resourceType": "Practitioner", "id": provider.npi, "identifier": identifier,
                "name": [{"text": provider.name}]}
    return {"resourceType": "Organization", "id": provider.npi, "identifier": identifier, "name": provider.name}
