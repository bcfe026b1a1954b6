"""Seed what Keystone's own files hold beyond the shared records: drug limits in billing
units, the supplier network, and coordination of benefits (is Keystone primary?).

Called from seed.py's records part as `seed_history(session, world)`.
"""
from __future__ import annotations

from pathlib import Path

import yaml
from sqlalchemy import select
from sqlalchemy.orm import Session

from . import models as m

DATA_DIR = Path(__file__).resolve().parent / "data"


def _load(name: str):
    return yaml.safe_load((DATA_DIR / name).read_text(encoding="utf-8"))


def seed_history(session: Session, world) -> None:
    """Fill the columns the shared seed leaves at their defaults (caller commits)."""
    session.flush()
    for limit in _load("billing_units.yaml"):
        link = session.get(m.PolicyCode, limit["code"])
        if link is not None:
            link.max_billing_units, link.billing_unit = limit["max_billing_units"], limit["unit"]
    non_contracted = set(_load("suppliers.yaml")["non_contracted"])
    for supplier in session.scalars(select(m.Supplier)):
        supplier.network_status = "Non-contracted" if supplier.name in non_contracted else "Contracted"
    payer_names = {payer.id: payer.name for payer in world.payers}
    keystone = session.scalars(select(m.PayerProfile.payer_id)).one()
    by_patient: dict[str, list] = {}
    for coverage in world.coverages:
        by_patient.setdefault(coverage.mrn, []).append(coverage)
    for coverages in by_patient.values():
        ours = [c for c in coverages if c.payer_id == keystone]
        for coverage in ours:
            primary = min(coverages, key=lambda c: c.rank)
            subscriber = session.get(m.Subscriber, coverage.member_id)
            if subscriber is not None and primary.payer_id != keystone:
                subscriber.coverage_rank, subscriber.other_coverage = coverage.rank, payer_names[primary.payer_id]
