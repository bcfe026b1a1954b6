"""The determination engine: what the payer decides about a submitted request.

Deterministic and driven by the medical policy data. A duplicate of an active request
on file is refused as a whole. Otherwise each service line is decided on its own, in
order: coverage not active on its start date; no authorization needed for the plan and
place of service; diagnosis not covered; a required document missing (pended, naming
it); a criterion not met (denied with its reason); approved. The request is Approved,
Partially Approved, Denied, Pended or Not Required from its lines.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_a.models import Member, PaRequest, PaServiceLine
from admindesk.envs.payer_portal_a.policy import MedicalPolicy, condition_holds

APPROVED, PENDED, DENIED, DUPLICATE, NOT_REQUIRED = "Approved", "Pended", "Denied", "Duplicate", "Not Required"
PARTIALLY_APPROVED, WITHDRAWN = "Partially Approved", "Withdrawn"
# Statuses under which the request carries an auth number for its approved lines.
AUTHORIZED_STATUSES = (APPROVED, PARTIALLY_APPROVED)
# Requests that still stand: a new one for the same service would be a duplicate.
ACTIVE_STATUSES = (APPROVED, PARTIALLY_APPROVED, PENDED)


@dataclass
class Determination:
    """The outcome of one evaluation; `missing_items` names what a pend waits for."""

    status: str
    reason: str
    missing_items: list[str] = field(default_factory=list)
    approved_units: int | None = None
    approved_start: date | None = None
    approved_end: date | None = None
    duplicate_of: str | None = None
    lines: list[Determination] = field(default_factory=list)  # one per service line


def _overlaps(line: PaServiceLine, other: PaRequest) -> bool:
    if other.status == APPROVED and other.approved_start and other.approved_end:
        return line.from_date <= other.approved_end and other.approved_start <= line.to_date
    return any(line.from_date <= o.to_date and o.from_date <= line.to_date for o in other.lines if o.code == line.code)


def find_duplicates(session: Session, request: PaRequest) -> list[PaRequest]:
    """Active requests on file for the same member, payer, code and overlapping dates."""
    if not request.member_id or not request.lines:
        return []
    codes = {line.code for line in request.lines}
    candidates = session.scalars(
        select(PaRequest).join(PaServiceLine)
        .where(PaRequest.member_id == request.member_id, PaRequest.payer_id == request.payer_id,
               PaRequest.status.in_(ACTIVE_STATUSES), PaRequest.id != request.id,
               PaServiceLine.code.in_(codes))
        .order_by(PaRequest.id).distinct())
    return [other for other in candidates
            if any(_overlaps(line, other) for line in request.lines
                   if line.code in {o.code for o in other.lines})]


def evaluate(session: Session, request: PaRequest, policy: MedicalPolicy, *,
             check_duplicates: bool = True) -> Determination:
    """Decide a submitted request: every service line on its own, then the request as a whole."""
    if check_duplicates:
        duplicates = find_duplicates(session, request)
        if duplicates:
            first = duplicates[0]
            return Determination(DUPLICATE, f"Duplicate of case {first.case_number} ({first.status}) for the "
                                            "same member, service and dates. No new determination was made.",
                                 duplicate_of=first.case_number)
    member = session.get(Member, request.coverage_id) if request.coverage_id else None
    attached = {a.document_type for a in request.attachments}
    decisions = [_evaluate_line(line, member, attached, request.answers or {}, policy) for line in request.lines]
    return _combine(request.lines, decisions)


def _evaluate_line(line: PaServiceLine, member: Member | None, attached: set[str], answers: dict,
                   policy: MedicalPolicy) -> Determination:
    if member is None or not member.active_on(line.from_date):
        return Determination(DENIED, f"Member coverage is not active on the requested start date "
                                     f"{line.from_date:%m/%d/%Y}.")
    service = policy.service(line.code)
    if service is None or not service.requires_auth(member.plan.product, line.place_of_service, member.plan.payer_id):
        return Determination(NOT_REQUIRED, f"Prior authorization is not required for {line.code} under "
                                           f"{member.plan.name} at place of service {line.place_of_service}.")
    if not any(service.covers(code) for code in line.diagnosis_codes):
        return Determination(DENIED, f"The diagnosis codes submitted ({', '.join(line.diagnosis_codes)}) are "
                                     f"not covered indications for {line.code} under the medical policy.")
    missing = [doc for doc in service.required_documents if doc not in attached]
    if missing:
        return Determination(PENDED, "Pended for additional information: " + "; ".join(missing)
                             + ". Upload the missing documentation to this case.", missing_items=missing)
    for criterion in service.criteria:
        if not condition_holds(criterion.require, answers):
            return Determination(DENIED, criterion.deny_reason)
    units = line.units if service.approval_units is None else min(line.units, service.approval_units)
    end = min(line.to_date, line.from_date + timedelta(days=service.approval_days - 1))
    return Determination(APPROVED, "Criteria met. The request is approved as shown.", approved_units=units,
                         approved_start=line.from_date, approved_end=end)


def _combine(lines: list[PaServiceLine], decisions: list[Determination]) -> Determination:
    """The request's status from its lines'; a one-line request reads exactly as its line."""
    if len(decisions) == 1:
        only = decisions[0]
        return Determination(only.status, only.reason, list(only.missing_items), only.approved_units,
                             only.approved_start, only.approved_end, lines=decisions)
    pended = [d for d in decisions if d.status == PENDED]
    if pended:
        missing = list(dict.fromkeys(item for d in pended for item in d.missing_items))
        for decision in decisions:  # no line is approved while the request waits for information
            if decision.status == APPROVED:
                decision.status, decision.reason = PENDED, "Reviewed with the request once the information arrives."
                decision.approved_units = decision.approved_start = decision.approved_end = None
        return Determination(PENDED, "Pended for additional information: " + "; ".join(missing)
                             + ". Upload the missing documentation to this case.", missing_items=missing, lines=decisions)
    reviewed = [(line, d) for line, d in zip(lines, decisions) if d.status != NOT_REQUIRED]
    if not reviewed:
        return Determination(NOT_REQUIRED, decisions[0].reason, lines=decisions)
    approved = [d for _, d in reviewed if d.status == APPROVED]
    summary = " ".join(f"Line {line.line_no} ({line.code}): {d.status.lower()}"
                       + ("." if d.status == APPROVED else f" - {d.reason}") for line, d in reviewed)
    status = APPROVED if len(approved) == len(reviewed) else PARTIALLY_APPROVED if approved else DENIED
    first = approved[0] if approved else Determination(status, "")
    reason = "Criteria met. The request is approved as shown." if status == APPROVED else summary
    return Determination(status, reason, approved_units=first.approved_units, approved_start=first.approved_start,
                         approved_end=first.approved_end, lines=decisions)


def apply(request: PaRequest, outcome: Determination, auth_number: str | None) -> None:
    """Copy an outcome onto the request and its lines (the caller sets times, history and letters)."""
    request.status = outcome.status
    request.decision_reason = outcome.reason
    request.missing_items = outcome.missing_items or None
    request.duplicate_of = outcome.duplicate_of
    request.auth_number = auth_number if outcome.status in AUTHORIZED_STATUSES else None
    request.approved_units = outcome.approved_units
    request.approved_start = outcome.approved_start
    request.approved_end = outcome.approved_end
    for line, decision in zip(request.lines, outcome.lines):
        line.status, line.decision_reason = decision.status, decision.reason
        line.approved_units, line.approved_start = decision.approved_units, decision.approved_start
        line.approved_end = decision.approved_end
