"""The CoverageEligibilityResponse of one eligibility inquiry: what the portal's Eligibility
Result page shows, from the same rows.

- `id` and `identifier` (Keystone's eligibility-inquiry system): the inquiry number
  (`ELG-0000001`), as on the page; `request` names the same inquiry.
- `disposition`: the page's heading, "Coverage on 16-Nov-2026: Active" (or Inactive).
- `contained`: the member as a Patient (`#member`: name, gender, birthDate, address on file),
  the Coverage (`#coverage`: subscriberId, policy holder and relationship, `period` = coverage
  effective to terminated, `class` group number and plan) and Keystone (`#payer`).
- `insurance[0]`: `inforce` (active on `servicedDate`), `benefitPeriod` (the coverage period)
  and, when `benefits` was asked for, one `item` per row of the page's Benefit Summary
  (category in Keystone's benefit-summary system, `benefit[0].allowedString` the plan's words).
"""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.models import EligibilityInquiry, PayerProfile, Plan, Subscriber
from admindesk.envs.payer_portal_b.pas.claim_response import insurer_resource, patient_resource
from admindesk.envs.payer_portal_b.pas.codes import (
    BENEFIT_SUMMARY_SYSTEM,
    BENEFIT_TYPE_SYSTEM,
    COVERAGE_CLASS_SYSTEM,
    ELIGIBILITY_INQUIRY_SYSTEM,
    SUBSCRIBER_RELATIONSHIP_SYSTEM,
)
from admindesk.envs.payer_portal_b.pas.outcomes import fhir_date, fhir_datetime

# The Benefit Summary rows of eligibility_result.html: (Plan.benefits key, the page's label,
# the HL7 benefit-type code that fits the row, else the general "benefit").
BENEFIT_SUMMARY = (
    ("deductible", "Deductible", "deductible"),
    ("out_of_pocket_max", "Out-of-Pocket Maximum", "benefit"),
    ("office_copay", "Office Visits", "copay"),
    ("imaging", "Advanced Imaging", "benefit"),
    ("dme", "Durable Medical Equipment", "benefit"),
    ("precertification", "Precertification", "benefit"),
)


def eligibility_response(session: Session, inquiry: EligibilityInquiry, purposes: tuple[str, ...]) -> dict:
    """The CoverageEligibilityResponse of the module docstring."""
    subscriber = session.get(Subscriber, inquiry.subscriber_id)
    plan = session.get(Plan, subscriber.plan_id)
    payer = session.scalars(select(PayerProfile)).one()
    identifier = {"system": ELIGIBILITY_INQUIRY_SYSTEM, "value": inquiry.inquiry_id}
    period = {"start": fhir_date(subscriber.effective)}
    if subscriber.termination is not None:
        period["end"] = fhir_date(subscriber.termination)
    insurance = {"coverage": {"reference": "#coverage"}, "inforce": inquiry.result == "Active",
                 "benefitPeriod": period}
    if "benefits" in purposes:
        insurance["item"] = [_benefit_item(key, label, kind, plan.benefits.get(key, ""))
                             for key, label, kind in BENEFIT_SUMMARY]
    return {
        "resourceType": "CoverageEligibilityResponse", "id": inquiry.inquiry_id,
        "contained": [{**patient_resource(subscriber), "id": "member", "address": [{"text": subscriber.address}]},
                      _coverage(subscriber, plan, period), insurer_resource(payer)],
        "identifier": [identifier], "status": "active", "purpose": list(purposes),
        "patient": {"reference": "#member"}, "servicedDate": fhir_date(inquiry.service_date),
        "created": fhir_datetime(inquiry.requested_at), "request": {"identifier": identifier},
        "outcome": "complete",
        "disposition": f"Coverage on {inquiry.service_date.strftime(DATE_FORMAT)}: {inquiry.result}",
        "insurer": {"reference": "#payer", "display": payer.name},
        "insurance": [insurance],
    }


def _coverage(subscriber: Subscriber, plan: Plan, period: dict) -> dict:
    return {
        "resourceType": "Coverage", "id": "coverage", "status": "active",
        "subscriberId": subscriber.subscriber_id, "policyHolder": {"display": subscriber.policy_holder},
        "beneficiary": {"reference": "#member"},
        "relationship": {"coding": [{"system": SUBSCRIBER_RELATIONSHIP_SYSTEM,
                                     "code": subscriber.relationship.lower()}], "text": subscriber.relationship},
        "period": period, "payor": [{"reference": "#payer"}],
        "class": [_class("group", subscriber.group_number, None),
                  _class("plan", plan.plan_id, f"{plan.name} ({plan.product})")],
    }


def _class(kind: str, value: str, name: str | None) -> dict:
    entry = {"type": {"coding": [{"system": COVERAGE_CLASS_SYSTEM, "code": kind}]}, "value": value}
    return {**entry, "name": name} if name else entry


def _benefit_item(key: str, label: str, kind: str, words: str) -> dict:
    return {"category": {"coding": [{"system": BENEFIT_SUMMARY_SYSTEM, "code": key.replace("_", "-"),
                                     "display": label}], "text": label},
            "name": label,
            "benefit": [{"type": {"coding": [{"system": BENEFIT_TYPE_SYSTEM, "code": kind}], "text": label},
                         "allowedString": words}]}
