"""Keystone Mutual's site-of-care rule for infused specialty drugs (medical policy KM-RX-510).

A drug the policy names is infused in the office's infusion suite (place of service 11) or
at home (12). A hospital outpatient department (19 off campus, 22 on campus) is approved
only when the request states one of the policy's reasons the member needs the hospital
setting, which the chart must document:

- a severe reaction to a prior infusion (anaphylaxis, respiratory distress, seizure,
  arrhythmia or hypotension that needed emergency treatment), or repeated moderate
  reactions despite premedication;
- a medically unstable cardiac or pulmonary condition that puts the member at risk of a
  severe reaction during the infusion;
- the member's first infusion of the drug, or the first after 6 months or more without it.

Without a reason the request is pended for site-of-care review: the provider documents the
reason, or the infusion is requested again at a non-hospital site. The policy applies to
requests received on or after its effective date; an approval issued before then stands.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.models import MedicalPolicy, PolicyCode

HOSPITAL_PLACES = {"19": "off-campus outpatient hospital", "22": "on-campus outpatient hospital"}
HOSPITAL_SITE_REASONS = ("Severe reaction to a prior infusion", "Unstable cardiac or pulmonary condition",
                         "First infusion or restart after 6 months")
NO_REASON = "None documented"


def site_of_care_policy(session: Session, code: str) -> MedicalPolicy | None:
    """The site-of-care policy that governs where `code` is infused, or None."""
    link = session.get(PolicyCode, code)
    return session.get(MedicalPolicy, link.site_of_care_policy) if link and link.site_of_care_policy else None


def site_of_care_problem(session: Session, code: str, place_of_service: str | None, received_on: date,
                         reason: str | None) -> str | None:
    """Why a request for `code` at `place_of_service` is pended under the site-of-care policy
    (None: the policy does not apply, or the hospital setting has an accepted reason)."""
    policy = site_of_care_policy(session, code)
    if policy is None or place_of_service not in HOSPITAL_PLACES or received_on < policy.effective_date:
        return None
    if reason in HOSPITAL_SITE_REASONS:
        return None
    return (f"Pended for site-of-care review under medical policy {policy.policy_number} ({policy.title}): "
            f"{code} at place of service {place_of_service} ({HOSPITAL_PLACES[place_of_service]}) needs a "
            "documented reason the member requires the hospital setting. Send clinical notes that document it "
            "with the reason, or withdraw this request and request the infusion at the office (11) or home (12).")
