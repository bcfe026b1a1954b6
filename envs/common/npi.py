"""National Provider Identifier check digits (the world makes NPIs, the portals check them).

An NPI is nine digits plus a Luhn check digit computed over "80840" + those nine digits;
the prefix's contribution to the Luhn sum is the constant 24.
"""
from __future__ import annotations

_PREFIX_80840_LUHN_SUM = 24


def npi_check_digit(first_nine: str) -> str:
    """The check digit that completes `first_nine` into a valid NPI."""
    total = _PREFIX_80840_LUHN_SUM
    for index, char in enumerate(reversed(first_nine)):
        digit = int(char) * (2 if index % 2 == 0 else 1)
        total += digit - 9 if digit > 9 else digit
    return str((10 - total % 10) % 10)


def is_valid_npi(npi: str) -> bool:
    """True for ten digits whose last is the check digit of the first nine."""
    return len(npi) == 10 and npi.isdigit() and npi_check_digit(npi[:9]) == npi[9]
