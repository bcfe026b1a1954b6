"""Patients and their insurance coverages."""

from __future__ import annotations

import random
from datetime import date, timedelta

from faker import Faker

from admindesk.envs.world.identifiers import UniqueIds, phone_number
from admindesk.envs.world.models import Coverage, Patient, Plan
from admindesk.envs.world.org import AREA_CODES, CITIES, STATE

PATIENT_COUNT = 340
_LANGUAGES = (("English", 85), ("Spanish", 8), ("Vietnamese", 2), ("Nepali", 2),
              ("Arabic", 1), ("Chinese", 1), ("Russian", 1))
_EMAIL_DOMAINS = ("example.com", "example.net", "example.org")


def _weighted(rng: random.Random, pairs) -> str:
    values, weights = zip(*pairs)
    return rng.choices(values, weights)[0]


def build_patients(fake: Faker, rng: random.Random, anchor: date,
                   clinician_names: frozenset[tuple[str, str]] = frozenset()) -> tuple[Patient, ...]:
    """Synthetic adults aged 19-92, about a third of them 65 or older.

    No patient shares a clinician's name: a note naming the clinician would read as naming
    another patient (the wrong-patient guards look for other patients' names).
    """
    patients = []
    mrn_number = 1000000
    for _ in range(PATIENT_COUNT):
        mrn_number += rng.randrange(37, 900)
        sex = rng.choice("FM")
        first = fake.first_name_female() if sex == "F" else fake.first_name_male()
        last = fake.last_name()
        if (first, last) in clinician_names:
            last = _other_last_name(mrn_number, last)
        age = rng.randrange(66, 93) if rng.random() < 0.33 else rng.randrange(19, 65)
        dob = anchor - timedelta(days=age * 365 + rng.randrange(0, 365))
        city, zip_code = rng.choice(CITIES)
        patients.append(Patient(
            mrn=f"E{mrn_number}", first_name=first, last_name=last, dob=dob, sex=sex,
            address=fake.street_address(), city=city, state=STATE, zip=zip_code,
            phone=phone_number(rng, AREA_CODES),
            email=f"{first}.{last}{rng.randrange(1, 99)}@{rng.choice(_EMAIL_DOMAINS)}".lower(),
            language=_weighted(rng, _LANGUAGES),
        ))
    return tuple(patients)


def _other_last_name(mrn_number: int, taken: str) -> str:
    """A last name other than `taken`, from a Faker of the patient's own: the world's shared
    random streams draw exactly as they would without the clash, so no other patient changes."""
    own = Faker("en_US")
    own.seed_instance(mrn_number)
    last = own.last_name()
    while last == taken:
        last = own.last_name()
    return last


def age_on(patient: Patient, day: date) -> int:
    """Whole years of age on `day`."""
    years = day.year - patient.dob.year
    return years - ((day.month, day.day) < (patient.dob.month, patient.dob.day))


class CoverageBuilder:
    """Assigns plans to patients: primary, optional secondary, some terminations."""

    def __init__(self, fake: Faker, rng: random.Random, plans: tuple[Plan, ...], anchor: date):
        self._fake, self._rng, self._anchor = fake, rng, anchor
        self._ids = UniqueIds(rng)
        self._medicare = [p for p in plans if p.product == "Medicare Advantage"]
        self._medicaid = [p for p in plans if p.product == "Medicaid Managed Care"]
        # Keystone Mutual (portal B) is a large local carrier: weight its plans up.
        self._commercial = [p for p in plans if p.product in ("PPO", "HMO", "EPO")]
        self._commercial_weights = [3 if p.payer_id == "PYR-KMH" else 2 for p in self._commercial]
        self.coverages: list[Coverage] = []

    def _plan_for(self, patient: Patient, exclude_payers: set[str]) -> Plan:
        age = age_on(patient, self._anchor)
        if age >= 65 and self._rng.random() < 0.75:
            pool, weights = self._medicare, [1] * len(self._medicare)
        elif age < 65 and self._rng.random() < 0.12:
            pool, weights = self._medicaid, [1] * len(self._medicaid)
        else:
            pool, weights = self._commercial, self._commercial_weights
        choices = [(p, w) for p, w in zip(pool, weights) if p.payer_id not in exclude_payers]
        if not choices:
            choices = [(p, 1) for p in self._commercial if p.payer_id not in exclude_payers]
        plans, plan_weights = zip(*choices)
        return self._rng.choices(plans, plan_weights)[0]

    def _add(self, patient: Patient, plan: Plan, rank: int, effective: date,
             termination: date | None) -> Coverage:
        rng = self._rng
        relationship = "Self"
        subscriber = patient.full_name
        if plan.product in ("PPO", "HMO", "EPO"):
            roll = rng.random()
            if roll < 0.2:
                relationship = "Spouse"
                subscriber = f"{self._fake.first_name()} {patient.last_name}"
            elif roll < 0.3 and age_on(patient, self._anchor) < 26:
                relationship = "Child"
                subscriber = f"{self._fake.first_name()} {patient.last_name}"
        payer_suffix = plan.payer_id.removeprefix("PYR-")
        coverage = Coverage(
            id=f"COV-{len(self.coverages) + 1:06d}", mrn=patient.mrn, plan_id=plan.id,
            payer_id=plan.payer_id, rank=rank,
            member_id=self._ids.draw(lambda r: f"{payer_suffix}{r.randrange(1000000, 9999999)}"),
            group_number=f"{plan.group_prefix}{rng.randrange(10000, 99999)}",
            subscriber_name=subscriber, relationship=relationship,
            effective=effective, termination=termination,
        )
        self.coverages.append(coverage)
        return coverage

    def add_patient(self, patient: Patient) -> None:
        """Primary for everyone; ~25% secondary; ~8% with a primary that has ended."""
        rng, anchor = self._rng, self._anchor
        effective = date(anchor.year - rng.randrange(1, 8), rng.choice((1, 1, 1, 4, 7, 10)), 1)
        primary = self._plan_for(patient, set())
        used = {primary.payer_id}
        if rng.random() < 0.08:
            ended = anchor - timedelta(days=rng.randrange(15, 200))
            self._add(patient, primary, 1, effective, ended)
            if rng.random() < 0.5:
                # Changed jobs or plans: a newer primary starts the day after.
                newer = self._plan_for(patient, used)
                used.add(newer.payer_id)
                self._add(patient, newer, 1, ended + timedelta(days=1), None)
            else:
                # The old secondary now pays first; it stays rank 2 in the chart.
                secondary = self._plan_for(patient, used)
                self._add(patient, secondary, 2, effective, None)
            return
        self._add(patient, primary, 1, effective, None)
        if rng.random() < 0.25:
            secondary = self._plan_for(patient, used)
            self._add(patient, secondary, 2, effective + timedelta(days=rng.randrange(0, 400)), None)


def billing_coverage(coverages: list[Coverage], day: date) -> Coverage:
    """The coverage to bill on `day`: the best-ranked active one, else the newest."""
    active = [c for c in coverages if c.active_on(day)]
    if active:
        return min(active, key=lambda c: (c.rank, -c.effective.toordinal()))
    return max(coverages, key=lambda c: c.effective)
