"""Provider credentialing: the roster of the group's clinicians and each one's enrollment with the
payers (what the credentialing team keeps: application sent, logged by the payer, status,
participation date, welcome letter)."""
from __future__ import annotations

from flask import Blueprint, render_template, request
from sqlalchemy import select

from admindesk.envs.common.audit import describe
from admindesk.envs.common.enrollment import PARTICIPATING, enrollments
from admindesk.envs.common.npi import is_valid_npi
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.ehr_web.models import Facility, Payer, Provider, ProviderEnrollment

credentialing = Blueprint("credentialing", __name__)


def _enrollments_by_npi() -> dict[str, list[ProviderEnrollment]]:
    on_file: dict[str, list[ProviderEnrollment]] = {}
    for row in db().scalars(select(ProviderEnrollment).order_by(ProviderEnrollment.id)):
        on_file.setdefault(row.npi, []).append(row)
    return on_file


def _summary(rows) -> str:
    """'7 participating' or '1 participating, 1 in process': the roster's enrollment column."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.status.lower()] = counts.get(row.status.lower(), 0) + 1
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "No enrollments"


@credentialing.get("/credentialing")
def roster():
    """The clinicians, searchable by name or NPI and filtered by specialty, with their enrollment summary."""
    describe(tab="credentialing")
    query = (request.args.get("q") or "").strip()
    specialty = request.args.get("specialty") or ""
    message = None
    if query.isdigit() and len(query) == 10 and not is_valid_npi(query):
        message = f"{query} is not a valid NPI (its check digit does not match). Check the number and search again."
    providers = list(db().scalars(select(Provider).order_by(Provider.last_name, Provider.first_name)))
    specialties = sorted({p.specialty for p in providers})
    if query:
        lowered = query.lower()
        providers = [p for p in providers if lowered in p.npi or lowered in f"{p.first_name} {p.last_name}".lower()]
    if specialty:
        providers = [p for p in providers if p.specialty == specialty]
    payer_ids = list(db().scalars(select(Payer.id).order_by(Payer.name)))
    on_file = _enrollments_by_npi()
    summaries = {p.npi: _summary(enrollments(p.npi, payer_ids, on_file.get(p.npi, []))) for p in providers}
    sites = {f.id: f.name for f in db().scalars(select(Facility))}
    return render_template("credentialing_roster.html", providers=providers, specialties=specialties,
                           query=query, specialty=specialty, summaries=summaries, sites=sites, message=message,
                           pending={npi for npi, rows in on_file.items()
                                    if any(r.status != PARTICIPATING for r in rows)})


@credentialing.get("/credentialing/<npi>")
def provider(npi: str):
    """One clinician's credentialing record: the enrollment with each payer."""
    clinician = get_or_404(Provider, npi)
    describe(record_type="provider", record_id=npi, tab="credentialing")
    payers = {p.id: p for p in db().scalars(select(Payer).order_by(Payer.name))}
    rows = enrollments(npi, list(payers), _enrollments_by_npi().get(npi, []))
    site = db().get(Facility, clinician.facility_id)
    not_enrolled = [p for p_id, p in payers.items() if p_id not in {r.payer_id for r in rows}]
    return render_template("credentialing_provider.html", clinician=clinician, site=site, rows=rows, payers=payers,
                           not_enrolled=not_enrolled)
