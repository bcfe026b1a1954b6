"""DME requests: Keystone Mutual's one-page form, evaluated against its DME requirements."""
from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from sqlalchemy import or_, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_b.fields import split_codes
from admindesk.envs.payer_portal_b.forms import DmeForm, options
from admindesk.envs.payer_portal_b.models import DmeRequest, DmeRequirement, Plan, ProcedureCode, Provider, Supplier
from admindesk.envs.payer_portal_b.numbering import next_authorization_number, next_dme_request_id
from admindesk.envs.payer_portal_b.portal import (
    attachment_response,
    attachments_of,
    check_uploads,
    has_errors,
    payer,
    requested_page_size,
    status_counts,
    store_attachment,
)
from admindesk.envs.payer_portal_b.precert_service import check_diagnoses, check_provider, check_subscriber
from admindesk.envs.payer_portal_b.rules.dme_rules import DmeSubmission, evaluate, requirement_text
from admindesk.envs.payer_portal_b.rules.precert_determination import policy_for_code

dme = Blueprint("dme", __name__, url_prefix="/dme")
STATUSES = ("Approved", "Pended", "Denied", "Duplicate")
SORT_COLUMNS = {"request": DmeRequest.request_id, "subscriber": DmeRequest.subscriber_id,
                "code": DmeRequest.hcpcs_code, "status": DmeRequest.status, "submitted": DmeRequest.submitted_at}


def _form() -> DmeForm:
    form = DmeForm()
    suppliers = db().scalars(select(Supplier).order_by(Supplier.name))
    form.supplier_npi.choices = options([("", "Select a supplier..."),
                                         *((s.npi, f"{s.name} (NPI {s.npi}) - {s.network_status}")
                                           for s in suppliers)])
    return form


def _requirements_table() -> list[tuple[DmeRequirement, str, str]]:
    rows = db().execute(select(DmeRequirement, ProcedureCode.description)
                        .join(ProcedureCode, ProcedureCode.code == DmeRequirement.code)
                        .order_by(DmeRequirement.policy_number, DmeRequirement.code))
    return [(requirement, description, requirement_text(requirement)) for requirement, description in rows]


def _check_code(form):
    """The HCPCS code must be a DME item with requirements; fax-only items are refused."""
    code = form.hcpcs_code.data.strip().upper()
    policy = policy_for_code(db(), code)
    if policy is not None and policy.fax_only:
        form.hcpcs_code.errors.append(f"{code} must be requested by fax (policy {policy.policy_number}).")
        return None, policy
    requirement = db().get(DmeRequirement, code)
    if requirement is None:
        form.hcpcs_code.errors.append(f"{code} is not a DME item requested here. Use New Precertification Request "
                                      "for other services.")
    return requirement, None


def _check_supplier(form, subscriber) -> str:
    """Keystone's network rule: a non-contracted supplier is refused on an HMO plan (no
    out-of-network DME benefit) and processed "Out of network" on PPO and Medicare Advantage."""
    supplier = db().get(Supplier, form.supplier_npi.data) if form.supplier_npi.data else None
    if supplier is None or supplier.network_status == "Contracted":
        return "Contracted"
    if subscriber is not None and db().get(Plan, subscriber.plan_id).product == "HMO":
        form.supplier_npi.errors.append(f"{supplier.name} is not contracted with Keystone Mutual, and the "
                                        "subscriber's HMO plan has no out-of-network DME benefit. Choose a "
                                        "contracted supplier.")
    return "Out of network"


def _clinical_facts(form) -> dict:
    """The PAP, oxygen and hospital bed facts of the form, named as DmeRequest's columns."""
    return {"sleep_test_date": form.sleep_test_date.data, "comorbidities": list(form.comorbidities.data or []),
            "spo2_exertion": form.spo2_exertion.data, "spo2_on_oxygen": form.spo2_on_oxygen.data,
            "pao2": form.pao2.data, "oxygen_conditions": list(form.oxygen_conditions.data or []),
            "hematocrit": float(form.hematocrit.data) if form.hematocrit.data is not None else None,
            "device_setup_date": form.device_setup_date.data, "adherence_start": form.adherence_start.data,
            "nights_4h": form.nights_4h.data, "oxygen_test_date": form.oxygen_test_date.data,
            "oxygen_test_by": form.oxygen_test_by.data or None, "oxygen_test_state": form.oxygen_test_state.data or None,
            "bed_indication": form.bed_indication.data or None,
            "bed_position_changes": form.bed_position_changes.data or None,
            "replacement_reason": form.replacement_reason.data or None, "replacement_date": form.replacement_date.data,
            "modifier": (form.modifier.data or "").strip().upper() or None}


def _check_trial(form, subscriber, requirement) -> None:
    """Continued coverage continues an approved PAP trial of the same subscriber."""
    trial_id = (form.initial_request_id.data or "").strip().upper()
    trial = db().get(DmeRequest, trial_id) if trial_id else None
    if requirement.clinical_rule != "pap":
        form.request_kind.errors.append("Continued coverage after a trial applies to PAP devices (E0601, E0470) only.")
    elif trial is None or trial.subscriber_id != subscriber.subscriber_id or trial.status != "Approved" \
            or trial.request_kind != "Initial" or db().get(DmeRequirement, trial.hcpcs_code).clinical_rule != "pap":
        form.initial_request_id.errors.append(f"{trial_id or 'The request ID'} is not an approved initial PAP request "
                                              f"of subscriber {subscriber.subscriber_id}.")


def _check_replaced(form, subscriber, requirement) -> DmeRequest | None:
    """A replacement names an approved, delivered request of the same subscriber for equipment of
    the same medical policy."""
    prior_id = (form.initial_request_id.data or "").strip().upper()
    prior = db().get(DmeRequest, prior_id) if prior_id else None
    same_policy = prior is not None and (db().get(DmeRequirement, prior.hcpcs_code) or requirement).policy_number \
        == requirement.policy_number
    if prior is None or prior.subscriber_id != subscriber.subscriber_id or prior.status != "Approved" \
            or not same_policy or prior.delivered_on is None:
        form.initial_request_id.errors.append(f"{prior_id or 'The request ID'} is not an approved, delivered DME "
                                              f"request of subscriber {subscriber.subscriber_id} for the same or "
                                              f"similar equipment ({requirement.policy_number}).")
        return None
    return prior


def _render_form(form, fax_policy=None, status=200):
    return render_template("dme_form.html", form=form, fax_policy=fax_policy, payer=payer(),
                           requirements=_requirements_table()), status


@dme.route("/new", methods=["GET", "POST"])
def new():
    """The DME request form; validated, then evaluated by dme_rules."""
    form = _form()
    if not form.is_submitted():
        describe(record_type="dme_request", tab="request_form")
        return _render_form(form)
    session = db()
    valid = form.validate()
    subscriber = requirement = fax_policy = None
    if not form.subscriber_id.errors and not form.subscriber_dob.errors:
        subscriber = check_subscriber(session, form.subscriber_id, form.subscriber_dob)
    if not form.hcpcs_code.errors:
        requirement, fax_policy = _check_code(form)
    if not form.diagnosis_codes.errors:
        check_diagnoses(session, form.diagnosis_codes)
    check_provider(session, form.ordering_npi)
    if form.order_date.data and form.order_date.data > clock.today():
        form.order_date.errors.append("The written order date cannot be in the future.")
    supplier_network = _check_supplier(form, subscriber)
    uploads = check_uploads([("Detailed written order", request.files.get("written_order"), form.written_order),
                             (form.document_type_2.data, request.files.get("attachment_2"), form.attachment_2),
                             (form.document_type_3.data, request.files.get("attachment_3"), form.attachment_3)])
    if not form.written_order.errors and not request.files.get("written_order"):
        form.written_order.errors = ["Attach the detailed written order (PDF)."]
    if form.request_kind.data == "Continued coverage" and requirement is not None and subscriber is not None:
        _check_trial(form, subscriber, requirement)
    replaced = None
    if form.request_kind.data == "Replacement" and requirement is not None and subscriber is not None:
        replaced = _check_replaced(form, subscriber, requirement)
    if not valid or has_errors(form):
        describe(action="submit_dme_rejected", record_type="dme_request", fax_only=fax_policy is not None)
        return _render_form(form, fax_policy, 422)
    submission = DmeSubmission(
        subscriber_id=subscriber.subscriber_id, hcpcs_code=requirement.code,
        diagnosis_codes=tuple(split_codes(form.diagnosis_codes.data)), face_to_face_date=form.face_to_face_date.data,
        order_date=form.order_date.data,
        test_values={"ahi": float(form.ahi.data) if form.ahi.data is not None else None,
                     "spo2_rest": form.spo2_rest.data},
        document_types=frozenset(kind for kind, _ in uploads), clinical=_clinical_facts(form),
        request_kind=form.request_kind.data, prior_delivered_on=replaced.delivered_on if replaced else None)
    decision = evaluate(session, submission, subscriber, requirement)
    item = DmeRequest(
        request_id=next_dme_request_id(session), subscriber_id=subscriber.subscriber_id,
        patient_name=subscriber.full_name, hcpcs_code=requirement.code, quantity=form.quantity.data,
        diagnosis_codes=list(submission.diagnosis_codes), ordering_npi=form.ordering_npi.data.strip(),
        supplier_npi=form.supplier_npi.data, face_to_face_date=submission.face_to_face_date,
        order_date=submission.order_date, ahi=submission.test_values["ahi"], spo2_rest=form.spo2_rest.data,
        status=decision.status, decision_reason=decision.reason,
        authorization_number=next_authorization_number(session) if decision.status == "Approved" else None,
        approved_months=decision.approved_months, submitted_by=current_username(), submitted_at=clock.now(),
        supplier_network=supplier_network, request_kind=form.request_kind.data,
        initial_request_id=(form.initial_request_id.data or "").strip().upper() or None, **_clinical_facts(form))
    session.add(item)
    for document_type, upload in uploads:
        store_attachment("dme", item.request_id, document_type, upload)
    session.commit()
    describe(action="submit_dme", record_type="dme_request", record_id=item.request_id, status=item.status,
             hcpcs_code=item.hcpcs_code)
    flash(f"DME request {item.request_id} received: {item.status}.", "success")
    return redirect(url_for("dme.detail", request_id=item.request_id))


@dme.get("")
def status_list():
    """DME requests on file (made here or before the portal), by id, Subscriber ID, HCPCS or status."""
    query = request.args.get("q", "").strip()[:40]
    status = request.args.get("status", "")
    stmt = select(DmeRequest)
    if query:
        stmt = stmt.where(or_(DmeRequest.request_id.ilike(f"%{query}%"), DmeRequest.subscriber_id.ilike(f"%{query}%"),
                              DmeRequest.hcpcs_code == query.upper()))
    tabs = status_counts(DmeRequest.status, STATUSES)
    if status in dict(tabs):
        stmt = stmt.where(DmeRequest.status == status)
    if "sort" in request.args:
        stmt = apply_sort(stmt, SORT_COLUMNS, "request")
    else:  # newest first until the user picks a column
        stmt = stmt.order_by(DmeRequest.submitted_at.desc(), DmeRequest.request_id.desc())
    page = paginate(db(), stmt, per_page=requested_page_size())
    describe(record_type="dme_request", tab="status_list", query=query, status=status)
    return render_template("dme_list.html", page=page, query=query, status=status, tabs=tabs,
                           suppliers={s.npi: s.name for s in db().scalars(select(Supplier))})


@dme.get("/<request_id>")
def detail(request_id: str):
    item = get_or_404(DmeRequest, request_id)
    describe(record_type="dme_request", record_id=request_id, tab="detail")
    return render_template("dme_detail.html", item=item, code=db().get(ProcedureCode, item.hcpcs_code),
                           supplier=db().get(Supplier, item.supplier_npi) if item.supplier_npi else None,
                           ordering=db().get(Provider, item.ordering_npi),
                           requirement=db().get(DmeRequirement, item.hcpcs_code),
                           attachments=attachments_of("dme", request_id))


@dme.get("/<request_id>/attachments/<int:attachment_id>")
def attachment(request_id: str, attachment_id: int):
    describe(action="download_attachment", record_type="dme_request", record_id=request_id, tab="attachments",
             attachment_id=attachment_id)
    return attachment_response("dme", request_id, attachment_id)
