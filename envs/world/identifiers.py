"""Identifier helpers: NPI check digits and payer-style numbers."""

from __future__ import annotations

import random

# The NPI check digit is the Luhn digit of the 9 leading digits prefixed with the
# card-issuer prefix 80840; the constant 24 is the Luhn sum contribution of that prefix.
_NPI_PREFIX_SUM = 24


def npi_check_digit(first_nine: str) -> str:
    """Return the Luhn check digit for the first nine digits of an NPI."""
    total = _NPI_PREFIX_SUM
    for index, char in enumerate(reversed(first_nine)):
        digit = int(char)
        if index % 2 == 0:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return str((10 - total % 10) % 10)


def is_valid_npi(npi: str) -> bool:
    """True when `npi` is 10 digits with a correct check digit."""
    return len(npi) == 10 and npi.isdigit() and npi_check_digit(npi[:9]) == npi[9]


def make_npi(rng: random.Random, first_digit: str) -> str:
    """A random valid NPI starting with `first_digit` (NPIs start with 1 or 2)."""
    body = first_digit + "".join(str(rng.randrange(10)) for _ in range(8))
    return body + npi_check_digit(body)


def phone_number(rng: random.Random, area_codes: tuple[str, ...]) -> str:
    """A 10-digit phone number in the fictional 555-01xx exchange range."""
    return f"{rng.choice(area_codes)}555{rng.randrange(100, 200):04d}"


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
