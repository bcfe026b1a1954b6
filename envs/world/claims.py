"""Payer-side history: authorizations on file, adjudicated claims and remittances.

Everything follows the payer's rules (`review_rules`): a request on file is approved
when the order's chart facts meet the payer's criteria and denied, quoting the failed
criterion, when they do not; a denial that contradicts the rules is made on purpose and
labelled. Claims are checked the way a payer checks them: coverage on the date of
service (CO-26/CO-27), an auth where the payer requires one (CO-197), then a realistic
mix of clerical and clinical denials that fit the claim (see `claim_lines`). DME is
billed by the supplier that delivered it.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from admindesk.envs.world.claim_lines import (
    ADMINISTRATION,
    BASE_CHARGE,
    DEFAULT_ADMINISTRATION,
    EVALUATION_AND_MANAGEMENT,
    denied_line,
    paid_line,
    pending_line,
    pick_denial,
)
from admindesk.envs.world.clinical import DONE, OPEN
from admindesk.envs.world.identifiers import UniqueIds, case_number_format
from admindesk.envs.world.laterality import JOINT_CODES, side_modifier
from admindesk.envs.world.models import (
    Authorization,
    Claim,
    ClaimLine,
    Coverage,
    Document,
    Encounter,
    Facility,
    Order,
    Payer,
    Plan,
    Remittance,
    Supplier,
)
from admindesk.envs.world.people import billing_coverage
from admindesk.envs.world.review_rules import (
    COVERAGE_INACTIVE,
    MET,
    NOT_MET,
    NOT_REVIEWED,
    Review,
    review,
    service_rule,
)

# Supplier category of each DME code the world orders.
SUPPLIER_CATEGORY = {"E0601": "cpap", "E1390": "oxygen", "K0001": "mobility", "E0143": "mobility",
                     "E0260": "beds", "E2103": "diabetes", "A9276": "diabetes", "A4239": "diabetes"}
DENIED_ALTHOUGH_MET = "denied_although_criteria_met"
# A claim filed this many days or more after its service is past every payer's filing limit.
LATE_FILING_DAYS = 200
_GENERIC_DENIAL = "The documentation submitted does not support medical necessity under our clinical policy."


class PayerHistory:
    """Builds authorizations, claims and remittances from the chart."""

    def __init__(self, rng: random.Random, anchor: date, payers: tuple[Payer, ...],
                 coverages: dict[str, Coverage], facilities: tuple[Facility, ...], *,
                 plans: tuple[Plan, ...], suppliers: tuple[Supplier, ...]):
        self.rng, self.anchor = rng, anchor
        self.payers = {p.id: p for p in payers}
        self.products = {p.id: p.product for p in plans}
        self.coverages = coverages
        self.by_mrn: dict[str, list[Coverage]] = {}
        for coverage in coverages.values():
            self.by_mrn.setdefault(coverage.mrn, []).append(coverage)
        self.facilities = {f.id: f for f in facilities}
        self.suppliers = suppliers
        self.ids = UniqueIds(rng)
        self.facts: dict[str, dict[str, str]] = {}
        self.supplier_for: dict[str, Supplier] = {}
        self.authorizations: list[Authorization] = []
        self.claims: list[Claim] = []
        self.remittances: list[Remittance] = []

    # ---- authorizations -------------------------------------------------------
    def review(self, order: Order, day: date) -> Review:
        """The payer's rules applied to the order's chart facts for service on `day`."""
        coverage = self.coverages[order.coverage_id]
        return review(order.code, self.payers[coverage.payer_id].portal, self.products[coverage.plan_id],
                      self.facts.get(order.id, {}), coverage.active_on(day))

    def authorize(self, order: Order, status: str, decided: date, *, reason: str = "",
                  failed_criterion: str | None = None, deliberate_error: str | None = None,
                  requested_items: tuple[str, ...] = ()) -> Authorization:
        coverage = self.coverages[order.coverage_id]
        code = self.payers[coverage.payer_id].payer_code[:3]
        auth = Authorization(
            auth_number=self.ids.draw(lambda r: f"{code}{decided:%y}{r.randrange(100000, 999999)}"),
            payer_id=coverage.payer_id, member_id=coverage.member_id, mrn=order.mrn,
            code=order.code, units=order.units, start=order.planned_date - timedelta(days=3),
            end=order.planned_date + timedelta(days=self.rng.choice((30, 60, 90, 180))),
            status=status, order_id=order.id,
            case_number=self.ids.draw(lambda r: case_number_format(self.payers[coverage.payer_id].portal, decided,
                                                                   r.randrange(10000000, 99999999))),
            decision_reason=reason, failed_criterion=failed_criterion, deliberate_error=deliberate_error,
            requested_items=requested_items,
        )
        self.authorizations.append(auth)
        return auth

    def decide(self, order: Order, outcome: Review, decided: date) -> Authorization:
        """A decided request: approved when the criteria are met, else denied quoting the failed one."""
        if outcome.outcome == MET:
            return self.authorize(order, "Approved", decided, reason=outcome.reason)
        return self.authorize(order, "Denied", decided, reason=outcome.reason, failed_criterion=outcome.criterion_id)

    def add_open_order_auth(self, order: Order) -> None:
        """Some open orders already have a request on file (duplicate / status-check cases)."""
        if not order.needs_auth or self.rng.random() >= 0.16:
            return
        outcome = self.review(order, order.planned_date - timedelta(days=3))
        if outcome.outcome == NOT_REVIEWED:
            return
        decided = order.ordered_on + timedelta(days=self.rng.randrange(0, 3))
        kind = self.rng.choices(("decided", "Pended", "Cancelled", "wrong denial"), (8, 3, 1, 1))[0]
        if kind == "Pended":
            self.authorize(order, "Pended", decided, reason="Pended for additional information.",
                           requested_items=(service_rule(order.code).records_needed,))
        elif kind == "Cancelled":
            self.authorize(order, "Cancelled", decided, reason="Request cancelled by the provider's office.")
        elif kind == "wrong denial" and outcome.outcome == MET:
            # A reviewer's error the coordinator can overturn: it cites a criterion the chart meets.
            first = service_rule(order.code).criteria[self.payers[self.coverages[order.coverage_id].payer_id].portal]
            self.authorize(order, "Denied", decided, reason=first[0].deny_reason if first else _GENERIC_DENIAL,
                           failed_criterion=first[0].id if first else None, deliberate_error=DENIED_ALTHOUGH_MET)
        else:
            self.decide(order, outcome, decided)

    # ---- claims ---------------------------------------------------------------
    def _charge(self, category: str, units: int) -> float:
        low, high = BASE_CHARGE[category]
        return round(self.rng.uniform(low, high) * units, 2)

    def _submitted_lines(self, code: str, category: str, units: int, dx) -> list[ClaimLine]:
        """What the provider billed: the service, plus administration and a same-day visit for drugs."""
        rng = self.rng
        modifiers = ("26",) if category == "imaging" and rng.random() < 0.2 else ()
        side = side_modifier(dx) if code in JOINT_CODES else None
        if side:
            modifiers += (side,)
        lines = [ClaimLine(1, code, modifiers, units, self._charge(category, units), tuple(dx), 0.0, ())]
        if category == "drug":
            administration = ADMINISTRATION.get(code, DEFAULT_ADMINISTRATION)
            lines.append(ClaimLine(2, administration, (), 1, self._charge("procedure", 1) / 4, tuple(dx), 0.0, ()))
            if rng.random() < 0.7:
                # A separately identifiable visit the same day needs modifier 25; offices forget it.
                visit_modifiers = ("25",) if rng.random() < 0.5 else ()
                lines.append(ClaimLine(3, rng.choice(("99213", "99214")), visit_modifiers, 1,
                                       self._charge("office", 1), tuple(dx), 0.0, ()))
        return [ClaimLine(l.line_no, l.code, l.modifiers, l.units, round(l.charge, 2), l.diagnosis_codes, 0.0, ())
                for l in lines]

    def _other_coverage_active(self, coverage: Coverage, day: date) -> bool:
        return any(c.id != coverage.id and c.active_on(day) for c in self.by_mrn[coverage.mrn])

    def bill(self, order: Order | None, enc: Encounter, code: str, category: str, units: int,
             coverage: Coverage, service_date: date) -> None:
        """Create one claim (and its remittance unless it is still pending)."""
        rng = self.rng
        product = self.products[coverage.plan_id]
        auth_number, denial = None, None
        if not coverage.active_on(service_date):
            before = service_date < coverage.effective
            denial = ("CO", "26" if before else "27", None)
        elif order is not None:
            # The request would have asked for service from three days before the planned date.
            outcome = self.review(order, order.planned_date - timedelta(days=3))
            if outcome.outcome != NOT_REVIEWED:
                decided = order.ordered_on + timedelta(days=rng.randrange(1, 5))
                if outcome.outcome == MET and rng.random() < 0.9:
                    on_file = self.decide(order, outcome, decided)
                    if rng.random() < 0.85:
                        auth_number = on_file.auth_number
                    else:
                        # An auth exists but the claim lacks its number: an appealable CO-197.
                        denial = ("CO", "197", rng.choice((None, "M62")))
                else:
                    if outcome.outcome in (NOT_MET, COVERAGE_INACTIVE) and rng.random() < 0.5:
                        self.decide(order, outcome, decided)
                    denial = ("CO", "197", None)
        if denial is None and rng.random() < 0.22:
            denial = pick_denial(rng, product=product, units=units, has_auth=auth_number is not None,
                                 other_coverage_active=self._other_coverage_active(coverage, service_date))
        # Nothing is submitted after the world's today: a service too recent to be filed late
        # cannot be a timely-filing denial, so it is denied for missing information instead.
        days_until_today = (self.anchor - service_date).days
        if denial is not None and denial[1] == "29" and days_until_today < LATE_FILING_DAYS:
            denial = ("CO", "16", "MA130")
        late = denial is not None and denial[1] == "29"
        if late:
            lag = rng.randrange(LATE_FILING_DAYS, min(400, days_until_today + 1))
        else:
            lag = min(rng.randrange(2, 21), days_until_today)
        submitted = service_date + timedelta(days=lag)
        paid_on = submitted + timedelta(days=rng.randrange(12, 35))
        pending = paid_on > self.anchor or (rng.random() < 0.05 and submitted < self.anchor)
        dx = order.diagnosis_codes if order else enc.diagnosis_codes
        submitted_lines = self._submitted_lines(code, category, units, dx)
        original = None
        if not pending and denial is not None and denial[1] == "18":
            original = self._original_of_duplicate(order, enc, coverage, service_date, submitted_lines,
                                                   auth_number, category)
            submitted = min(original.submitted_on + timedelta(days=rng.randrange(20, 45)), self.anchor)
            paid_on = submitted + timedelta(days=rng.randrange(7, 20))
            pending = paid_on > self.anchor
        if pending:
            lines, status = [pending_line(line) for line in submitted_lines], "Pending"
        elif denial is not None:
            lines, status = [denied_line(line, denial) for line in submitted_lines], "Denied"
        else:
            lines = self._adjudicate(submitted_lines, self.payers[coverage.payer_id])
            status = "Paid" if all(line.paid > 0 for line in lines) else "Partially Paid"
        self._add_claim(order, enc, coverage, service_date, submitted, status, lines, auth_number, category,
                        paid_on, original.claim_number if original and not pending else None)

    def _adjudicate(self, submitted: list[ClaimLine], payer: Payer) -> list[ClaimLine]:
        """Pay each line at the payer's contracted share (drawn per claim where no share is
        published); an E/M without modifier 25 next to a procedure is bundled into it (CO-97)."""
        drawn = self.rng.uniform(0.42, 0.68)  # drawn either way: the rest of the world stays as it was
        share = payer.allowed_share or drawn
        has_procedure = any(line.code not in EVALUATION_AND_MANAGEMENT for line in submitted)
        lines = []
        for line in submitted:
            if line.code in EVALUATION_AND_MANAGEMENT and "25" not in line.modifiers and has_procedure:
                lines.append(denied_line(line, ("CO", "97", "N20")))
            else:
                lines.append(paid_line(self.rng, line.line_no, line.code, line.units, line.charge,
                                       line.diagnosis_codes, share, line.modifiers))
        return lines

    def _original_of_duplicate(self, order, enc, coverage, service_date, submitted_lines, auth_number,
                               category) -> Claim:
        """The paid claim a CO-18 duplicate repeats (same service, date and lines)."""
        submitted = service_date + timedelta(days=self.rng.randrange(2, 15))
        paid_on = submitted + timedelta(days=self.rng.randrange(12, 25))
        lines = self._adjudicate(submitted_lines, self.payers[coverage.payer_id])
        status = "Paid" if all(line.paid > 0 for line in lines) else "Partially Paid"
        return self._add_claim(order, enc, coverage, service_date, submitted, status, lines, auth_number,
                               category, paid_on, None)

    def _billing_npi(self, order: Order | None, enc: Encounter, category: str) -> str:
        if order is not None and category == "dme":
            return self.dme_supplier(order).npi
        return self.facilities[order.facility_id if order else enc.facility_id].npi

    def dme_supplier(self, order: Order) -> Supplier:
        """The supplier that fills (and bills) a DME order, chosen once per order."""
        if order.id not in self.supplier_for:
            category = SUPPLIER_CATEGORY[order.code]
            self.supplier_for[order.id] = self.rng.choice([s for s in self.suppliers if category in s.categories])
        return self.supplier_for[order.id]

    def _add_claim(self, order, enc, coverage, service_date, submitted, status, lines, auth_number, category,
                   paid_on, original_claim_number) -> Claim:
        payer = self.payers[coverage.payer_id]
        facility = self.facilities[order.facility_id if order else enc.facility_id]
        claim = Claim(
            claim_number=self.ids.draw(lambda r: f"CLM{service_date:%y}-{r.randrange(1000000, 9999999):07d}"),
            mrn=coverage.mrn, payer_id=payer.id, coverage_id=coverage.id, member_id=coverage.member_id,
            service_date=service_date, billing_npi=self._billing_npi(order, enc, category),
            rendering_npi=order.ordering_npi if order else enc.provider_npi, facility_id=facility.id,
            submitted_on=submitted, total_charge=round(sum(line.charge for line in lines), 2),
            status=status, lines=tuple(lines), order_id=order.id if order else None, auth_number=auth_number,
            original_claim_number=original_claim_number,
        )
        self.claims.append(claim)
        if status != "Pending":
            self._remit(claim, payer, paid_on)
        return claim

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

    def process(self, orders, order_state: dict[str, str], encounters, documents: tuple[Document, ...] = ()) -> None:
        """Walk the chart in order: open orders may have auths, done orders get claims.

        `documents` give each order its chart facts, which the payer's rules read.
        """
        for document in documents:
            if document.order_id:
                self.facts.setdefault(document.order_id, {}).update(document.facts)
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
