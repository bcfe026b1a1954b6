"""Checks against the payer's files and the recording of precertification requests.

Views call these after the form's own validators pass; every problem is put on the
field it concerns, and nothing is written unless all checks pass.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.documents.uploads import PdfUpload
from admindesk.envs.common.web import current_username
from admindesk.envs.payer_portal_b.fields import split_codes
from admindesk.envs.payer_portal_b.models import (
    Attachment,
    DiagnosisCode,
    MedicalPolicy,
    PrecertRequest,
    ProcedureCode,
    Provider,
    Subscriber,
)
from admindesk.envs.payer_portal_b.numbering import next_authorization_number, next_precert_reference
from admindesk.envs.payer_portal_b.portal import check_uploads, has_errors, store_attachment
from admindesk.envs.payer_portal_b.rules.continuation import (
    approval_continued,
    continuation_policy,
    response_answers,
    window_problem,
)
from admindesk.envs.payer_portal_b.rules.precert_determination import (
    Determination,
    Submission,
    determine,
    policy_for_code,
)
from admindesk.envs.payer_portal_b.rules.precert_rules import add_event, decision_due, retro_problem
from admindesk.envs.payer_portal_b.workflow_models import PrecertLine

SUBSCRIBER_NOT_FOUND = "No subscriber matches this Subscriber ID and date of birth."
# Where a request came from: the long form here, or Da Vinci PAS `Claim/$submit` (pas/).
PORTAL_SOURCE = "Portal"


@dataclass
class CheckedReferences:
    """What the checks found: the subscriber, the policy, and the uploads by type."""

    subscriber: Subscriber | None = None
    policy: MedicalPolicy | None = None
    uploads: list[tuple[str, PdfUpload]] | None = None


def check_subscriber(session: Session, id_field, dob_field) -> Subscriber | None:
    subscriber = session.get(Subscriber, id_field.data.strip().upper())
    if subscriber is None or subscriber.dob != dob_field.data:
        id_field.errors.append(SUBSCRIBER_NOT_FOUND)
        return None
    return subscriber


def check_service_code(session: Session, field) -> ProcedureCode | None:
    code = session.get(ProcedureCode, field.data.strip().upper())
    if code is None:
        field.errors.append(f"{field.data.strip().upper()} is not a CPT/HCPCS code Keystone Mutual recognizes.")
    return code


def check_diagnoses(session: Session, field) -> None:
    unknown = [code for code in split_codes(field.data) if session.get(DiagnosisCode, code) is None]
    if unknown:
        field.errors.append(f"Unknown ICD-10-CM code(s): {', '.join(unknown)}.")


def check_provider(session: Session, field) -> None:
    npi = (field.data or "").strip()
    if npi and not field.errors and session.get(Provider, npi) is None:
        field.errors.append(f"NPI {npi} is not in the Keystone Mutual provider file.")


def check_request_form(session: Session, form, files) -> CheckedReferences:
    """Every check of the long form against the payer's files (subscriber, codes, NPIs, PDFs)."""
    found = CheckedReferences()
    # A field that already failed its own validators is not looked up again.
    if not form.subscriber_id.errors and not form.subscriber_dob.errors:
        found.subscriber = check_subscriber(session, form.subscriber_id, form.subscriber_dob)
    code = None if form.service_code.errors else check_service_code(session, form.service_code)
    if code is not None and code.category == "dme":
        form.service_code.errors.append(f"{code.code} is durable medical equipment: use New DME Request.")
    elif code is not None:
        found.policy = policy_for_code(session, code.code)
    for code_field in (form.service_code_2, form.service_code_3):
        if (code_field.data or "").strip() and not code_field.errors:
            _check_extra_line(session, code_field)
    if form.start_date.data and not form.start_date.errors:
        problem = retro_problem(form.start_date.data, form.admission_type.data, clock.today())
        if problem:
            form.start_date.errors.append(problem)
    if not form.diagnosis_codes.errors:
        check_diagnoses(session, form.diagnosis_codes)
    check_provider(session, form.rendering_npi)
    check_provider(session, form.referring_npi)
    if found.subscriber is not None and code is not None and not form.continuation_of.errors:
        check_continuation(session, form, found.subscriber, code.code)
    found.uploads = check_uploads([(getattr(form, f"document_type_{n}").data, files.get(f"attachment_{n}"),
                                    getattr(form, f"attachment_{n}")) for n in (1, 2, 3)])
    return found


def check_continuation(session: Session, form, subscriber: Subscriber, code: str) -> None:
    """A continuation names an approval on file for this member and drug, within the renewal window."""
    auth_number = (form.continuation_of.data or "").strip()
    if not auth_number:
        return
    if continuation_policy(session, code) is None:
        form.continuation_of.errors.append(f"{code} has no continuation policy: leave the Continuation of Therapy "
                                           "section blank.")
        return
    continued = approval_continued(session, subscriber.subscriber_id, code, auth_number)
    if continued is None:
        form.continuation_of.errors.append(f"No approved authorization {auth_number.upper()} for {code} is on file "
                                           "for this subscriber.")
        return
    problem = window_problem(continued, clock.today())
    if problem:
        form.continuation_of.errors.append(problem)


@dataclass
class FormSubmission:
    """What became of a posted request form: the new request, or the fax-only policy that refused it
    (neither: the form carries the problems)."""

    created: PrecertRequest | None = None
    fax_policy: MedicalPolicy | None = None


def submit_request_form(session: Session, form, files, source: str = PORTAL_SOURCE) -> FormSubmission:
    """The long form's whole submission: its validators, the checks against the payer's files,
    the fax-only refusal, then the determination and the rows (caller commits, or rolls back
    when nothing was created). The PAS API fills the same form, so both channels share it."""
    valid = form.validate()
    found = check_request_form(session, form, files)
    if found.policy is not None and found.policy.fax_only:
        form.service_code.errors.append(f"{form.service_code.data.strip().upper()} must be requested by fax "
                                        f"(policy {found.policy.policy_number}).")
        return FormSubmission(fax_policy=found.policy)
    if valid and not has_errors(form):
        return FormSubmission(created=record_request(session, form, found, source))
    return FormSubmission()


def _check_extra_line(session: Session, field) -> None:
    """Lines 2 and 3 follow line 1's rules: a known, online-requestable, non-DME service."""
    code = check_service_code(session, field)
    if code is None:
        return
    policy = policy_for_code(session, code.code)
    if code.category == "dme":
        field.errors.append(f"{code.code} is durable medical equipment: use New DME Request.")
    elif policy is not None and policy.fax_only:
        field.errors.append(f"{code.code} must be requested by fax (policy {policy.policy_number}).")


def _overall_status(statuses: list[str]) -> str:
    """One status for a multi-line request: shared by all lines, else approved in part, else the worst."""
    if len(set(statuses)) == 1:
        return statuses[0]
    if "Approved" in statuses:
        return "Partially Approved"
    return "Pended" if "Pended" in statuses else "Denied"


def _apply(request: PrecertRequest, decision: Determination, session: Session) -> None:
    request.status, request.decision_reason = decision.status, decision.reason
    request.duplicate_of = decision.duplicate_of
    request.approved_units, request.approved_start = decision.approved_units, decision.approved_start
    request.approved_end = decision.approved_end
    request.denied_on = clock.today() if decision.status == "Denied" else None
    if decision.status == "Approved" and request.authorization_number is None:
        request.authorization_number = next_authorization_number(session)
    request.updated_at = clock.now()


def _answers(session: Session, form, subscriber_id: str, code: str) -> dict:
    """The form's clinical answers, with the Step Therapy and Continuation of Therapy sections' where
    they were answered (a continuation also with the response the policy reads, derived)."""
    steps = {key: value for key, value in form.step_answers().items() if value is not None}
    continuation = form.continuation_answers()
    if continuation:
        continuation |= response_answers(session, subscriber_id, code, {
            "baseline_das28": continuation["baseline_das28"], "current_das28": continuation["current_das28"],
            "baseline_das28_date": form.baseline_das28_date.data,
            "current_das28_date": form.current_das28_date.data}, clock.today())
    return form.clinical_answers() | steps | continuation


def record_request(session: Session, form, found: CheckedReferences, source: str = PORTAL_SOURCE) -> PrecertRequest:
    """Determine and store a new request with its attachments (caller commits)."""
    subscriber = found.subscriber
    submission = Submission(
        subscriber_id=subscriber.subscriber_id, service_code=form.service_code.data.strip().upper(),
        units=form.units.data, diagnosis_codes=tuple(split_codes(form.diagnosis_codes.data)),
        start_date=form.start_date.data, end_date=form.end_date.data,
        clinical=_answers(session, form, subscriber.subscriber_id, form.service_code.data.strip().upper()),
        document_types=frozenset(kind for kind, _ in found.uploads), place_of_service=form.place_of_service.data,
        received_on=clock.today())
    decision = determine(session, submission, subscriber)
    policy = found.policy
    if policy is not None and submission.clinical.get("continuation_of"):  # judged by the renewal's own policy
        policy = continuation_policy(session, submission.service_code) or policy
    lines = [(submission.service_code, submission.units, decision)]
    for code, units in form.extra_lines():
        line_submission = replace(submission, service_code=code, units=units)
        lines.append((code, units, determine(session, line_submission, subscriber)))
    now = clock.now()
    request = PrecertRequest(
        reference_number=next_precert_reference(session), subscriber_id=subscriber.subscriber_id,
        patient_name=subscriber.full_name, service_code=submission.service_code, units=submission.units,
        diagnosis_codes=list(submission.diagnosis_codes), rendering_npi=form.rendering_npi.data.strip(),
        referring_npi=(form.referring_npi.data or "").strip() or None, place_of_service=form.place_of_service.data,
        urgency=form.urgency.data, start_date=submission.start_date, end_date=submission.end_date,
        clinical=submission.clinical, clinical_summary=form.clinical_summary.data.strip(),
        contact_name=form.contact_name.data.strip(), contact_phone=_digits(form.contact_phone.data),
        policy_number=policy.policy_number if policy else None, status="", decision_reason="",
        source=source, submitted_by=current_username(), submitted_at=now, updated_at=now,
        decision_due=decision_due(form.urgency.data, now), admission_type=form.admission_type.data,
        retro=submission.start_date < now.date())
    _apply(request, decision, session)
    session.add(request)
    if len(lines) > 1:
        statuses = [line_decision.status for _, _, line_decision in lines]
        request.status = _overall_status(statuses)
        if "Approved" in statuses and request.authorization_number is None:
            request.authorization_number = next_authorization_number(session)
        for line_no, (code, units, line_decision) in enumerate(lines, start=1):
            session.add(PrecertLine(reference_number=request.reference_number, line_no=line_no, service_code=code,
                                    units=units, status=line_decision.status, reason=line_decision.reason,
                                    approved_units=line_decision.approved_units))
    add_event(session, request, f"Submitted: {request.status}",
              f"{request.urgency} review; decision due {request.decision_due:%d-%b-%Y %H:%M}.",
              current_username(), now)
    for document_type, upload in found.uploads:
        store_attachment("precert", request.reference_number, document_type, upload)
    return request


def add_information(session: Session, request: PrecertRequest, answers: dict, document_type: str,
                    upload: PdfUpload) -> None:
    """Attach a document to a pended request, merge corrected answers, decide again (caller commits)."""
    store_attachment("precert", request.reference_number, document_type, upload)
    session.flush()
    clinical = dict(request.clinical)
    clinical.update({key: value for key, value in answers.items() if value not in (None, "")})
    request.clinical = clinical
    types = frozenset(session.scalars(select(Attachment.document_type).where(
        Attachment.owner_type == "precert", Attachment.owner_id == request.reference_number)))
    submission = Submission(subscriber_id=request.subscriber_id, service_code=request.service_code,
                            units=request.units, diagnosis_codes=tuple(request.diagnosis_codes),
                            start_date=request.start_date, end_date=request.end_date, clinical=clinical,
                            document_types=types, place_of_service=request.place_of_service,
                            received_on=request.submitted_at.date())
    _apply(request, determine(session, submission, session.get(Subscriber, request.subscriber_id),
                              exclude=request.reference_number), session)


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())
