"""Faxes already waiting in the health system's inbox: payer determinations and
requests for information, supplier confirmations, and everyday noise.

A denial letter quotes the criterion the request failed; a request for information asks
for the records the service needs. Each fax carries everything its stored PDF is rendered
from (id, caller number, CSID, arrival time, page texts), so the fax app stores the same bytes
and sha256 for it in every build. The subject a sender writes is on its cover sheet or letter
only: the fax server never knows it.

A payer's letter or a supplier's confirmation answers a request this office faxed earlier
(`faxed_request`): the fax app's outbox shows those sends, and the world audit checks that
each one was faxed on or after its order's date and before the answer arrived."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta

from admindesk.envs.world.documents import us_date
from admindesk.envs.world.identifiers import phone_number
from admindesk.envs.world.models import Authorization, Facility, InboundFax, Order, Patient, Payer, Provider, Supplier
from admindesk.envs.world.org import AREA_CODES
from admindesk.envs.world.review_rules import service_rule
from admindesk.envs.world.world import World

_MISC = (
    ("Medical records request", "Records request from {org} for date of service {day}: please send office notes "
     "and imaging reports for the patient named on the cover sheet. Authorization to release is enclosed."),
    ("Pharmacy refill request", "Refill request from {org} for a maintenance medication. Please sign and return "
     "the attached form or call the pharmacy with questions."),
    ("Seminar announcement", "{org} invites your staff to a revenue cycle webinar on prior authorization changes. "
     "No patient information is included in this transmission."),
)
_MISC_ORGS = ("Hartley & Voss Legal Records Services", "Main Street Pharmacy", "Blue Ridge Compounding Pharmacy",
              "Revenue Cycle Learning Group", "Conestoga Valley Physical Therapy")


# The CSID each payer's utilization management fax machine transmits, as its owner set it: terse,
# blank on one, and on another still the name the plan had before it rebranded.
_PAYER_STATIONS = {"PYR-KMH": "KEYSTONE UM", "PYR-NWH": "NORTHWIND UM", "PYR-CSH": "CASCADE SUMMIT UM",
                   "PYR-HSA": "HARBORVIEW MA UM", "PYR-PSM": "", "PYR-ACH": "ATLAS CHOICE",
                   "PYR-SLH": "PINNACLE HEALTH UM"}
_MISC_STATIONS = {"Hartley & Voss Legal Records Services": "HV LEGAL RECORDS", "Main Street Pharmacy": "",
                  "Blue Ridge Compounding Pharmacy": "BLUE RIDGE RX", "Revenue Cycle Learning Group": "RCLG",
                  "Conestoga Valley Physical Therapy": "CVPT LANCASTER"}
CSID_LENGTH = 20


def payer_station(payer: Payer) -> str:
    """The CSID of a payer's UM fax machine (a payer not in the table: its first name word + UM)."""
    return _PAYER_STATIONS.get(payer.id, f"{payer.name.split()[0].upper()} UM")[:CSID_LENGTH]


def supplier_station(name: str) -> str:
    """The CSID a DME supplier's machine sends: its name in capitals, cut to a CSID's 20
    characters (the fax app's supplier replies use the same rule)."""
    return name.upper()[:CSID_LENGTH].rstrip()


_CONFIDENTIAL = ("CONFIDENTIAL: This transmission may contain protected health information. If you are not "
                 "the intended recipient, notify the sender by telephone and destroy all copies.")


def _phone(digits: str) -> str:
    return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}"


def cover_sheet(organization: str, from_name: str, from_number: str, to_name: str, to_number: str,
                subject: str, total_pages: int, patient: Patient | None = None) -> str:
    """The cover page a sender puts in front of a fax: its letterhead, the routing block, a
    confidentiality line (and, for records requests, the patient the request is about).
    It carries no date: the transmit header above every page does, and a task's case may
    move a fax's arrival."""
    about = f"Patient: {patient.full_name}   DOB: {us_date(patient.dob)}\n" if patient else ""
    return (f"{organization}\nFAX COVER SHEET\n\nTo: {to_name}\nFax: {_phone(to_number)}\nFrom: {from_name}\n"
            f"Fax: {_phone(from_number)}\nPages: {total_pages} (including cover)\nRe: {subject}\n{about}\n{_CONFIDENTIAL}")


class FaxInbox:
    """Builds the inbox, newest last, received within the 45 days before the anchor."""

    def __init__(self, rng: random.Random, anchor: datetime, payers: tuple[Payer, ...],
                 facilities: tuple[Facility, ...], providers: tuple[Provider, ...]):
        self.rng, self.anchor = rng, anchor
        self.payers = {p.id: p for p in payers}
        self.facilities = {f.id: f for f in facilities}
        self.providers = {p.npi: p for p in providers}
        self.faxes: list[InboundFax] = []

    def _received(self, not_before: date) -> datetime:
        # Inbox items arrived on earlier days, never on the morning the world is frozen at.
        last = self.anchor.date() - timedelta(days=1)
        earliest = min(max(not_before, last - timedelta(days=44)), last)
        day = earliest + timedelta(days=self.rng.randrange((last - earliest).days + 1))
        return datetime.combine(day, time(self.rng.randrange(7, 18), self.rng.randrange(60)))

    def _after_order_day(self, received: datetime, order: Order) -> datetime:
        """An answer to a request faxed once the order was signed arrives after the order's day
        (as late as yesterday); moved after the draw, so that the rest of the world keeps its draws."""
        last = datetime.combine(self.anchor.date() - timedelta(days=1), received.time())
        return max(received, min(datetime.combine(order.ordered_on + timedelta(days=1), received.time()), last))

    def _add(self, from_number, from_name, to_number, received, csid, kind, mrn, pages) -> None:
        self.faxes.append(InboundFax(
            id=f"FAX-{len(self.faxes) + 1:06d}", from_number=from_number, from_name=from_name,
            to_number=to_number, received_at=received, csid=csid, kind=kind, mrn=mrn,
            pages_text=tuple(pages)))

    def determination(self, auth: Authorization, order: Order, patient: Patient,
                      approved_description: str = "") -> None:
        """Approval, denial or request-for-information letter for an auth on file; a modified
        approval's letter says what was requested and what was approved (`approved_description`:
        the approved code's description when it is not the ordered one)."""
        payer = self.payers[auth.payer_id]
        provider = self.providers[order.ordering_npi]
        received = self._received(auth.start - timedelta(days=10))
        received = self._after_order_day(received, order)
        ident = (f"Patient: {patient.full_name}   DOB: {us_date(patient.dob)}\n"
                 f"Member ID: {auth.member_id}   Case number: {auth.case_number}\n"
                 f"Requesting provider: {provider.display_name}, NPI {provider.npi}\n"
                 f"Service: {order.code} {order.description}, {auth.units} unit(s)")
        if auth.status == "Pended":
            kind, subject = "request_for_information", f"Additional information needed - case {auth.case_number}"
            rule = service_rule(auth.code)
            # A request written by hand (a task's case) may leave the items to the service's needs.
            items = "; ".join(auth.requested_items or ((rule.records_needed,) if rule else ("the office notes",)))
            body = (f"{payer.name} has pended this request. To complete our review, fax {items} to "
                    f"{payer.pa_fax} within 14 days, referencing the case number above. If we do not receive it "
                    "the request may be denied.")
        elif auth.status == "Approved" and auth.modified:
            kind, subject = "determination_letter", f"Authorization partially approved - {auth.auth_number}"
            description = approved_description if auth.approved_code else order.description
            body = (f"The request above is PARTIALLY APPROVED. Requested: {order.code} {order.description}, "
                    f"{auth.units} unit(s). Approved: {auth.granted_code} {description}, {auth.granted_units} "
                    f"unit(s). Authorization number: {auth.auth_number}. Valid from {us_date(auth.start)} through "
                    f"{us_date(auth.end)}. The service as requested is not authorized beyond what is approved "
                    f"here. The ordering provider may request a peer-to-peer discussion by calling {payer.phone} "
                    f"or appeal within {payer.timely_appeal_days} days by fax to {payer.appeals_fax}.")
        elif auth.status == "Approved":
            kind, subject = "determination_letter", f"Authorization approved - {auth.auth_number}"
            body = (f"The service above is approved. Authorization number: {auth.auth_number}. Approved units: "
                    f"{auth.units}. Valid from {us_date(auth.start)} through {us_date(auth.end)}. Approval is "
                    "not a guarantee of payment; benefits depend on eligibility on the date of service.")
        else:
            kind, subject = "determination_letter", f"Adverse determination - case {auth.case_number}"
            reason = auth.decision_reason or "The documentation submitted does not support medical necessity."
            body = (f"The request is denied. Reason: {reason} You may request a peer-to-peer "
                    f"discussion by calling {payer.phone} or appeal within {payer.timely_appeal_days} days by fax "
                    f"to {payer.appeals_fax}.")
        facility = self.facilities[order.facility_id]
        sender = f"{payer.name} Utilization Management"
        letter = (f"{payer.name}\nUtilization Management\n{subject}\n\n{ident}", body)
        cover = cover_sheet(payer.name, sender, payer.pa_fax, facility.name, facility.fax, subject,
                            len(letter) + 1)
        self._add(payer.pa_fax, sender, facility.fax, received, payer_station(payer), kind, patient.mrn,
                  (cover, *letter))

    def supplier_confirmation(self, supplier: Supplier, order: Order, patient: Patient) -> None:
        facility = self.facilities[order.facility_id]
        received = self._received(order.ordered_on)
        delivery = received.date() + timedelta(days=self.rng.randrange(2, 8))
        received = self._after_order_day(received, order)
        self._add(supplier.fax, supplier.name, facility.fax, received, supplier_station(supplier.name),
                  "supplier_confirmation", patient.mrn,
                  (f"{supplier.name}\nOrder received - {patient.last_name}, {order.code}\n\n"
                   f"{supplier.name} confirms receipt of the order for {patient.full_name} "
                   f"(DOB {us_date(patient.dob)}): {order.code} {order.description}, quantity {order.units}. "
                   f"Delivery is scheduled for {us_date(delivery)}. Supplier reference SO-{self.rng.randrange(100000, 999999)}.",))

    def misc(self, patient: Patient | None, facility: Facility) -> None:
        subject, template = self.rng.choice(_MISC)
        org = self.rng.choice(_MISC_ORGS)
        received = self._received(self.anchor.date() - timedelta(days=45))
        mrn = patient.mrn if patient and subject != "Seminar announcement" else None
        number = phone_number(self.rng, AREA_CODES)
        message = template.format(org=org, day=us_date(received.date() - timedelta(days=30)))
        cover = cover_sheet(org, org, number, facility.name, facility.fax, subject, 2,
                            patient if mrn else None)  # the cover and the message
        self._add(number, org, facility.fax, received, _MISC_STATIONS.get(org, "")[:CSID_LENGTH], "misc", mrn,
                  (cover, message))

    def finish(self) -> tuple[InboundFax, ...]:
        """Sort by arrival and renumber so ids follow the inbox order."""
        ordered = sorted(self.faxes, key=lambda f: (f.received_at, f.id))
        return tuple(replace(f, id=f"FAX-{i + 1:06d}") for i, f in enumerate(ordered))



# The kinds of received faxes that answer a request this office faxed, with the request's kind.
ANSWERED_REQUESTS = {"determination_letter": "prior_auth", "request_for_information": "prior_auth",
                     "supplier_confirmation": "dme_order"}
# A failed first attempt was resent this long after it was queued.
RESEND_AFTER = timedelta(minutes=40)
# The least time between a request's last send and the answer to it.
ANSWER_AFTER = timedelta(hours=2)
# A faxed prior-auth request was queued in this window (start, minutes) on its order's day, so
# that with a resend it went through before 09:40, before the payers' portals log it received
# (portal A at 10:30, Keystone at 10:00 of the order's day).
PA_REQUEST_WINDOW = (time(7, 30), 90)
_CASE_NUMBER = re.compile(r"Case number: (\S+)")
# A supplier's confirmation opens with its heading, "Order received - <last name>, <code>".
_CONFIRMED_ORDER = re.compile(r"^Order received - .+, (\S+)$", re.M)


@dataclass(frozen=True)
class FaxedRequest:
    """The send a received fax answers: its kind, when it was queued, and when its resend
    was queued (None when the first attempt went through)."""

    kind: str
    queued_at: datetime
    resent_at: datetime | None

    @property
    def last_queued(self) -> datetime:
        return self.resent_at or self.queued_at


def answered_authorization(world: World, fax: InboundFax) -> Authorization | None:
    """The request on file a payer's letter is about, found by the case number it quotes."""
    numbers = set(_CASE_NUMBER.findall("\n".join(fax.pages_text)))
    return next((a for a in world.authorizations if a.case_number in numbers), None)


def answered_order(world: World, fax: InboundFax) -> Order | None:
    """The order a payer's letter (by its case number) or a supplier's confirmation (by the
    patient and the code in its subject) is about, if the world holds it."""
    if fax.kind == "supplier_confirmation":
        heading = _CONFIRMED_ORDER.search(fax.pages_text[0])
        code = heading.group(1) if heading else None
        return next((o for o in world.orders if o.mrn == fax.mrn and o.code == code), None)
    auth = answered_authorization(world, fax)
    return world.order(auth.order_id) if auth is not None and auth.order_id else None


def faxed_request(world: World, fax: InboundFax) -> FaxedRequest | None:
    """The request this office faxed that `fax` answers (None for a fax that answers nothing,
    or a payer's letter about a request filed on the payer's portal), derived from the fax's
    id and arrival. A prior-auth request went out the morning its order was signed (in
    PA_REQUEST_WINDOW), before the payer logged it in; a supplier's confirmation answers a
    packet faxed the day before, but not before the order; an answer on the order's own day
    answers a packet sent that morning, ANSWER_AFTER before it. Every third request failed once
    and was resent. (An answer that arrived before its request was sent, or a request sent
    before its order, is the world audit's to report.)"""
    kind = ANSWERED_REQUESTS.get(fax.kind)
    if kind is None:
        return None
    number = int(fax.id.rsplit("-", 1)[1])
    resend = RESEND_AFTER if number % 3 == 0 else None
    if kind == "prior_auth":
        auth = answered_authorization(world, fax)
        order = world.order(auth.order_id) if auth is not None and auth.order_id else None
        if order is None or auth.channel != "Fax":
            return None
        queued = datetime.combine(order.ordered_on, PA_REQUEST_WINDOW[0]) + timedelta(
            minutes=(number * 37) % PA_REQUEST_WINDOW[1])
        return FaxedRequest(kind, queued, queued + resend if resend else None)
    order = answered_order(world, fax)
    day = fax.received_at.date() - timedelta(days=1)
    if order is not None:
        day = max(day, order.ordered_on)
    queued = datetime.combine(day, time(8, 0)) + timedelta(minutes=(number * 37) % 480)
    if day == fax.received_at.date():
        queued = min(queued, fax.received_at - ANSWER_AFTER - (resend or timedelta()))
    return FaxedRequest(kind, queued, queued + resend if resend else None)
