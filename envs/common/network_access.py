"""The network access standard of portal A's HMO and EPO plans and the facility directory it is
measured in: what each site performs, where it is, and how soon it can schedule.

Distances are straight-line miles between ZIP centroids, as payers' directories measure them; the
centroids are those of the region's ZIP codes (the world's sites and the members' homes)."""
from __future__ import annotations

from datetime import date, timedelta
from math import asin, cos, radians, sin, sqrt

# The plans whose members are covered out of network only with an approved network exception.
CLOSED_NETWORK_PRODUCTS = ("HMO", "EPO")
# Specialist care and advanced imaging: an in-network site within this distance of the member's home
# that can schedule within this many calendar days of the day the service is requested meets the standard.
ACCESS_MILES = 30
ACCESS_DAYS = 14
# Why no in-network provider meets the standard (the exception's reason on a prior-auth request).
NETWORK_EXCEPTION_REASONS = (
    f"No in-network provider of the service within {ACCESS_MILES} miles",
    f"No in-network appointment within {ACCESS_DAYS} calendar days",
    "No in-network provider performs the service",
)

# ZIP code centroids (latitude, longitude) of south-central Pennsylvania and its neighbours.
ZIP_CENTROIDS: dict[str, tuple[float, float]] = {
    "17101": (40.2618, -76.8830), "17109": (40.2900, -76.8200), "17011": (40.2357, -76.9300),
    "17055": (40.2120, -77.0000), "17013": (40.2050, -77.1900), "17033": (40.2800, -76.6500),
    "17601": (40.0700, -76.3100), "17603": (40.0300, -76.3300), "17402": (39.9700, -76.6800),
    "17042": (40.3300, -76.4200), "17022": (40.1550, -76.6000), "17325": (39.8300, -77.2300),
    "19601": (40.3500, -75.9300), "17543": (40.1600, -76.3000), "17057": (40.2000, -76.7300),
    "17331": (39.8000, -76.9800), "17201": (39.9400, -77.6600), "17901": (40.6800, -76.2000),
    "17801": (40.8600, -76.7900), "19104": (39.9600, -75.1950), "21201": (39.2950, -76.6200),
}
EARTH_RADIUS_MILES = 3958.8

# The services the directory is searched by, and the procedure codes each one performs.
SERVICE_CODES: dict[str, tuple[str, ...]] = {
    "PET/CT": ("78815", "78816"),
    "Nuclear cardiology": ("78452",),
    "Cardiac CT angiography": ("75574",),
    "MRI": ("70551", "70553", "72141", "72148", "72158", "73221", "73721", "73723"),
    "CT": ("71271", "74183", "70544"),
    "Sleep study": ("95810", "95811", "95806"),
    "Infusion": (),
    "Ambulatory surgery": (),
}


def service_of(code: str) -> str | None:
    """The directory service that performs a procedure code, or None."""
    return next((service for service, codes in SERVICE_CODES.items() if code in codes), None)


def miles_between(zip_a: str, zip_b: str) -> float | None:
    """Straight-line miles between two ZIP centroids (one decimal), or None for an unknown ZIP."""
    if zip_a not in ZIP_CENTROIDS or zip_b not in ZIP_CENTROIDS:
        return None
    (lat1, lon1), (lat2, lon2) = (map(radians, ZIP_CENTROIDS[z]) for z in (zip_a, zip_b))
    arc = sin((lat2 - lat1) / 2) ** 2 + cos(lat1) * cos(lat2) * sin((lon2 - lon1) / 2) ** 2
    return round(2 * EARTH_RADIUS_MILES * asin(sqrt(arc)), 1)


def default_next_available(npi: str, today: date) -> date:
    """A site's next open appointment when the case gives none: 2 to 10 days out, from its NPI."""
    return today + timedelta(days=2 + int(npi[6:8]) % 9)


def meets_standard(miles: float | None, next_available: date, today: date) -> bool:
    """Whether an in-network site is within the access standard for a service requested today."""
    return miles is not None and miles <= ACCESS_MILES and next_available <= today + timedelta(days=ACCESS_DAYS)
