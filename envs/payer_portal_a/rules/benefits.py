"""Synthetic but deterministic benefit designs: cost shares by plan product, auth hints
from the medical policy, and member accumulators derived from the member id."""
from __future__ import annotations

import hashlib

from admindesk.envs.payer_portal_a.policy import MedicalPolicy

# Service type -> (representative codes for the auth hint, default place of service).
SERVICE_TYPES = (
    ("Primary care office visit", ("99213",), "11"),
    ("Specialist office visit", ("99214",), "11"),
    ("Advanced imaging (MRI, CT, PET, nuclear cardiology)", ("72148", "70553", "78815", "78452"), "22"),
    ("Outpatient surgery", ("29881", "27447", "63030"), "24"),
    ("Sleep studies", ("95810", "95806"), "19"),
    ("Durable medical equipment", ("E0601", "E1390", "K0001"), "12"),
    ("Specialty drugs (medical benefit)", ("J0135", "J9271", "J2350"), "22"),
    ("Physical therapy", ("97110",), "11"),
    ("Laboratory", ("80053",), "81"),
    ("Emergency room", ("99284",), "23"),
)

# Product -> (deductible, out-of-pocket maximum, {service type prefix: (copay, coinsurance %)}).
_DESIGNS = {
    "PPO": (1500.0, 6000.0, {"Primary": (25, None), "Specialist": (50, None), "Emergency": (250, None)}),
    "HMO": (750.0, 5000.0, {"Primary": (15, None), "Specialist": (40, None), "Emergency": (200, None)}),
    "EPO": (1000.0, 5500.0, {"Primary": (20, None), "Specialist": (45, None), "Emergency": (250, None)}),
    "Medicare Advantage": (0.0, 4500.0, {"Primary": (0, None), "Specialist": (35, None), "Emergency": (95, None)}),
    "Medicaid Managed Care": (0.0, 0.0, {"Primary": (0, None), "Specialist": (0, None), "Emergency": (3, None)}),
}
_DEFAULT_COINSURANCE = {"PPO": 20, "HMO": 10, "EPO": 20, "Medicare Advantage": 20, "Medicaid Managed Care": 0}


def benefit_lines(product: str, policy: MedicalPolicy, payer: str) -> list[dict]:
    """The benefit summary rows of `payer`'s plan product (service type, cost share, auth hint)."""
    _deductible, _oop, copays = _DESIGNS[product]
    rows = []
    for service_type, codes, place in SERVICE_TYPES:
        copay, coinsurance = next((v for prefix, v in copays.items() if service_type.startswith(prefix)),
                                  (None, _DEFAULT_COINSURANCE[product]))
        needs = [bool(policy.service(code) and policy.service(code).requires_auth(product, place, payer))
                 for code in codes]
        hint = ("Prior authorization required" if all(needs) else
                "Prior authorization required for some services; use the auth requirement lookup" if any(needs)
                else "No prior authorization required")
        rows.append({"service_type": service_type, "copay": None if copay is None else float(copay),
                     "coinsurance_percent": coinsurance, "auth_hint": hint})
    return rows


def accumulators(member_id: str, product: str) -> dict:
    """Deductible and out-of-pocket amounts met so far, stable for a member id."""
    deductible, oop_max, _ = _DESIGNS[product]
    fraction = int(hashlib.sha256(member_id.encode()).hexdigest()[:6], 16) / 0xFFFFFF
    met = round(deductible * fraction, 2)
    return {"deductible": deductible, "deductible_met": met, "out_of_pocket_max": oop_max,
            "out_of_pocket_met": round(min(oop_max, met + oop_max * fraction * 0.3), 2)}
