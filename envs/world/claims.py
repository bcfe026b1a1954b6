"""Payer-side history: authorizations on file, adjudicated claims and remittances.

Denials follow how they happen in practice: services done without an auth on the
claim come back CO-197 (sometimes an auth existed, which makes the denial appealable),
the rest get a realistic mix of clerical and clinical denials.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from .clinical import DONE, OPEN
from .identifiers import UniqueIds
from .models import (Adjustment, Authorization, Claim, ClaimLine, Coverage, Encounter, Facility,
                     Order, Payer, Remittance)
from .people import billing_coverage

_BASE_CHARGE = {"imaging": (850, 3200), "procedure": (1200, 9000), "drug": (18, 95), "dme": (180, 1400),
                "sleep": (900, 2600), "therapy": (45, 90), "lab": (25, 140), "office": (110, 320)}
# (group, carc, rarc) for denials of a service line, with relative weights.
_DENIALS = ((("CO", "50", "N386"), 5), (("CO", "16", "N290"), 3), (("CO", "16", "M127"), 2),
            (("CO", "16", "MA130"), 1), (("CO", "97", "N20"), 3), (("CO", "29", None), 3),
            (("CO", "4", "N657"), 2), (("CO", "11", "M76"), 2), (("CO", "167", "N130"), 1),
            (("CO", "18", None), 1), (("OA", "22", "MA04"), 1), (("CO", "204", "N130"), 1),
            (("CO", "151", "N362"), 1))


class PayerHistory:
    """Builds authorizations, claims and remittances from the chart."""

    def __init__(self, rng: random.Random, anchor: date, payers: tuple[Payer, ...],
                 coverages: dict[str, Coverage], facilities: tuple[Facility, ...]):
        self.rng, self.anchor = rng, anchor
        self.payers = {p.id: p for p in payers}
        self.coverages = coverages
        self.by_mrn: dict[str, list[Coverage]] = {}
        for coverage in coverages.values():
            self.by_mrn.setdefault(coverage.mrn, []).append(coverage)
        self.facilities = {f.id: f for f in facilities}
        self.ids = UniqueIds(rng)
        self.authorizations: list[Authorization] = []
        self.claims: list[Claim] = []
        self.remittances: list[Remittance] = []

    # ---- authorizations -------------------------------------------------------
    def authorize(self, order: Order, status: str, decided: date) -> Authorization:
        coverage = self.coverages[order.coverage_id]
        code = self.payers[coverage.payer_id].payer_code[:3]
        auth = Authorization(
            auth_number=self.ids.draw(lambda r: f"{code}{decided:%y}{r.randrange(100000, 999999)}"),
            payer_id=coverage.payer_id, member_id=coverage.member_id, mrn=order.mrn,
            code=order.code, units=order.units, start=order.planned_date - timedelta(days=3),
            end=order.planned_date + timedelta(days=self.rng.choice((30, 60, 90, 180))),
            status=status, order_id=order.id,
            case_number=self.ids.draw(lambda r: f"CS{r.randrange(10000000, 99999999)}"),
        )
        self.authorizations.append(auth)
        return auth

    def add_open_order_auth(self, order: Order) -> None:
        """Some open orders already have a request on file (duplicate / status-check cases)."""
        if not order.needs_auth or self.rng.random() >= 0.16:
            return
        status = self.rng.choices(("Approved", "Pended", "Denied", "Cancelled"), (5, 3, 2, 1))[0]
        self.authorize(order, status, order.ordered_on + timedelta(days=self.rng.randrange(0, 3)))

    # ---- claims ---------------------------------------------------------------
    def _charge(self, category: str, units: int) -> float:
        low, high = _BASE_CHARGE[category]
        return round(self.rng.uniform(low, high) * units, 2)

    def _paid_line(self, line_no: int, code: str, units: int, charge: float, dx, payer_share: float,
                   modifiers=()) -> ClaimLine:
        rng = self.rng
        allowed = round(charge * payer_share, 2)
        patient = round(allowed * rng.choice((0.0, 0.1, 0.2, 0.2)), 2)
        adjustments = [Adjustment("CO", "45", None, round(charge - allowed, 2))]
        if patient:
            adjustments.append(Adjustment("PR", rng.choice(("1", "2", "2", "3")), None, patient))
        return ClaimLine(line_no, code, tuple(modifiers), units, charge, tuple(dx),
                         round(allowed - patient, 2), tuple(adjustments))

    def _denied_line(self, line_no, code, units, charge, dx, denial, modifiers=()) -> ClaimLine:
        group, carc, rarc = denial
        return ClaimLine(line_no, code, tuple(modifiers), units, charge, tuple(dx), 0.0,
                         (Adjustment(group, carc, rarc, charge),))

    def bill(self, order: Order | None, enc: Encounter, code: str, category: str, units: int,
             coverage: Coverage, service_date: date) -> None:
        """Create one claim (and its remittance unless it is still pending)."""
        rng = self.rng
        payer = self.payers[coverage.payer_id]
        facility = self.facilities[order.facility_id if order else enc.facility_id]
        dx = order.diagnosis_codes if order else enc.diagnosis_codes
        auth_number, denial = None, None
        if order and order.needs_auth:
            on_file = self.authorize(order, "Approved", order.ordered_on + timedelta(days=rng.randrange(1, 5))) \
                if rng.random() < 0.78 else None
            if on_file and rng.random() < 0.8:
                auth_number = on_file.auth_number
            elif rng.random() < 0.85:
                denial = ("CO", "197", rng.choice((None, "N54", "M62")))
        roll = rng.random()
        if denial is None and roll < 0.2:
            denial = rng.choices(*zip(*_DENIALS))[0]
        status = "Denied" if denial else ("Partially Paid" if roll > 0.9 else "Paid")
        late = denial is not None and denial[1] == "29"
        submitted = service_date + timedelta(days=rng.randrange(200, 400) if late else rng.randrange(2, 21))
        paid_on = submitted + timedelta(days=rng.randrange(12, 35))
        if paid_on > self.anchor or (rng.random() < 0.05 and submitted < self.anchor):
            status, denial = "Pending", None
        share = rng.uniform(0.42, 0.68)
        charge = self._charge(category, units)
        modifiers = ("26",) if category == "imaging" and rng.random() < 0.2 else ()
        lines: list[ClaimLine]
        if status == "Pending":
            lines = [ClaimLine(1, code, modifiers, units, charge, dx, 0.0, ())]
        elif status == "Denied":
            if denial[1] == "97":
                # Bundling denies the add-on line and pays the primary visit.
                visit = self._charge("office", 1)
                lines = [self._paid_line(1, "99214", 1, visit, dx, share),
                         self._denied_line(2, code, units, charge, dx, denial, modifiers)]
                status = "Partially Paid"
            else:
                lines = [self._denied_line(1, code, units, charge, dx, denial, modifiers)]
        elif status == "Partially Paid":
            lines = [self._paid_line(1, code, units, charge, dx, share, modifiers),
                     self._denied_line(2, "99214", 1, self._charge("office", 1), dx, ("CO", "97", "N20"))]
        else:
            lines = [self._paid_line(1, code, units, charge, dx, share, modifiers)]
        claim = Claim(
            claim_number=self.ids.draw(lambda r: f"CLM{service_date:%y}-{r.randrange(1000000, 9999999):07d}"),
            mrn=coverage.mrn, payer_id=payer.id, coverage_id=coverage.id, member_id=coverage.member_id,
            service_date=service_date, billing_npi=facility.npi,
            rendering_npi=order.ordering_npi if order else enc.provider_npi, facility_id=facility.id,
            submitted_on=submitted, total_charge=round(sum(line.charge for line in lines), 2),
            status=status, lines=tuple(lines), order_id=order.id if order else None, auth_number=auth_number,
        )
        self.claims.append(claim)
        if status != "Pending":
            self._remit(claim, payer, paid_on)

    def _remit(self, claim: Claim, payer: Payer, paid_on: date) -> None:
        patient = round(sum(a.amount for line in claim.lines for a in line.adjustments if a.group == "PR"), 2)
        eft = self.rng.random() < 0.8
        self.remittances.append(Remittance(
            id=f"ERA-{paid_on:%y%m%d}-{len(self.remittances) + 1:05d}", claim_number=claim.claim_number,
            payer_id=payer.id, paid_on=paid_on,
            check_number=self.ids.draw(lambda r: f"EFT{r.randrange(10**9, 10**10)}" if eft
                                       else f"{r.randrange(100000, 999999)}"),
            paid_amount=claim.paid_amount, patient_responsibility=patient,
            appeal_deadline=paid_on + timedelta(days=payer.timely_appeal_days),
        ))

    def process(self, orders, order_state: dict[str, str], encounters) -> None:
        """Walk the chart in order: open orders may have auths, done orders get claims."""
        enc_by_id = {e.id: e for e in encounters}
        for order in orders:
            state = order_state[order.id]
            if state == OPEN:
                self.add_open_order_auth(order)
            elif state == DONE:
                self.bill(order, enc_by_id[order.encounter_id], order.code, order.category, order.units,
                          self.coverages[order.coverage_id], order.planned_date)
        for enc in encounters:
            if enc.kind == "Office Visit" and self.rng.random() < 0.07 and enc.date < self.anchor - timedelta(days=20):
                coverage = self._coverage_on(enc.mrn, enc.date)
                self.bill(None, enc, self.rng.choice(("99213", "99214")), "office", 1, coverage, enc.date)

    def _coverage_on(self, mrn: str, day: date) -> Coverage:
        return billing_coverage(self.by_mrn[mrn], day)
