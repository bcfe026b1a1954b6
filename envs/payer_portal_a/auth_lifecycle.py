"""What an office can do with a request after the determination: withdraw a pending one,
change an approved one (extension, date change, units increase), ask for a
peer-to-peer on a denial or file a pre-service appeal. Each `*_refusal` says why the
payer will not accept the action (nothing is written then); each action writes its row,
a history event and a letter."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.documents.stored_files import stored_file_values
from admindesk.envs.common.documents.uploads import PdfUpload
from admindesk.envs.payer_portal_a import numbering
from admindesk.envs.payer_portal_a.letters import add_letter
from admindesk.envs.payer_portal_a.lifecycle_models import AuthAppeal, AuthChange, PeerToPeer
from admindesk.envs.payer_portal_a.models import PaAttachment, PaRequest, PaServiceLine, PaStatusEvent
from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.envs.payer_portal_a.rules.determination import AUTHORIZED_STATUSES, PARTIALLY_APPROVED, PENDED, WITHDRAWN
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for, timing
from admindesk.envs.payer_portal_a.rules.preservice_decisions import decide_preservice_appeal

CHANGE_KINDS = ("Extension", "Date change", "Units increase")
DENIED_STATUSES = ("Denied", PARTIALLY_APPROVED)
OPEN_P2P = ("Slots Offered", "Scheduled")
SLOT_TIMES = (time(10, 0), time(13, 30), time(16, 0))
UPDATE_CATEGORY = "Authorization Update"


def _event(pa: PaRequest, status: str, note: str, username: str) -> None:
    pa.history.append(PaStatusEvent(at=clock.now(), status=status, note=note, username=username))


def _letter(session: Session, pa: PaRequest, subject: str, body: str) -> None:
    add_letter(session, pa.payer, pa.member_id, pa.member_name, UPDATE_CATEGORY, subject, body, clock.now(),
               case_number=pa.case_number)


# ---- withdraw -----------------------------------------------------------------------
def withdraw_refusal(pa: PaRequest) -> str | None:
    if pa.status != PENDED:
        return (f"Only a pending request can be withdrawn; case {pa.case_number} is {pa.status}. "
                "An approved authorization that is no longer needed expires unused.")
    return None


def withdraw(session: Session, pa: PaRequest, reason: str, username: str) -> None:
    pa.status, pa.decision_reason, pa.decided_at = WITHDRAWN, f"Withdrawn by the provider's office: {reason}", clock.now()
    pa.missing_items = None
    for line in pa.lines:
        line.status, line.decision_reason = WITHDRAWN, pa.decision_reason
    _event(pa, WITHDRAWN, reason, username)
    _letter(session, pa, f"Request withdrawn - case {pa.case_number}",
            f"At your office's request, the prior authorization request {pa.case_number} for {pa.member_name} "
            f"(member ID {pa.member_id}) was withdrawn on {clock.now():%m/%d/%Y}. No determination will be made. "
            f"Reason given: {reason}")


# ---- changes to an approved authorization ---------------------------------------------
def line_span(pa: PaRequest, line: PaServiceLine) -> tuple[date, date, int]:
    """(start, end, units) approved for a line; lines decided as a whole use the request's."""
    return (line.approved_start or pa.approved_start, line.approved_end or pa.approved_end,
            line.approved_units if line.approved_units is not None else pa.approved_units)


def changeable_refusal(pa: PaRequest, line: PaServiceLine | None, today: date) -> str | None:
    """Why this authorization line cannot be changed at all (not approved, expired), or None."""
    if pa.status not in AUTHORIZED_STATUSES:
        return f"Only an approved authorization can be changed; case {pa.case_number} is {pa.status}."
    if line is None or line.decision != "Approved":
        return "Select a service line that was approved."
    end = line_span(pa, line)[1]
    if end < today:
        return (f"Authorization {pa.auth_number} expired on {end:%m/%d/%Y}; it cannot be changed. "
                "Submit a new request for further services.")
    return None


def change_refusal(pa: PaRequest, line: PaServiceLine | None, kind: str, new_start: date | None,
                   new_end: date | None, new_units: int | None, today: date) -> str | None:
    """Why the payer refuses the change, quoting the rule or the policy limit, or None."""
    refusal = changeable_refusal(pa, line, today)
    if refusal:
        return refusal
    start, end, units = line_span(pa, line)
    service = load_policy().service(line.code)
    max_days = service.approval_days if service else 90
    if kind == "Extension":
        if new_end is None or new_end <= end:
            return f"Enter a new end date after the current end date {end:%m/%d/%Y}."
        limit = start + timedelta(days=2 * max_days - 1)
        if new_end > limit:
            return (f"The medical policy allows one extension of at most {max_days} days for {line.code}: the "
                    f"authorization can run through {limit:%m/%d/%Y} at the latest.")
    elif kind == "Date change":
        if new_start is None or new_end is None:
            return "Enter the new start and end dates."
        if new_start < today:
            return "The new start date cannot be in the past."
        if new_end < new_start:
            return "The new end date must be on or after the new start date."
        if (new_start, new_end) == (start, end):
            return "The new dates are the same as the approved dates."
        if (new_end - new_start).days + 1 > max_days:
            return f"The medical policy approves {line.code} for at most {max_days} days at a time."
    elif kind == "Units increase":
        if new_units is None or new_units <= units:
            return f"Enter a number of units greater than the {units} approved."
        if service and service.approval_units is not None and new_units > service.approval_units:
            return (f"The medical policy allows at most {service.approval_units} unit(s) of {line.code} per "
                    "authorization; a units increase beyond that needs a new request.")
    else:
        return "Select the kind of change."
    return None


def document_refusal(kind: str, attached: bool) -> str | None:
    """More units are granted on the clinical note that orders them; dates move on the reason alone."""
    if kind == "Units increase" and not attached:
        return ("A units increase is reviewed on the ordering provider's note that orders the added units: "
                "attach it (PDF) as the supporting document.")
    return None


# The stage the case's documents show for a document sent with a change or a pre-service appeal.
CHANGE_STAGE = "Change request"
APPEAL_STAGE = "Pre-service appeal"


def apply_change(session: Session, pa: PaRequest, line: PaServiceLine, kind: str, new_start: date | None,
                 new_end: date | None, new_units: int | None, reason: str, username: str,
                 document: tuple[PdfUpload, str] | None = None) -> AuthChange:
    """Store an accepted change (with its supporting `document`, an upload and its type, filed
    to the case's documents) and update the approved line (and the request's summary)."""
    start, end, units = line_span(pa, line)
    after_start = new_start if kind == "Date change" else start
    after_end = new_end if kind in ("Extension", "Date change") else end
    after_units = new_units if kind == "Units increase" else units
    change = AuthChange(change_number=numbering.auth_change_number(session), request_id=pa.id,
                        case_number=pa.case_number, auth_number=pa.auth_number, line_no=line.line_no, kind=kind,
                        old_start=start, old_end=end, old_units=units, new_start=after_start, new_end=after_end,
                        new_units=after_units, reason=reason, status="Approved", requested_at=clock.now(),
                        requested_by=username)
    session.add(change)
    _file_document(pa, document, CHANGE_STAGE, username)
    line.approved_start, line.approved_end, line.approved_units = after_start, after_end, after_units
    if line is next(ln for ln in pa.lines if ln.decision == "Approved"):
        pa.approved_start, pa.approved_end, pa.approved_units = after_start, after_end, after_units
    summary = (f"{kind} {change.change_number} approved for line {line.line_no} ({line.code}): now {after_units} "
               f"unit(s), {after_start:%m/%d/%Y} through {after_end:%m/%d/%Y} (was {units} unit(s), "
               f"{start:%m/%d/%Y} through {end:%m/%d/%Y}).")
    _event(pa, f"{kind} approved", summary, username)
    _letter(session, pa, f"Authorization updated - {pa.auth_number}",
            f"Authorization {pa.auth_number} for {pa.member_name} (member ID {pa.member_id}) was updated.\n\n"
            f"{summary}\n\nReason given: {reason}")
    return change


# ---- peer to peer ---------------------------------------------------------------------
def peer_to_peer_refusal(session: Session, pa: PaRequest, today: date) -> str | None:
    if pa.status not in DENIED_STATUSES or pa.decided_at is None:
        return f"A peer-to-peer can be requested for a denied request only; case {pa.case_number} is {pa.status}."
    open_call = session.scalar(select(PeerToPeer).where(PeerToPeer.request_id == pa.id,
                                                        PeerToPeer.status.in_(OPEN_P2P)))
    if open_call:
        return f"Peer-to-peer {open_call.reference_number} is already {open_call.status.lower()} for this case."
    days = rules_for(pa.payer_id).peer_to_peer_days
    last_day = pa.decided_at.date() + timedelta(days=days)
    if last_day < today:
        return (f"{pa.payer.name} offers a peer-to-peer within {days} days of the denial (by {last_day:%m/%d/%Y}). "
                "File a pre-service appeal instead.")
    return None


def offered_slots(now: datetime) -> list[str]:
    """One slot on each of the next three business days, at the reviewers' call times."""
    slots, day = [], now.date()
    while len(slots) < len(SLOT_TIMES):
        day += timedelta(days=1)
        if day.weekday() < 5:
            slots.append(datetime.combine(day, SLOT_TIMES[len(slots)]).isoformat())
    return slots


def request_peer_to_peer(session: Session, pa: PaRequest, physician: str, phone: str, username: str) -> PeerToPeer:
    call = PeerToPeer(reference_number=numbering.peer_to_peer_reference(session), request_id=pa.id,
                      case_number=pa.case_number, physician_name=physician, callback_phone=phone,
                      offered_slots=offered_slots(clock.now()), status="Slots Offered", requested_at=clock.now(),
                      requested_by=username)
    session.add(call)
    _event(pa, "Peer-to-peer requested", f"{call.reference_number}: {len(call.offered_slots)} slots offered.", username)
    return call


def schedule_refusal(call: PeerToPeer, slot: str) -> str | None:
    if call.status != "Slots Offered":
        return f"Peer-to-peer {call.reference_number} is {call.status.lower()}; no slot can be chosen now."
    if slot not in call.offered_slots:
        return "Choose one of the offered slots."
    return None


def schedule(session: Session, call: PeerToPeer, slot: str, username: str) -> None:
    """Book the chosen slot; the payer assigns the reviewer who holds that slot."""
    directors = rules_for(call.request.payer_id).medical_directors
    call.scheduled_at = datetime.fromisoformat(slot)
    call.reviewer_name = directors[call.offered_slots.index(slot) % len(directors)]
    call.status = "Scheduled"
    pa = call.request
    note = (f"{call.reference_number} scheduled for {call.scheduled_at:%m/%d/%Y %H:%M} with {call.reviewer_name}; "
            f"{pa.payer.name} calls {call.physician_name} at {call.callback_phone}.")
    _event(pa, "Peer-to-peer scheduled", note, username)
    _letter(session, pa, f"Peer-to-peer scheduled - case {pa.case_number}", note)


def record_peer_to_peer_outcome(call: PeerToPeer, outcome: str, note: str) -> None:
    """The result of a completed call (cases that carry one set it; the call is off-portal)."""
    call.status, call.outcome, call.outcome_note = "Completed", outcome, note
    _event(call.request, "Peer-to-peer completed", f"{call.reference_number}: {outcome}. {note}", "payer")


# ---- pre-service appeal ------------------------------------------------------------------
def preservice_appeal_refusal(session: Session, pa: PaRequest, today: date) -> str | None:
    if pa.status not in DENIED_STATUSES or pa.decided_at is None:
        return f"A pre-service appeal can be filed on a denied request only; case {pa.case_number} is {pa.status}."
    if session.scalar(select(AuthAppeal).where(AuthAppeal.request_id == pa.id, AuthAppeal.status == "In Review")):
        return f"A pre-service appeal of case {pa.case_number} is already in review."
    window = pa.payer.timely_appeal_days
    last_day = pa.decided_at.date() + timedelta(days=window)
    if last_day < today:
        return (f"{pa.payer.name} accepts appeals within {window} days of the denial (by {last_day:%m/%d/%Y}); "
                "the window has passed.")
    return None


def file_preservice_appeal(session: Session, pa: PaRequest, urgency: str, argument: str, contact: str, phone: str,
                           username: str, document: tuple[PdfUpload, str] | None = None) -> AuthAppeal:
    """Store the appeal (with its supporting `document`, an upload and its type, filed to the
    case's documents), acknowledge it, and decide it now when the payer's rules say so."""
    common = timing()
    due = (clock.now() + timedelta(hours=common.expedited_appeal_hours) if urgency == "Expedited"
           else clock.now() + timedelta(days=common.standard_preservice_appeal_days))
    appeal = AuthAppeal(reference_number=numbering.auth_appeal_reference(session), request_id=pa.id,
                        case_number=pa.case_number, urgency=urgency, argument=argument, contact_name=contact,
                        contact_phone=phone, status="In Review", decision_due_at=due, submitted_at=clock.now(),
                        submitted_by=username)
    session.add(appeal)
    appeal.request = pa
    _file_document(pa, document, APPEAL_STAGE, username)
    note = f"{urgency} pre-service appeal {appeal.reference_number} received; decision due {due:%m/%d/%Y %H:%M}."
    _event(pa, "Appeal received", note, username)
    _letter(session, pa, f"Pre-service appeal received - {appeal.reference_number}", note)
    if rules_for(pa.payer_id).immediate_preservice_appeal:
        decide_preservice_appeal(session, appeal)
    return appeal


def _file_document(pa: PaRequest, document: tuple[PdfUpload, str] | None, stage: str, username: str) -> None:
    """File a supporting document (an upload and its type) sent at `stage` to the case's documents."""
    if document is not None:
        upload, document_type = document
        pa.attachments.append(PaAttachment(document_type=document_type, **stored_file_values(upload),
                                           stage=stage, uploaded_at=clock.now(), uploaded_by=username))
