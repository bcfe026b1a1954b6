"""The synthetic world every AdminDesk app seeds from, deterministic from a seed.

    from admindesk.envs.world import build_world, World, WORLD_ANCHOR
    world = build_world()            # seed 20261129, cached

`python -m admindesk.envs.world.audit` checks the built world against the payers' rules.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from functools import lru_cache

from faker import Faker

from admindesk.envs.world import scenarios_dme, scenarios_drugs, scenarios_imaging
from admindesk.envs.world.claims import SUPPLIER_CATEGORY, PayerHistory
from admindesk.envs.world.clinical import DONE, ChartBuilder
from admindesk.envs.world.codes import load_codes
from admindesk.envs.world.faxes import FaxInbox
from admindesk.envs.world.identifiers import UniqueIds
from admindesk.envs.world.org import (
    MOLECULAR_LAB,
    build_facilities,
    build_hospital,
    build_payers,
    build_providers,
    build_staff,
    build_suppliers,
)
from admindesk.envs.world.people import CoverageBuilder, build_patients
from admindesk.envs.world.world import World

__all__ = ["build_world", "generate_world", "World", "WORLD_ANCHOR", "DEFAULT_SEED"]

WORLD_ANCHOR = datetime(2026, 11, 16, 9, 0)
DEFAULT_SEED = 20261129

# Relative frequency of each clinical case in the chart.
_SCENARIOS = (
    (scenarios_imaging.lumbar_mri, 14), (scenarios_imaging.knee_mri, 7), (scenarios_imaging.brain_mri, 6),
    (scenarios_imaging.cardiac_testing, 6), (scenarios_imaging.routine_outpatient, 9),
    (scenarios_dme.sleep_study, 7), (scenarios_dme.cpap, 7), (scenarios_dme.oxygen, 6),
    (scenarios_dme.glucose_monitor, 5), (scenarios_dme.mobility, 5),
    (scenarios_drugs.specialty_drug, 10), (scenarios_drugs.pet_scan, 4),
)


def build_world(seed: int = DEFAULT_SEED) -> World:
    """The world for `seed`, built once per process and then shared (it is immutable)."""
    return _cached_world(seed)


def generate_world(seed: int = DEFAULT_SEED) -> World:
    """Build a new world without the cache; the same seed always gives an equal world."""
    fake = Faker("en_US")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    anchor = WORLD_ANCHOR.date()
    codes = load_codes()

    ids = UniqueIds(rng)
    payers, plans = build_payers(ids)
    facilities = build_facilities(fake, rng, ids)
    providers = build_providers(fake, rng, ids)
    suppliers = build_suppliers(fake, rng, ids)

    patients = build_patients(fake, rng, anchor, frozenset((p.first_name, p.last_name) for p in providers))
    coverage_builder = CoverageBuilder(fake, rng, plans, anchor)
    for patient in patients:
        coverage_builder.add_patient(patient)
    coverages = tuple(coverage_builder.coverages)
    by_mrn: dict[str, list] = {}
    for coverage in coverages:
        by_mrn.setdefault(coverage.mrn, []).append(coverage)

    chart = ChartBuilder(rng, anchor, providers, facilities, codes.icd10)
    functions, weights = zip(*_SCENARIOS)
    for patient in patients:
        chart.start_patient(patient, by_mrn[patient.mrn])
        for scenario in rng.choices(functions, weights, k=rng.choice((0, 1, 1, 2, 2, 3))):
            scenario(chart)
        chart.fill_routine(rng.randrange(3, 7))

    history = PayerHistory(rng, anchor, payers, {c.id: c for c in coverages}, facilities,
                           plans=plans, suppliers=suppliers)
    history.process(chart.orders, chart.order_state, chart.encounters, tuple(chart.documents))

    inbox = FaxInbox(rng, WORLD_ANCHOR, payers, facilities, providers)
    patient_by_mrn = {p.mrn: p for p in patients}
    order_by_id = {o.id: o for o in chart.orders}
    recent = anchor - timedelta(days=45)
    for auth in history.authorizations:
        if auth.status != "Cancelled" and (auth.start >= recent or auth.status == "Pended"):
            inbox.determination(auth, order_by_id[auth.order_id], patient_by_mrn[auth.mrn])
    for order in chart.orders:
        if (order.code in SUPPLIER_CATEGORY and chart.order_state[order.id] == DONE
                and order.planned_date >= recent - timedelta(days=30)):
            inbox.supplier_confirmation(history.dme_supplier(order), order, patient_by_mrn[order.mrn])
    for _ in range(10):
        inbox.misc(rng.choice(patients), rng.choice(facilities[:2]))

    faxes = inbox.finish()
    facilities += (build_hospital(fake, ids, facilities[0].tax_id),
                   build_hospital(fake, ids, facilities[0].tax_id, MOLECULAR_LAB))
    return World(
        seed=seed, payers=payers, plans=plans, patients=patients, coverages=coverages,
        facilities=facilities, providers=providers, suppliers=suppliers, codes=codes,
        staff=build_staff(), encounters=tuple(chart.encounters), orders=tuple(chart.orders),
        documents=tuple(chart.documents), claims=tuple(history.claims),
        remittances=tuple(history.remittances), authorizations=tuple(history.authorizations),
        faxes=faxes,
    )


_cached_world = lru_cache(maxsize=4)(generate_world)
