"""EHR rows -> FHIR R4 billing resources: Claim (the claim as billed, with its service lines)
and ExplanationOfBenefit (its remittance: payment, and each line's CAS adjustments with
their group code, CARC reason and RARC remarks)."""
from __future__ import annotations

from fhir.resources.R4B.claim import Claim as FhirClaim
from fhir.resources.R4B.explanationofbenefit import ExplanationOfBenefit

from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.fhir.codes import (
    ADJUDICATION,
    APPEAL_DEADLINE_EXT,
    CAS_GROUP,
    CLAIM_NUMBER,
    CLAIM_STATUS_EXT,
    CLAIM_TYPE,
    NPI,
    REMITTANCE,
    adjustment_description,
    carc_concept,
    day,
    diagnosis_concept,
    modifier_concept,
    money,
    procedure_concept,
    reference,
)
from admindesk.envs.ehr_web.models import Facility
from admindesk.envs.ehr_web.models_work import Claim, ClaimLine, Remittance

CARE_TEAM_ROLE = "http://terminology.hl7.org/CodeSystem/claimcareteamrole"
PROCESS_PRIORITY = "http://terminology.hl7.org/CodeSystem/processpriority"
CAS_GROUPS = {"CO": "Contractual Obligations", "PR": "Patient Responsibility", "OA": "Other Adjustments",
              "PI": "Payor Initiated Reductions", "CR": "Corrections and Reversals"}
PROFESSIONAL = {"coding": [{"system": CLAIM_TYPE, "code": "professional"}]}


def _diagnoses(claim: Claim) -> list[str]:
    """The claim's diagnosis codes in the order its lines first point to them."""
    seen: dict[str, None] = {}
    for line in claim.lines:
        for code in line.diagnosis_codes.split(","):
            if code:
                seen.setdefault(code)
    return list(seen)


def _billing_provider(claim: Claim) -> dict:
    """The billing NPI: the claim's facility when it bills under its own NPI."""
    facility = db().get(Facility, claim.facility_id)
    if facility is not None and facility.npi == claim.billing_npi:
        return {**reference("Organization", facility.id, facility.name), "identifier": {"system": NPI,
                                                                                        "value": claim.billing_npi}}
    return {"identifier": {"system": NPI, "value": claim.billing_npi}}


def _coverage(claim: Claim) -> dict:
    return reference("Coverage", claim.coverage_id) or {"display": f"Member {claim.member_id}"}


def _line_codes(line: ClaimLine) -> dict:
    modifiers = [modifier for modifier in line.modifiers.split(",") if modifier]
    return {"sequence": line.line_no, "productOrService": procedure_concept(line.code),
            "modifier": [modifier_concept(modifier) for modifier in modifiers] or None,
            "quantity": {"value": line.units}}


def claim_resource(claim: Claim) -> FhirClaim:
    """A claim as billed: payer and coverage, provider, authorization number, lines with codes
    and charges. Its adjudication is the ExplanationOfBenefit; the EHR's claim status is an
    extension."""
    diagnoses = _diagnoses(claim)
    items = [{**_line_codes(line), "servicedDate": day(claim.service_date), "net": money(line.charge),
              "diagnosisSequence": [diagnoses.index(code) + 1 for code in line.diagnosis_codes.split(",") if code]
              or None} for line in claim.lines]
    return FhirClaim(
        id=claim.claim_number, identifier=[{"system": CLAIM_NUMBER, "value": claim.claim_number}],
        status="active", type=PROFESSIONAL, use="claim", patient=reference("Patient", claim.mrn),
        billablePeriod={"start": day(claim.service_date), "end": day(claim.service_date)},
        created=day(claim.submitted_on), insurer=reference("Organization", claim.payer_id, claim.payer.name),
        provider=_billing_provider(claim),
        priority={"coding": [{"system": PROCESS_PRIORITY, "code": "normal"}]},
        referral=reference("ServiceRequest", claim.order_id),
        careTeam=[{"sequence": 1, "provider": reference("Practitioner", claim.rendering_npi),
                   "role": {"coding": [{"system": CARE_TEAM_ROLE, "code": "primary"}]}}],
        diagnosis=[{"sequence": number, "diagnosisCodeableConcept": diagnosis_concept(code)}
                   for number, code in enumerate(diagnoses, start=1)] or None,
        insurance=[{"sequence": 1, "focal": True, "coverage": _coverage(claim),
                    "preAuthRef": [claim.auth_number] if claim.auth_number else None}],
        item=items or None, total=money(claim.total_charge),
        extension=[{"url": CLAIM_STATUS_EXT, "valueString": claim.status}])


def _adjudication(category: str, amount: float) -> dict:
    return {"category": {"coding": [{"system": ADJUDICATION, "code": category}]}, "amount": money(amount)}


def _eob_lines(claim: Claim) -> tuple[list[dict], list[dict]]:
    """Each line's adjudication (charged, paid, one entry per CAS adjustment) and the
    remark notes (RARCs) its adjustments carry."""
    items, notes = [], []
    for line in claim.lines:
        adjudication = [_adjudication("submitted", line.charge), _adjudication("benefit", line.paid)]
        note_numbers = []
        for adjustment in line.adjustments:
            adjudication.append({
                "category": {"coding": [{"system": CAS_GROUP, "code": adjustment.group_code,
                                         "display": CAS_GROUPS.get(adjustment.group_code, adjustment.group_code)}]},
                "reason": carc_concept(adjustment.carc_code), "amount": money(adjustment.amount)})
            if adjustment.rarc_code:
                described = adjustment_description("RARC", adjustment.rarc_code)
                notes.append({"number": len(notes) + 1, "type": "display",
                              "text": f"RARC {adjustment.rarc_code}" + (f": {described}" if described else "")})
                note_numbers.append(len(notes))
        items.append({**_line_codes(line), "servicedDate": day(claim.service_date), "net": money(line.charge),
                      "adjudication": adjudication, "noteNumber": note_numbers or None})
    return items, notes


def explanation_of_benefit_resource(remittance: Remittance) -> ExplanationOfBenefit:
    """The remittance (ERA/EOB) of one claim: outcome, payment, adjustments with CARC reasons,
    the patient's share, and the appeal deadline (an extension)."""
    claim = db().get(Claim, remittance.claim_number)
    items, notes = _eob_lines(claim)
    return ExplanationOfBenefit(
        id=remittance.id, identifier=[{"system": REMITTANCE, "value": remittance.id}], status="active",
        type=PROFESSIONAL, use="claim", patient=reference("Patient", claim.mrn),
        billablePeriod={"start": day(claim.service_date), "end": day(claim.service_date)},
        created=day(remittance.paid_on), insurer=reference("Organization", remittance.payer_id, claim.payer.name),
        provider=_billing_provider(claim), claim=reference("Claim", claim.claim_number),
        outcome="complete", disposition=claim.status,
        preAuthRef=[claim.auth_number] if claim.auth_number else None,
        insurance=[{"focal": True, "coverage": _coverage(claim)}],
        item=items or None, processNote=notes or None,
        total=[_adjudication("submitted", claim.total_charge), _adjudication("benefit", remittance.paid_amount),
               {"category": {"text": "Patient responsibility"}, "amount": money(remittance.patient_responsibility)}],
        payment={"date": day(remittance.paid_on), "amount": money(remittance.paid_amount),
                 "identifier": {"type": {"text": "Check / EFT number"}, "value": remittance.check_number}},
        extension=[{"url": APPEAL_DEADLINE_EXT, "valueDate": day(remittance.appeal_deadline)}])
