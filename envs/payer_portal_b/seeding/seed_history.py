"""Seed what Keystone's own files hold beyond the shared records: drug limits in billing
units, the supplier network, coordination of benefits (is Keystone primary?), DME
authorizations on file as DME requests, and appeals already at later stages.

Called from seed.py's records part as `seed_history(session, world)`.
"""
from __future__ import annotations

from datetime import date, datetime, time
from pathlib import Path

import yaml
from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b import models as m
from admindesk.envs.payer_portal_b.seeding.appeal_history import seed_appeal_history

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


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
    session.flush()
    seed_appeal_history(session)


def dme_on_file(world, auth, patient_name: str, decision_reason: str) -> m.DmeRequest:
    """A DME authorization made before the portal's history, as the DME request Keystone lists.

    Its facts come from the order's chart documents: the face-to-face date, the sleep
    study's AHI and date, the resting and exertion SpO2. The supplier is the one that
    billed the order's claim, or delivered the equipment (unknown while neither happened).
    """
    order = world.order(auth.order_id)
    facts: dict[str, str] = {}
    for document in world.documents:
        if document.order_id == order.id:
            facts.update(dict(document.facts))
    billed_by = next((c.billing_npi for c in world.claims if c.order_id == order.id), auth.delivered_by)
    approved = auth.status == "Approved"
    return m.DmeRequest(
        request_id=auth.case_number, subscriber_id=auth.member_id, patient_name=patient_name,
        hcpcs_code=auth.code, quantity=auth.units, diagnosis_codes=list(order.diagnosis_codes),
        ordering_npi=order.ordering_npi, supplier_npi=billed_by,
        face_to_face_date=_fact_date(facts, "face_to_face_date") or order.ordered_on,
        order_date=_fact_date(facts, "order_date") or order.ordered_on,
        ahi=float(facts["ahi"]) if "ahi" in facts else None,
        spo2_rest=_percent(facts.get("spo2_rest")), spo2_exertion=_percent(facts.get("spo2_exertion")),
        sleep_test_date=_fact_date(facts, "study_date"), status=auth.status, decision_reason=decision_reason,
        authorization_number=auth.auth_number if approved else None, approved_months=None,
        submitted_by="", submitted_at=datetime.combine(order.ordered_on, time(10, 0)), source="On file",
        delivered_on=auth.delivered_on)


def _fact_date(facts: dict[str, str], key: str) -> date | None:
    return datetime.strptime(facts[key], "%m/%d/%Y").date() if key in facts else None


def _percent(text: str | None) -> int | None:
    return int(text.rstrip("%")) if text else None
