"""Correspondence: the letters a payer sends about a case or an appeal, and their PDFs."""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_a import numbering
from admindesk.envs.payer_portal_a.models import Appeal, Letter, PaRequest, Payer

PENDED_CATEGORY = "Request for Additional Information"
APPROVAL_CATEGORY = "Authorization Approval"
DENIAL_CATEGORY = "Adverse Determination"
APPEAL_CATEGORY = "Appeal Acknowledgement"


def _service_text(request: PaRequest) -> str:
    return "; ".join(f"line {line.line_no}: {line.code} x {line.units} unit(s), {line.from_date:%m/%d/%Y} to "
                     f"{line.to_date:%m/%d/%Y}, diagnoses {', '.join(line.diagnosis_codes)}" for line in request.lines)


def _line_outcomes(request: PaRequest) -> str:
    """Each line's own decision: approved units and span, or the criterion that failed."""
    rows = []
    for line in request.lines:
        if line.decision == "Approved":
            units = line.approved_units if line.approved_units is not None else request.approved_units
            start, end = line.approved_start or request.approved_start, line.approved_end or request.approved_end
            rows.append(f"  Line {line.line_no} {line.code}: APPROVED, {units} unit(s), {start:%m/%d/%Y} through "
                        f"{end:%m/%d/%Y}")
        else:
            rows.append(f"  Line {line.line_no} {line.code}: {line.decision.upper()} - "
                        f"{line.decision_reason or request.decision_reason}")
    return "\n".join(rows)


def appeal_rights(payer: Payer, sent_at: datetime) -> str:
    """The payer's own appeal window, as a sentence with its last day."""
    last_day = sent_at.date() + timedelta(days=payer.timely_appeal_days)
    return (f"You may request a peer-to-peer discussion, or file an appeal within {payer.timely_appeal_days} days "
            f"of this notice (by {last_day:%m/%d/%Y}) in the provider portal or by fax to {payer.appeals_fax}.")


def external_review_rights(payer: Payer, sent_at: datetime) -> str:
    """After an upheld level 2: the independent external review, its window and how to ask for it."""
    last_day = sent_at.date() + timedelta(days=payer.timely_appeal_days)
    return (f"For a medical necessity denial you may request an external review by an independent review "
            f"organization within {payer.timely_appeal_days} days of this notice (by {last_day:%m/%d/%Y}): file it "
            f"in the provider portal as a clinical appeal at the External review level, with the medical records "
            f"that support the service. The reviewer's decision is final.")


def determination_letter(session: Session, request: PaRequest, sent_at: datetime) -> Letter | None:
    """The letter a determination produces (none for duplicates or no-auth-required)."""
    payer = request.payer
    service = _service_text(request)
    if request.status == "Pended":
        items = "\n".join(f"  - {item}" for item in (request.missing_items or []))
        category, subject = PENDED_CATEGORY, f"Additional information needed - case {request.case_number}"
        body = (f"We received the prior authorization request for {request.member_name} (member ID "
                f"{request.member_id}) for {service}.\n\nWe cannot make a decision until we receive:\n{items}\n\n"
                "Upload the documents to the case in the provider portal (Authorizations > Status inquiry > "
                f"case {request.case_number} > Add documents) or fax them to {payer.pa_fax}. If we do not "
                "receive them within 14 days the request may be denied for lack of information.")
    elif request.status == "Approved":
        category, subject = APPROVAL_CATEGORY, f"Authorization approved - {request.auth_number}"
        body = (f"The prior authorization request for {request.member_name} (member ID {request.member_id}) "
                f"for {service} is APPROVED.\n\nAuthorization number: {request.auth_number}\nApproved units: "
                f"{request.approved_units}\nValid from {request.approved_start:%m/%d/%Y} through "
                f"{request.approved_end:%m/%d/%Y}.\n\nAuthorization is not a guarantee of payment; benefits "
                "are subject to eligibility on the date of service.")
    elif request.status == "Partially Approved":
        category, subject = DENIAL_CATEGORY, f"Authorization partially approved - {request.auth_number}"
        body = (f"The prior authorization request for {request.member_name} (member ID {request.member_id}) is "
                f"PARTIALLY APPROVED under authorization number {request.auth_number}.\n\n"
                f"{_line_outcomes(request)}\n\nFor the denied line(s): {appeal_rights(payer, sent_at)}")
    elif request.status == "Denied":
        category, subject = DENIAL_CATEGORY, f"Prior authorization denied - case {request.case_number}"
        body = (f"The prior authorization request for {request.member_name} (member ID {request.member_id}) "
                f"for {service} is DENIED.\n\nReason: {request.decision_reason}\n\n{appeal_rights(payer, sent_at)}")
    else:
        return None
    return add_letter(session, payer, request.member_id, request.member_name, category, subject, body,
                      sent_at, case_number=request.case_number)


def appeal_acknowledgement(session: Session, appeal: Appeal, payer: Payer, member_name: str,
                           sent_at: datetime) -> Letter:
    body = (f"We received your {appeal.appeal_type.lower()} for claim {appeal.claim_number} on "
            f"{appeal.submitted_at:%m/%d/%Y}. Reference number: {appeal.reference_number}.\n\nReason given: "
            f"{appeal.reason}.\nWe will send our decision by {appeal.decision_due:%m/%d/%Y}. Send additional "
            f"records to the appeals fax {payer.appeals_fax}, quoting the reference number.")
    return add_letter(session, payer, appeal.member_id, member_name, APPEAL_CATEGORY,
                      f"Appeal received - {appeal.reference_number}", body, sent_at,
                      claim_number=appeal.claim_number, appeal_reference=appeal.reference_number)


def add_letter(session: Session, payer: Payer, member_id: str, member_name: str, category: str,
               subject: str, body: str, sent_at: datetime, **references) -> Letter:
    letter = Letter(letter_number=numbering.letter_number(session), payer_id=payer.id, member_id=member_id,
                    member_name=member_name, category=category, subject=subject, body=body,
                    sent_at=sent_at, **references)
    session.add(letter)
    return letter


def letter_pdf(letter: Letter) -> bytes:
    """The letter as a PDF (same letter, same bytes)."""
    payer = letter.payer
    fields = [("Letter number", letter.letter_number), ("Date", f"{letter.sent_at:%m/%d/%Y}"),
              ("Member", f"{letter.member_name} ({letter.member_id})")]
    for label, value in (("Case number", letter.case_number), ("Claim number", letter.claim_number),
                         ("Appeal reference", letter.appeal_reference)):
        if value:
            fields.append((label, value))
    return render_pdf(letter.subject, fields, letter.body,
                      letterhead=f"{payer.name}\nUtilization Management - phone {payer.phone} - fax {payer.pa_fax}",
                      footer=payer.name)
