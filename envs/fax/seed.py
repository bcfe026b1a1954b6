"""Seed the fax server from the world: its lines, the shared directory, the inbox.

A fax server knows phone numbers and names, not charts: it holds no MRNs, orders or
claims, only what arrived on its lines (line, caller number, CSID, pages, time) and who is in
its phonebook.
"""
from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from admindesk.envs.common.state.seeding import WorldSeed
from admindesk.envs.fax.fax_files import received_fax_file
from admindesk.envs.fax.history import seed_outbox_history
from admindesk.envs.fax.models import DISCONNECTED, READ, UNREAD, DirectoryContact, FaxLine, InboundFax, InboundFaxPage
from admindesk.envs.fax.supplier_replies import seed_supplier_networks

# Payers and suppliers whose old intake line is still listed, marked disconnected:
# a realistic trap (the stale entry sorts next to the current one).
_RETIRED_LINES = ("PYR-NWH", "PYR-ACH", "SUP-BRH")
_TITLE_CATEGORIES = {"cpap": "CPAP/BiPAP", "oxygen": "Oxygen", "mobility": "Mobility",
                     "beds": "Hospital beds", "diabetes": "Diabetes supplies"}


def _retired_number(current: str, taken: set[str]) -> str:
    """An unused number in the same area code and fictional 555-01xx block as `current`."""
    line = int(current[6:])
    for step in range(1, 100):
        candidate = f"{current[:6]}{100 + (line - 100 + step) % 100:04d}"
        if candidate not in taken:
            return candidate
    raise ValueError(f"no free number near {current}")


def _contacts(world) -> list[DirectoryContact]:
    facilities = {f.id: f for f in world.facilities}
    contacts: list[DirectoryContact] = []
    for payer in world.payers:
        contacts.append(DirectoryContact(
            name=f"{payer.name} - Prior Authorization", organization=payer.name,
            contact_type="Payer - Prior Authorization", fax_number=payer.pa_fax, phone_number=payer.phone,
            notes=f"Utilization management intake. Payer ID {payer.payer_code}.", external_ref=payer.id))
        contacts.append(DirectoryContact(
            name=f"{payer.name} - Appeals", organization=payer.name, contact_type="Payer - Appeals",
            fax_number=payer.appeals_fax, phone_number=payer.phone,
            notes=f"Provider appeals and reconsiderations. Appeal within {payer.timely_appeal_days} days "
                  "of the remittance date.", external_ref=payer.id))
    for supplier in world.suppliers:
        categories = ", ".join(_TITLE_CATEGORIES.get(c, c) for c in supplier.categories)
        contacts.append(DirectoryContact(
            name=f"{supplier.name} - Intake", organization=supplier.name, contact_type="DME Supplier",
            fax_number=supplier.fax, phone_number=supplier.phone,
            notes=f"Order intake. Supplies: {categories}. {supplier.address}, {supplier.city}, "
                  f"{supplier.state} {supplier.zip}. NPI {supplier.npi}.", external_ref=supplier.id))
    for provider in world.providers:
        site = facilities[provider.facility_id]
        contacts.append(DirectoryContact(
            name=f"{provider.display_name} - {provider.specialty}", organization=site.name,
            contact_type="Provider Office", fax_number=provider.fax, phone_number=provider.phone,
            notes=f"NPI {provider.npi}.", external_ref=provider.npi))
    for site in world.facilities:
        contacts.append(DirectoryContact(
            name=f"{site.name} - Front Office", organization=site.name, contact_type="Health System Site",
            fax_number=site.fax, phone_number=site.phone,
            notes=f"{site.address}, {site.city}, {site.state} {site.zip}.", external_ref=site.id))
    return contacts


def _retired(world, taken: set[str]) -> list[DirectoryContact]:
    by_id = {p.id: (p.name, p.pa_fax, p.phone, "Payer - Prior Authorization") for p in world.payers}
    by_id.update({s.id: (s.name, s.fax, s.phone, "DME Supplier") for s in world.suppliers})
    retired = []
    for ref in _RETIRED_LINES:
        name, current, phone, kind = by_id[ref]
        number = _retired_number(current, taken)
        taken.add(number)
        label = "Prior Authorization" if kind.startswith("Payer") else "Intake"
        retired.append(DirectoryContact(
            name=f"{name} - {label} (old line)", organization=name, contact_type=kind, fax_number=number,
            phone_number=phone, line_status=DISCONNECTED, external_ref=ref,
            notes=f"Retired line. Use the current number {current[:3]}-{current[3:6]}-{current[6:]}."))
    return retired


def _reference_data(session: Session, world) -> None:
    """The health system's fax lines and the shared directory."""
    for index, site in enumerate(world.facilities):
        session.add(FaxLine(number=site.fax, label=site.name, facility_id=site.id, phone=site.phone,
                            address=f"{site.address}, {site.city}, {site.state} {site.zip}",
                            is_default=index == 0))
    contacts = _contacts(world)
    taken = {c.fax_number for c in contacts} | {f.from_number for f in world.faxes}
    session.add_all(contacts + _retired(world, taken))
    seed_supplier_networks(session, world)
    session.flush()


def seed_records(session: Session, world) -> None:
    """The faxes of `world` waiting in the inbox (the background world's, or a case's)."""
    # Faxes older than two weeks before the newest arrival have been opened by someone already.
    newest = max((f.received_at for f in world.faxes), default=None)
    on_file = session.scalar(select(func.max(InboundFax.received_at)))
    if on_file is not None and newest is not None:
        newest = max(newest, on_file)
    for fax in world.faxes:
        seen = newest is not None and (newest - fax.received_at).days > 14
        # The server keeps what the call gave it; the sender, patient and kind are in the pages.
        session.add(InboundFax(id=fax.id, from_number=fax.from_number, csid=fax.csid, to_number=fax.to_number,
                               received_at=fax.received_at, status=READ if seen else UNREAD, is_filed=False,
                               **received_fax_file(fax)))
        session.add_all(InboundFaxPage(fax_id=fax.id, page_no=number, text=text)
                        for number, text in enumerate(fax.pages_text, start=1))
    seed_outbox_history(session, world)


# A fax server holds no charts: a case touches it only with faxes in the inbox.
seed = WorldSeed(reference=_reference_data, records=seed_records, view="chart",
                 touches=lambda world: bool(world.faxes))
