"""The `World` container and its lookups."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from admindesk.envs.world.models import (
    Accident,
    Appeal,
    Authorization,
    Claim,
    CodeSets,
    Coverage,
    Document,
    Encounter,
    Facility,
    InboundFax,
    InpatientNotice,
    Order,
    Patient,
    Payer,
    Plan,
    Provider,
    ProviderEnrollment,
    Referral,
    Remittance,
    StaffAccount,
    Supplier,
)


def _group(records, key: str) -> dict[str, tuple]:
    grouped: dict[str, list] = {}
    for record in records:
        grouped.setdefault(getattr(record, key), []).append(record)
    return {k: tuple(v) for k, v in grouped.items()}


@dataclass(frozen=True)
class World:
    """Everything the four apps seed from. Tuples are in a stable, seed-determined order.

    Lookup methods build their indexes on first use (cached on the instance, outside
    the compared fields, so two worlds built from one seed still compare equal).
    """

    seed: int
    payers: tuple[Payer, ...]
    plans: tuple[Plan, ...]
    patients: tuple[Patient, ...]
    coverages: tuple[Coverage, ...]
    facilities: tuple[Facility, ...]
    providers: tuple[Provider, ...]
    suppliers: tuple[Supplier, ...]
    codes: CodeSets
    staff: tuple[StaffAccount, ...]
    encounters: tuple[Encounter, ...]
    orders: tuple[Order, ...]
    documents: tuple[Document, ...]
    claims: tuple[Claim, ...]
    remittances: tuple[Remittance, ...]
    authorizations: tuple[Authorization, ...]
    faxes: tuple[InboundFax, ...]
    # Appeals on file: the background world makes none (portal B lays its own history); a case may.
    appeals: tuple[Appeal, ...] = ()
    # PCP referrals on file at a payer: the background world makes none; a case may.
    referrals: tuple[Referral, ...] = ()
    # Inpatient admissions notified to a payer: the background world makes none; a case may.
    inpatient_notices: tuple[InpatientNotice, ...] = ()
    # Accident / injury registrations (workers' compensation, liability): the background world makes none; a case may.
    accidents: tuple[Accident, ...] = ()
    # Clinicians' payer enrollments other than the default (every clinician participates with every
    # payer): the background world makes none; a case may (envs/common/enrollment.py reads them).
    provider_enrollments: tuple[ProviderEnrollment, ...] = ()
    # Facilities outside the health system an order sends a service to: the background world has none; a
    # case may (its `sites`, in network with the payers whose enrollments name them).
    outside_sites: tuple[Facility, ...] = ()

    __hash__ = object.__hash__  # CodeSets holds dicts; identity hashing keeps World usable as a key.

    @cached_property
    def _index(self) -> dict[str, dict]:
        return {
            "patient": {p.mrn: p for p in self.patients},
            "payer": {p.id: p for p in self.payers},
            "plan": {p.id: p for p in self.plans},
            "provider": {p.npi: p for p in self.providers},
            "facility": {f.id: f for f in self.facilities + self.outside_sites},
            "supplier": {s.id: s for s in self.suppliers},
            "order": {o.id: o for o in self.orders},
            "claim": {c.claim_number: c for c in self.claims},
            "coverage": {c.id: c for c in self.coverages},
            "coverages_for": _group(self.coverages, "mrn"),
            "documents_for": _group(self.documents, "mrn"),
            "orders_for": _group(self.orders, "mrn"),
            "claims_for": _group(self.claims, "mrn"),
            "encounters_for": _group(self.encounters, "mrn"),
            "staff_for": _group(self.staff, "app"),
            "remittance_for": {r.claim_number: r for r in self.remittances},
        }

    def patient(self, mrn: str) -> Patient:
        return self._index["patient"][mrn]

    def payer(self, payer_id: str) -> Payer:
        return self._index["payer"][payer_id]

    def plan(self, plan_id: str) -> Plan:
        return self._index["plan"][plan_id]

    def provider(self, npi: str) -> Provider:
        return self._index["provider"][npi]

    def facility(self, facility_id: str) -> Facility:
        return self._index["facility"][facility_id]

    def supplier(self, supplier_id: str) -> Supplier:
        return self._index["supplier"][supplier_id]

    def order(self, order_id: str) -> Order:
        return self._index["order"][order_id]

    def claim(self, claim_number: str) -> Claim:
        return self._index["claim"][claim_number]

    def coverage(self, coverage_id: str) -> Coverage:
        return self._index["coverage"][coverage_id]

    def remittance_for(self, claim_number: str) -> Remittance | None:
        return self._index["remittance_for"].get(claim_number)

    def coverages_for(self, mrn: str) -> tuple[Coverage, ...]:
        return self._index["coverages_for"].get(mrn, ())

    def documents_for(self, mrn: str) -> tuple[Document, ...]:
        return self._index["documents_for"].get(mrn, ())

    def orders_for(self, mrn: str) -> tuple[Order, ...]:
        return self._index["orders_for"].get(mrn, ())

    def claims_for(self, mrn: str) -> tuple[Claim, ...]:
        return self._index["claims_for"].get(mrn, ())

    def encounters_for(self, mrn: str) -> tuple[Encounter, ...]:
        return self._index["encounters_for"].get(mrn, ())

    def staff_for(self, app: str) -> tuple[StaffAccount, ...]:
        return self._index["staff_for"].get(app, ())
