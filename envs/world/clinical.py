"""The chart builder: encounters, orders and documents for each patient.

Scenario functions (scenarios_*.py) describe one clinical case each; this module
gives them the bookkeeping (ids, dates, picking a clinician, the coverage to bill)
and adds routine visits so every patient has 3-6 encounters.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from admindesk.envs.world.documents import progress_note
from admindesk.envs.world.models import Coverage, Document, Encounter, Facility, Order, Patient, Provider
from admindesk.envs.world.people import billing_coverage

# Scenario orders are either still open (the PA work queue), done (they get a claim),
# or cancelled.
OPEN, DONE, CANCELLED = "open", "done", "cancelled"

_ROUTINE = (
    ("Annual physical examination", ("Z00.00",)),
    ("Follow-up of blood pressure", ("I10",)),
    ("Follow-up of cholesterol and blood pressure", ("E78.5", "I10")),
    ("Thyroid follow-up", ("E03.9",)),
    ("Medication refill visit", ("I10", "Z79.899")),
    ("Anxiety follow-up", ("F41.1",)),
    ("Reflux symptoms", ("K21.9",)),
    ("Fatigue evaluation", ("R53.83",)),
    ("Urinary symptoms", ("N39.0",)),
    ("Vitamin D deficiency follow-up", ("E55.9",)),
)


class ChartBuilder:
    """Collects encounters, orders and documents for all patients in a stable order."""

    def __init__(self, rng: random.Random, anchor: date, providers: tuple[Provider, ...],
                 facilities: tuple[Facility, ...], icd10: dict[str, str]):
        self.rng, self.anchor, self.icd10 = rng, anchor, icd10
        self.facilities = {f.id: f for f in facilities}
        self.by_specialty: dict[str, list[Provider]] = {}
        for provider in providers:
            self.by_specialty.setdefault(provider.specialty, []).append(provider)
        self.encounters: list[Encounter] = []
        self.orders: list[Order] = []
        self.documents: list[Document] = []
        self.order_state: dict[str, str] = {}
        # Per patient, set by start_patient() before a scenario runs.
        self.patient: Patient | None = None
        self.coverages: list[Coverage] = []

    # ---- context --------------------------------------------------------------
    def start_patient(self, patient: Patient, coverages: list[Coverage]) -> None:
        self.patient, self.coverages = patient, coverages
        self._patient_encounters = 0

    def provider(self, specialty: str) -> Provider:
        return self.rng.choice(self.by_specialty[specialty])

    def timeline(self) -> tuple[str, date]:
        """Pick the case's state and its order date relative to the anchor."""
        roll = self.rng.random()
        if roll < 0.45:
            return OPEN, self.anchor - timedelta(days=self.rng.randrange(1, 22))
        if roll < 0.97:
            return DONE, self.anchor - timedelta(days=self.rng.randrange(35, 520))
        return CANCELLED, self.anchor - timedelta(days=self.rng.randrange(30, 300))

    # ---- records --------------------------------------------------------------
    def encounter(self, provider: Provider, day: date, kind: str, reason: str,
                  dx: tuple[str, ...], facility_id: str | None = None) -> Encounter:
        assert all(code in self.icd10 for code in dx), dx
        enc = Encounter(
            id=f"ENC-{10000000 + len(self.encounters) * 7 + 3:08d}", mrn=self.patient.mrn,
            date=day, provider_npi=provider.npi, facility_id=facility_id or provider.facility_id,
            kind=kind, reason=reason, diagnosis_codes=dx,
        )
        self.encounters.append(enc)
        self._patient_encounters += 1
        return enc

    def order(self, enc: Encounter, code: str, description: str, category: str, units: int,
              dx: tuple[str, ...], facility_id: str, state: str, needs_auth: bool,
              priority: str = "Routine") -> Order:
        rng = self.rng
        lead = rng.randrange(4, 30)
        if state == OPEN:
            planned = self.anchor + timedelta(days=rng.randrange(3, 32))
            status = "Ordered" if needs_auth or rng.random() < 0.5 else "Scheduled"
        else:
            planned = enc.date + timedelta(days=lead)
            status = "Completed" if state == DONE else "Cancelled"
        facility = self.facilities[facility_id]
        order = Order(
            id=f"ORD-{1000000 + len(self.orders) * 13 + 5}", mrn=self.patient.mrn,
            encounter_id=enc.id, code=code, description=description, category=category,
            units=units, diagnosis_codes=dx, ordering_npi=enc.provider_npi,
            facility_id=facility_id, place_of_service=facility.place_of_service,
            ordered_on=enc.date, planned_date=planned, priority=priority, status=status,
            coverage_id=billing_coverage(self.coverages, planned).id, needs_auth=needs_auth,
        )
        self.orders.append(order)
        self.order_state[order.id] = state
        return order

    def document(self, kind: str, title: str, author: Provider | None, day: date, text: str,
                 facts: dict[str, str] | None = None, enc: Encounter | None = None,
                 order: Order | None = None) -> Document:
        doc = Document(
            id=f"DOC-{2000000 + len(self.documents) * 11 + 7}", mrn=self.patient.mrn,
            encounter_id=enc.id if enc else None, order_id=order.id if order else None,
            kind=kind, title=title, author_npi=author.npi if author else None, date=day,
            text=text, facts=tuple((facts or {}).items()),
        )
        self.documents.append(doc)
        return doc

    # ---- routine care ---------------------------------------------------------
    def fill_routine(self, target: int) -> None:
        """Add primary-care visits (some with a note) until the patient has `target`."""
        rng, patient = self.rng, self.patient
        while self._patient_encounters < target:
            provider = self.provider("Primary Care")
            day = self.anchor - timedelta(days=rng.randrange(10, 545))
            reason, dx = rng.choice(_ROUTINE)
            kind = "Telehealth" if rng.random() < 0.2 else "Office Visit"
            enc = self.encounter(provider, day, kind, reason, dx)
            if rng.random() < 0.4:
                text = progress_note(
                    rng, patient, provider, day, f"{kind} note",
                    hpi=f"{patient.first_name} presents for {reason.lower()}. Symptoms and "
                        "concerns were reviewed; no new complaints beyond those noted. Home "
                        "readings and prior results were discussed.",
                    exam="Well appearing, in no distress. Heart regular rate and rhythm, lungs "
                         "clear to auscultation, abdomen soft and non-tender, no edema.",
                    assessment=f"{self.icd10[dx[0]]} ({dx[0]}), stable on current regimen.",
                    plan="Continue current medications, routine labs before the next visit, "
                         "follow up in six months.",
                )
                self.document("progress_note", f"{kind} - {reason}", provider, day, text, enc=enc)
