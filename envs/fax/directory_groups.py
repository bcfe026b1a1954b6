"""Directory groups: the shared distribution lists of the phonebook (payer intake lines,
appeals units, suppliers by equipment category, provider offices, sites).

A group is a rule over the directory (a contact type, and for suppliers the equipment
category their notes list), so a contact added later joins its groups by itself.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Select, and_, func, select
from sqlalchemy.orm import Session

from admindesk.envs.fax.models import DirectoryContact


@dataclass(frozen=True)
class DirectoryGroup:
    """A named group: the contacts of `contact_type` (whose notes mention `notes_contain`)."""

    key: str
    name: str
    contact_type: str
    notes_contain: str | None = None

    def condition(self):
        """The SQL condition a member satisfies."""
        rule = DirectoryContact.contact_type == self.contact_type
        if self.notes_contain:
            rule = and_(rule, DirectoryContact.notes.ilike(f"%{self.notes_contain}%"))
        return rule


GROUPS: dict[str, DirectoryGroup] = {g.key: g for g in (
    DirectoryGroup("payer-pa", "Payer prior-authorization intake", "Payer - Prior Authorization"),
    DirectoryGroup("payer-appeals", "Payer appeals units", "Payer - Appeals"),
    DirectoryGroup("dme-cpap", "DME suppliers: CPAP/BiPAP", "DME Supplier", "CPAP"),
    DirectoryGroup("dme-oxygen", "DME suppliers: oxygen", "DME Supplier", "Oxygen"),
    DirectoryGroup("dme-mobility", "DME suppliers: mobility", "DME Supplier", "Mobility"),
    DirectoryGroup("dme-beds", "DME suppliers: hospital beds", "DME Supplier", "Hospital beds"),
    DirectoryGroup("dme-diabetes", "DME suppliers: diabetes supplies", "DME Supplier", "Diabetes"),
    DirectoryGroup("providers", "Provider offices", "Provider Office"),
    DirectoryGroup("sites", "Health system sites", "Health System Site"),
)}


def in_group(stmt: Select, key: str) -> Select:
    """`stmt` narrowed to the members of group `key` (unknown keys narrow nothing)."""
    group = GROUPS.get(key)
    return stmt.where(group.condition()) if group else stmt


def member_counts(session: Session) -> dict[str, int]:
    """Group key -> number of contacts in it."""
    return {key: session.scalar(select(func.count()).where(group.condition())) for key, group in GROUPS.items()}
