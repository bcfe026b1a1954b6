"""Subscriber eligibility, shared by the portal's lookup form (views/eligibility.py) and the FHIR
eligibility exchange (`CoverageEligibilityRequest/$submit`, pas/): the same subscriber match,
the same `eligibility_inquiries` row and the same audit, whichever channel asks.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username
from admindesk.envs.payer_portal_b.models import EligibilityInquiry, Subscriber
from admindesk.envs.payer_portal_b.numbering import next_inquiry_id

NOT_FOUND = "No subscriber matches this Subscriber ID and date of birth. Check the member's card."


def record_inquiry(session: Session, subscriber_id: str, dob: date, service_date: date | None) \
        -> EligibilityInquiry | None:
    """The subscriber's coverage on `service_date` (today when None), logged as an inquiry and
    audited as `check_eligibility`; None, audited as `eligibility_not_found` with nothing
    written, when no subscriber has this ID and date of birth."""
    subscriber_id = subscriber_id.strip().upper()
    subscriber = session.get(Subscriber, subscriber_id)
    if subscriber is None or subscriber.dob != dob:
        describe(action="eligibility_not_found", record_type="subscriber", record_id=subscriber_id)
        return None
    service_date = service_date or clock.today()
    inquiry = EligibilityInquiry(
        inquiry_id=next_inquiry_id(session), subscriber_id=subscriber_id, dob=dob,
        service_date=service_date, result="Active" if subscriber.active_on(service_date) else "Inactive",
        plan_id=subscriber.plan_id, requested_by=current_username(), requested_at=clock.now())
    session.add(inquiry)
    session.commit()
    describe(action="check_eligibility", record_type="subscriber", record_id=subscriber_id,
             inquiry_id=inquiry.inquiry_id, result=inquiry.result)
    return inquiry
