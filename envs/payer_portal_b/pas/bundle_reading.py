"""Finding things in a validated PAS Bundle: the Claim, the resources it references, the
member's Subscriber ID, NPIs and codes. Problems are collected as issues, not raised, so a
client hears about every one at once.
"""
from __future__ import annotations

from datetime import date, datetime

from admindesk.envs.payer_portal_b.pas.codes import (
    IDENTIFIER_TYPE_SYSTEM,
    MEMBER_NUMBER_TYPE,
    NPI_SYSTEM,
    SUBSCRIBER_ID_SYSTEM,
)
from admindesk.envs.payer_portal_b.pas.outcomes import Issue

PROVIDER_TYPES = ("Practitioner", "Organization")


class PasBundle:
    """A PAS Bundle's resources by reference (fullUrl or Type/id), each with its FHIRPath."""

    def __init__(self, bundle, issues: list[Issue]):
        self.bundle, self.issues = bundle, issues
        self._entries: dict[str, tuple[str, object]] = {}
        for index, entry in enumerate(bundle.entry or []):
            resource = entry.resource
            if resource is None:
                continue
            path = f"Bundle.entry[{index}].resource"
            if entry.fullUrl:
                self._entries[entry.fullUrl] = (path, resource)
            if resource.id:
                self._entries.setdefault(f"{resource.get_resource_type()}/{resource.id}", (path, resource))

    def claim(self, use: str = "preauthorization"):
        """(path, Claim) of the first entry, which a PAS Bundle's Claim must be; None if it is not."""
        entries = self.bundle.entry or []
        first = entries[0].resource if entries else None
        if first is None or first.get_resource_type() != "Claim":
            self.issues.append(Issue("Bundle.entry[0]", "The first entry of a PAS Bundle must be the Claim "
                                                        f"(use '{use}').", "required"))
            return None
        path = "Bundle.entry[0].resource"
        if first.use != use:
            self.issues.append(Issue(f"{path}.use", f"Claim.use must be '{use}' (it is {first.use!r})."))
        return path, first

    def resolve(self, reference, expression: str, kinds: tuple[str, ...]):
        """(path, resource) that `reference` names in this Bundle, of one of `kinds`; None (and an
        issue) when it is missing, outside the Bundle or of another type."""
        wanted = " or ".join(kinds)
        if reference is None or not reference.reference:
            self.issues.append(Issue(expression, f"Reference the {wanted} (an entry of this Bundle).", "required"))
            return None
        found = self._entries.get(reference.reference)
        if found is None:
            # A relative "Patient/1" also names an entry whose fullUrl ends with it.
            found = next((value for url, value in self._entries.items()
                          if url.endswith(f"/{reference.reference}")), None)
        if found is None:
            self.issues.append(Issue(f"{expression}.reference", f"{reference.reference} is not an entry of this "
                                                                f"Bundle; include the {wanted}.", "not-found"))
            return None
        if found[1].get_resource_type() not in kinds:
            self.issues.append(Issue(f"{expression}.reference", f"{reference.reference} is a "
                                     f"{found[1].get_resource_type()}; a {wanted} is expected."))
            return None
        return found


def member_identifier(path: str, patient) -> tuple[str | None, str]:
    """The Subscriber ID among a Patient's identifiers and its FHIRPath: Keystone's system, else
    the member number type (v2-0203 MB), else the only identifier."""
    identifiers = list(enumerate(patient.identifier or []))
    chosen = next((pair for pair in identifiers if pair[1].system == SUBSCRIBER_ID_SYSTEM), None)
    chosen = chosen or next((pair for pair in identifiers if _is_member_number(pair[1])), None)
    if chosen is None and len(identifiers) == 1:
        chosen = identifiers[0]
    if chosen is None or not chosen[1].value:
        return None, f"{path}.identifier"
    return chosen[1].value.strip(), f"{path}.identifier[{chosen[0]}].value"


def _is_member_number(identifier) -> bool:
    codings = identifier.type.coding if identifier.type and identifier.type.coding else []
    return any(c.system == IDENTIFIER_TYPE_SYSTEM and c.code == MEMBER_NUMBER_TYPE for c in codings)


def npi_of(path: str, resource) -> tuple[str, str]:
    """A Practitioner's or Organization's NPI ("" when it has none) and its FHIRPath."""
    for index, identifier in enumerate(resource.identifier or []):
        if identifier.system == NPI_SYSTEM and identifier.value:
            return identifier.value.strip(), f"{path}.identifier[{index}].value"
    return "", f"{path}.identifier"


def coding_code(concept, systems: tuple[str, ...]) -> str | None:
    """The code of the first coding of `concept` in one of `systems`."""
    for coding in (concept.coding or []) if concept is not None else []:
        if coding.system in systems and coding.code:
            return coding.code.strip()
    return None


def full_date(value) -> date | None:
    """A FHIR date or dateTime as a date; None for a partial one ("2026-11")."""
    if isinstance(value, datetime):
        return value.date()
    return value if isinstance(value, date) else None
