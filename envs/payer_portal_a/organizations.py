"""The provider account's registrations: the organizations (billing entities, each
with its tax id) and the clinicians registered to submit under them.

A clearinghouse portal only lets an office transact for organizations and providers
it has registered; the directory's facilities are this account's organizations and
its clinicians the registered providers. A TIN is fixed per organization.
"""
from __future__ import annotations

import hashlib

from sqlalchemy import select

from admindesk.envs.common.web import db
from admindesk.envs.payer_portal_a.models import Provider

REQUEST_TYPES = ("Outpatient", "Inpatient", "Referral")
SERVICE_TYPES = (
    "Diagnostic imaging", "Durable medical equipment", "Sleep study", "Surgical procedure",
    "Specialty drug / infusion", "Physical or occupational therapy", "Home health", "Office visit / consultation",
    "Laboratory / genetic testing", "Other outpatient service",
)


def tax_id(organization_npi: str) -> str:
    """The organization's TIN (EIN-shaped, stable: derived from its NPI)."""
    digits = str(int(hashlib.sha256(organization_npi.encode()).hexdigest()[:12], 16))[-7:]
    return f"{20 + int(organization_npi[-2:]) % 70}-{digits}"


# The directory's facilities of the account's own health system; a site outside it is listed as an
# "Outside facility": a servicing site only, never an organization the office submits for.
ACCOUNT_FACILITY = "Facility"
OUTSIDE_FACILITY = "Outside facility"


def _sites(*specialties: str) -> list[Provider]:
    return list(db().scalars(select(Provider).where(Provider.entity_type == "Organization",
                                                    Provider.specialty.in_(specialties)).order_by(Provider.name)))


def organizations() -> list[Provider]:
    """The account's organizations (the directory's facilities of the health system), by name."""
    return _sites(ACCOUNT_FACILITY)


def registered_providers() -> list[Provider]:
    """The clinicians registered on the account, by name."""
    return list(db().scalars(select(Provider).where(Provider.entity_type == "Individual").order_by(Provider.name)))


def provider_label(provider: Provider) -> str:
    """How a registered provider reads in a select: name, specialty and NPI."""
    return f"{provider.name} - {provider.specialty} (NPI {provider.npi})"


def organization_choices() -> dict[str, str]:
    return {"": "Select an organization", **{o.npi: f"{o.name} (NPI {o.npi})" for o in organizations()}}


def tin_choices() -> dict[str, str]:
    return {"": "Select a tax ID", **{tax_id(o.npi): f"{tax_id(o.npi)} - {o.name}" for o in organizations()}}


def requesting_choices() -> dict[str, str]:
    return {"": "Select a requesting provider", **{p.npi: provider_label(p) for p in registered_providers()}}


def rendering_choices() -> dict[str, str]:
    """Rendering (servicing) choices: registered clinicians and the organizations' sites."""
    rows = registered_providers() + _sites(ACCOUNT_FACILITY, OUTSIDE_FACILITY)
    return {"": "Select a rendering provider or facility", **{p.npi: provider_label(p) for p in rows}}
