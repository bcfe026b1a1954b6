"""Provider network lookup: a clinician's participation with one payer (the payer's directory), by
NPI or name: network status, when the payer logged the complete application, participation date;
and the facility directory, searched by service around a member's ZIP code: each site's network
status, straight-line miles and next open appointment, measured against the access standard."""
from __future__ import annotations

from flask import Blueprint, render_template, request
from sqlalchemy import func, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import also_viewed, describe
from admindesk.envs.common.enrollment import enrollments
from admindesk.envs.common.network_access import (
    ACCESS_DAYS,
    ACCESS_MILES,
    CLOSED_NETWORK_PRODUCTS,
    SERVICE_CODES,
    ZIP_CENTROIDS,
    default_next_available,
    meets_standard,
    miles_between,
)
from admindesk.envs.common.npi import is_valid_npi
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.payer_portal_a.models import Member, NetworkEnrollment, Payer, Provider
from admindesk.envs.payer_portal_a.web import payer_choices

network = Blueprint("network", __name__, url_prefix="/network")
NOT_ENROLLED = "Not enrolled"
PARTICIPATING = "Participating"
RADII = (10, 30, 60, 100)


def participation(npi: str, payer_id: str):
    """The clinician's enrollment with the payer, or None when the payer has none on file."""
    on_file = list(db().scalars(select(NetworkEnrollment).where(NetworkEnrollment.npi == npi)))
    return next(iter(enrollments(npi, [payer_id], on_file)), None)


def out_of_network(pa) -> bool:
    """Whether a request's servicing provider is outside its HMO/EPO plan's network (the plan covers
    it only with an approved network exception)."""
    member = db().get(Member, pa.coverage_id) if pa.coverage_id else None
    if member is None or member.plan.product not in CLOSED_NETWORK_PRODUCTS or not pa.servicing_npi:
        return False
    record = participation(pa.servicing_npi, pa.payer_id)
    return not (record and record.status == PARTICIPATING)


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
                           record=participation(npi, payer_id), not_enrolled=NOT_ENROLLED,
                           next_available=next_available(provider) if provider.entity_type == "Organization" else None)


def next_available(site: Provider):
    """The next appointment the site reported, else its default."""
    return site.next_available or default_next_available(site.npi, clock.today())


def _facility_errors(payer_id: str, service: str, zip_code: str, radius: str) -> list[str]:
    errors = []
    if not payer_id:
        errors.append("Select the payer whose network to search.")
    if service not in SERVICE_CODES:
        errors.append("Select the service the facility performs.")
    if not (zip_code.isdigit() and len(zip_code) == 5):
        errors.append("Enter the member's 5-digit home ZIP code.")
    elif zip_code not in ZIP_CENTROIDS:
        errors.append(f"ZIP code {zip_code} is outside the directory's service area.")
    if radius not in {str(r) for r in RADII}:
        errors.append("Select a search radius.")
    return errors


@network.get("/facilities")
def facilities():
    """Facilities performing a service within a radius of the member's ZIP code, nearest first, each
    with its network status with the payer, its distance and next open appointment."""
    describe(tab="network_facilities")
    args = {key: (request.args.get(key) or "").strip() for key in ("payer_id", "service", "zip", "radius", "name")}
    args["radius"] = args["radius"] or str(ACCESS_MILES)
    searched = "payer_id" in request.args
    errors = _facility_errors(args["payer_id"], args["service"], args["zip"], args["radius"]) if searched else []
    results = None
    if searched and not errors:
        query = select(Provider).where(Provider.entity_type == "Organization")
        if args["name"]:
            query = query.where(func.lower(Provider.name).contains(args["name"].lower()))
        results = []
        for site in db().scalars(query):
            miles = miles_between(args["zip"], site.zip)
            # A site searched by name is listed wherever it is; otherwise only within the radius.
            beyond = miles is None or (miles > int(args["radius"]) and not args["name"])
            if args["service"] not in site.services.split("; ") or beyond:
                continue
            record, opening = participation(site.npi, args["payer_id"]), next_available(site)
            in_network = bool(record and record.status == PARTICIPATING)
            results.append((site, record, miles, opening, in_network and meets_standard(miles, opening, clock.today())))
            also_viewed(record_type="network_participation", record_id=site.npi, payer_id=args["payer_id"])
        results.sort(key=lambda row: (row[2], row[0].name))
    return render_template("network/facilities.html", section="network", payers=payer_choices(), args=args,
                           services=list(SERVICE_CODES), radii=RADII, errors=errors, results=results,
                           payer=db().get(Payer, args["payer_id"]) if args["payer_id"] else None,
                           not_enrolled=NOT_ENROLLED, access_miles=ACCESS_MILES, access_days=ACCESS_DAYS)
