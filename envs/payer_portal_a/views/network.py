"""Provider network lookup: a clinician's participation with one payer (the payer's directory), by
NPI or name: network status, when the payer logged the complete application, participation date."""
from __future__ import annotations

from flask import Blueprint, render_template, request
from sqlalchemy import func, select

from admindesk.envs.common.audit import also_viewed, describe
from admindesk.envs.common.enrollment import enrollments
from admindesk.envs.common.npi import is_valid_npi
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.payer_portal_a.models import NetworkEnrollment, Payer, Provider
from admindesk.envs.payer_portal_a.web import payer_choices

network = Blueprint("network", __name__, url_prefix="/network")
NOT_ENROLLED = "Not enrolled"


def participation(npi: str, payer_id: str):
    """The clinician's enrollment with the payer, or None when the payer has none on file."""
    on_file = list(db().scalars(select(NetworkEnrollment).where(NetworkEnrollment.npi == npi)))
    return next(iter(enrollments(npi, [payer_id], on_file)), None)


def _errors(payer_id: str, npi: str, last_name: str) -> list[str]:
    errors = []
    if not payer_id:
        errors.append("Select the payer whose network to search.")
    if not (npi or last_name):
        errors.append("Enter the provider's NPI or last name.")
    if npi and not (npi.isdigit() and len(npi) == 10):
        errors.append("An NPI is 10 digits.")
    elif npi and not is_valid_npi(npi):
        errors.append(f"{npi} is not a valid NPI (its check digit does not match).")
    return errors


@network.get("")
def lookup():
    """The search form and, once searched, the individual providers it finds with their status."""
    describe(tab="network")
    payer_id, npi = request.args.get("payer_id", ""), (request.args.get("npi") or "").strip()
    last_name = (request.args.get("last_name") or "").strip()
    searched = "payer_id" in request.args
    errors = _errors(payer_id, npi, last_name) if searched else []
    results = None
    if searched and not errors:
        query = select(Provider).where(Provider.entity_type == "Individual").order_by(Provider.name)
        query = query.where(Provider.npi == npi) if npi else query.where(
            func.lower(Provider.name).contains(last_name.lower()))
        results = [(p, participation(p.npi, payer_id)) for p in db().scalars(query)]
        for provider, _ in results:
            also_viewed(record_type="network_participation", record_id=provider.npi, payer_id=payer_id)
    return render_template("network/lookup.html", section="network", payers=payer_choices(), payer_id=payer_id,
                           npi=npi, last_name=last_name, errors=errors, results=results,
                           payer=db().get(Payer, payer_id) if payer_id else None, not_enrolled=NOT_ENROLLED)


@network.get("/<payer_id>/<npi>")
def detail(payer_id: str, npi: str):
    """One clinician's participation record with one payer."""
    payer, provider = get_or_404(Payer, payer_id), get_or_404(Provider, npi)
    describe(record_type="network_participation", record_id=npi, tab=payer_id)
    return render_template("network/detail.html", section="network", payer=payer, provider=provider,
                           record=participation(npi, payer_id), not_enrolled=NOT_ENROLLED)
