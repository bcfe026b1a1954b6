"""`POST /fhir/ClaimResponse`: the desk records a payer's decision on a prior-authorization
request (as a payer's PAS API answers it) on the order's authorization section, saved by the
order screen's service (order_authorizations: AuthorizationForm and its rules against the
authorization on file, the history row, the audit action `update_authorization`).

The ClaimResponse stands for the whole section, as the screen's form does: an element left
out clears its field. It is read so:
- the order: `request` = ServiceRequest/<order number>, or `request.identifier` in the order
  number system (the order stands for the request that was sent for it);
- `patient` = Patient/<MRN>, the order's patient; `use` preauthorization; `status` active;
- the status: the extension AUTH_STATUS_EXT (valueString, one of the form's statuses) when
  given; else the Da Vinci PAS review action of the items (STATUS_OF_REVIEW_ACTION, every item
  the same); else `outcome` queued (no decision yet): Submitted - Pending;
- the payer: `insurer` = Organization/<payer id>, or its identifier in the payer code system;
- `preAuthRef`: the authorization number; `identifier` (one): the payer's reference number;
- the approved units: the `value` of an item adjudication whose category code is APPROVED_UNITS;
- `preAuthPeriod`: the approved start and end dates.
`disposition` and the rest are not kept: the section has no field for them (a note has).
"""
from __future__ import annotations

from decimal import Decimal

from fhir.resources.R4B.claimresponse import ClaimResponse
from sqlalchemy import select
from werkzeug.datastructures import MultiDict

from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.fhir.codes import (
    APPROVED_UNITS,
    AUTH_STATUS_EXT,
    ORDER_NUMBER,
    PAS_REVIEW_ACTION_EXT,
    PAYER_CODE,
    X12_REVIEW_ACTION,
)
from admindesk.envs.ehr_web.fhir.outcomes import fhir_error
from admindesk.envs.ehr_web.fhir.writes import NO_CSRF, form_refusal, parse_body, refuse_if_chart_locked, target
from admindesk.envs.ehr_web.models import Order, Payer
from admindesk.envs.ehr_web.order_authorizations import authorization_form, save_authorization
from admindesk.envs.ehr_web.vocab import AUTH_STATUSES, CHANGE_ONLY_AUTH_STATUSES

# X12 review actions -> the authorization status the desk records. A2 (certified in part:
# fewer units or a shorter span) is an approval of what the payer approved. C (cancelled) is
# not here: a cancellation or withdrawal is a change of a recorded authorization.
STATUS_OF_REVIEW_ACTION = {"A1": "Approved", "A2": "Approved", "A3": "Denied", "A4": "Pended - Info Requested",
                           "NA": "No Auth Required"}
# A request the payer has queued without a decision.
QUEUED_STATUS = "Submitted - Pending"
STATUS_EXT_PATH = f"ClaimResponse.extension('{AUTH_STATUS_EXT}')"
UNITS_PATH = f"ClaimResponse.item.adjudication.where(category.coding.code='{APPROVED_UNITS}').value"
# The form's fields -> the elements that carry them, for messages (the status and units are
# named where they were found).
FIELD_PATHS = {"status": STATUS_EXT_PATH, "payer_id": "ClaimResponse.insurer", "auth_number": "ClaimResponse.preAuthRef",
               "reference_number": "ClaimResponse.identifier", "approved_units": UNITS_PATH,
               "start_date": "ClaimResponse.preAuthPeriod.start", "end_date": "ClaimResponse.preAuthPeriod.end"}
HINTS = {"status": f" Authorization statuses: {', '.join(AUTH_STATUSES)} ({' and '.join(CHANGE_ONLY_AUTH_STATUSES)} "
                   "are changes of a recorded authorization, made on the order screen).",
         "payer_id": " The insurer is one of the EHR's payers: Organization/<id> (GET /fhir/Organization?name=...)."}


def _order(response: ClaimResponse) -> Order:
    request, path = response.request, "ClaimResponse.request"
    order_id = None
    if request is not None and request.reference:
        kind, order_id = target(request, path)
        if kind != "ServiceRequest":
            raise fhir_error(422, "invalid", f"{path}: give the order the decision is on, ServiceRequest/<order "
                                             f"number>, not a {kind}.", path)
    elif request is not None and request.identifier is not None and request.identifier.system in (ORDER_NUMBER, None):
        order_id = request.identifier.value
    if not order_id:
        raise fhir_error(422, "required", f"{path}: name the order the decision is on: "
                                          '{"reference": "ServiceRequest/<order number>"}.', path)
    order = db().get(Order, order_id)
    if order is None:
        raise fhir_error(422, "not-found", f"{path}: no ServiceRequest/{order_id} in the EHR.", path)
    kind, mrn = target(response.patient, "ClaimResponse.patient")
    if (kind, mrn) != ("Patient", order.mrn):
        raise fhir_error(422, "business-rule", f"ClaimResponse.patient: ServiceRequest/{order.id} is an order of "
                                               f"Patient/{order.mrn}, not of {kind}/{mrn}.", "ClaimResponse.patient")
    return order


def _payer_id(response: ClaimResponse) -> str:
    insurer, path = response.insurer, "ClaimResponse.insurer"
    if insurer.reference:
        kind, payer_id = target(insurer, path)
        if kind != "Organization":
            raise fhir_error(422, "invalid", f"{path}: the insurer is an Organization/<payer id>, not a {kind}.", path)
        return payer_id
    identifier = insurer.identifier
    if identifier is None or not identifier.value or identifier.system not in (PAYER_CODE, None):
        raise fhir_error(422, "required", f"{path}: give the payer as Organization/<payer id> or an identifier in "
                                          f"{PAYER_CODE}.", path)
    payer = db().scalar(select(Payer).where(Payer.payer_code == identifier.value))
    if payer is None:
        raise fhir_error(422, "not-found", f"{path}: no payer with the code {identifier.value} in the EHR.", path)
    return payer.id


def _review_actions(response: ClaimResponse) -> dict[str, str]:
    """Each X12 review action code of the items -> the first adjudication that gives it."""
    actions: dict[str, str] = {}
    for i, item in enumerate(response.item or []):
        for j, adjudication in enumerate(item.adjudication or []):
            for extension in adjudication.extension or []:
                if extension.url != PAS_REVIEW_ACTION_EXT:
                    continue
                for part in extension.extension or []:
                    for coding in (part.valueCodeableConcept.coding or []) if part.valueCodeableConcept else []:
                        if coding.system == X12_REVIEW_ACTION and coding.code:
                            actions.setdefault(coding.code, f"ClaimResponse.item[{i}].adjudication[{j}]")
    return actions


def _status(response: ClaimResponse) -> tuple[str, str]:
    """The authorization status the response gives, and the element that gave it."""
    explicit = [extension for extension in response.extension or [] if extension.url == AUTH_STATUS_EXT]
    if len(explicit) > 1:
        raise fhir_error(422, "invalid", f"{STATUS_EXT_PATH}: give the status once.", STATUS_EXT_PATH)
    if explicit:
        return explicit[0].valueString or "", STATUS_EXT_PATH
    actions = _review_actions(response)
    for code, path in actions.items():
        if code not in STATUS_OF_REVIEW_ACTION:
            raise fhir_error(422, "not-supported", f"{path}: the review action {code} is not a decision this desk "
                                                   "records (A1, A2, A3, A4, NA); a cancellation or withdrawal is a "
                                                   "change of the authorization, made on the order screen.", path)
    statuses = {STATUS_OF_REVIEW_ACTION[code] for code in actions}
    if len(statuses) > 1:
        raise fhir_error(422, "business-rule", f"ClaimResponse.item: the review actions {', '.join(actions)} "
                                               "disagree; the order's authorization has one status.",
                         "ClaimResponse.item")
    if statuses:
        return statuses.pop(), next(iter(actions.values()))
    if response.outcome == "queued":
        return QUEUED_STATUS, "ClaimResponse.outcome"
    raise fhir_error(422, "required", "ClaimResponse: give the decision, as the PAS review action of the items "
                                      f"(extension {PAS_REVIEW_ACTION_EXT}, code in {X12_REVIEW_ACTION}) or as the "
                                      f"extension {AUTH_STATUS_EXT} (valueString).", "ClaimResponse.item")


def _approved_units(response: ClaimResponse) -> tuple[str, str]:
    """The approved units as the form takes them ("" when none are given), and their element."""
    found = [(adjudication.value, f"ClaimResponse.item[{i}].adjudication[{j}].value")
             for i, item in enumerate(response.item or []) for j, adjudication in enumerate(item.adjudication or [])
             if any(coding.code == APPROVED_UNITS for coding in adjudication.category.coding or [])]
    if len(found) > 1:
        raise fhir_error(422, "invalid", f"{UNITS_PATH}: give the approved units once.", UNITS_PATH)
    if not found:
        return "", UNITS_PATH
    value, path = found[0]
    if value is None:
        raise fhir_error(422, "required", f"{path}: give the number of approved units as the value.", path)
    whole = isinstance(value, Decimal) and value == value.to_integral_value()
    return str(int(value)) if whole else str(value), path


def _day(value) -> str:
    """A FHIR date or date-time as the form's date fields read it (the day)."""
    if value is None:
        return ""
    return value.isoformat()[:10] if hasattr(value, "isoformat") else str(value)


def record_claim_response(body: object) -> Order:
    """Record the decision a ClaimResponse carries on its order's authorization section."""
    response = parse_body(ClaimResponse, body, "ClaimResponse")
    order = _order(response)
    refuse_if_chart_locked(order.mrn)
    if response.use != "preauthorization" or response.status != "active":
        path = "ClaimResponse.use" if response.use != "preauthorization" else "ClaimResponse.status"
        raise fhir_error(422, "business-rule", f"{path}: the desk records an active preauthorization response "
                                               "(a cancelled request is an authorization change, made on the order "
                                               "screen).", path)
    if len(response.identifier or []) > 1:
        raise fhir_error(422, "invalid", "ClaimResponse.identifier: give one, the payer's reference number.",
                         "ClaimResponse.identifier")
    status, status_path = _status(response)
    units, units_path = _approved_units(response)
    period = response.preAuthPeriod
    form = authorization_form(meta=NO_CSRF, formdata=MultiDict({
        "status": status, "payer_id": _payer_id(response), "auth_number": response.preAuthRef or "",
        "reference_number": (response.identifier[0].value or "") if response.identifier else "",
        "approved_units": units, "start_date": _day(period and period.start), "end_date": _day(period and period.end)}))
    if save_authorization(order, form) is None:
        raise form_refusal(form, {**FIELD_PATHS, "status": status_path, "approved_units": units_path}, HINTS)
    return order
