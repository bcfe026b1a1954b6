"""Identifier helpers: NPIs and payer-style numbers."""

from __future__ import annotations

import random
from datetime import date

from admindesk.envs.common.npi import npi_check_digit


def make_npi(rng: random.Random, first_digit: str) -> str:
    """A random valid NPI starting with `first_digit` (NPIs start with 1 or 2)."""
    body = first_digit + "".join(str(rng.randrange(10)) for _ in range(8))
    return body + npi_check_digit(body)


def phone_number(rng: random.Random, area_codes: tuple[str, ...]) -> str:
    """A 10-digit phone number in the fictional 555-01xx exchange range."""
    return f"{rng.choice(area_codes)}555{rng.randrange(100, 200):04d}"


def case_number_format(portal: str, decided: date, serial: int) -> str:
    """A prior-auth case number as the payer's portal issues it: ProviderLink (portal "a")
    numbers cases PL-<year>-<serial>, Keystone's own portal (portal "b") KM-P-<yy>-<serial>."""
    return f"PL-{decided:%Y}-{serial:08d}" if portal == "a" else f"KM-P-{decided:%y}-{serial:08d}"


def request_channel(case_number: str) -> str:
    """How the office filed a request on file, read from its case number (`case_number_format`):
    Keystone (KM-) lists every request made before its portal took precertifications online as
    "On file", and those came by fax; at the ProviderLink payers (PL-) one request in four was
    faxed (by its case serial), the rest entered on the portal."""
    return "Fax" if case_number.startswith("KM-") or int(case_number.rsplit("-", 1)[1]) % 4 == 0 else "Portal"


class UniqueIds:
    """Draw random ids without repeats (member ids, claim numbers, fax numbers)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._seen: set[str] = set()

    def draw(self, make) -> str:
        while True:
            value = make(self._rng)
            if value not in self._seen:
                self._seen.add(value)
                return value
