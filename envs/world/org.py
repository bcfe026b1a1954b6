"""Organisations: payers and plans, the health system's sites and clinicians,
DME suppliers and the staff logins of the four apps."""

from __future__ import annotations

import random

from faker import Faker

from admindesk.envs.world.identifiers import UniqueIds, make_npi, phone_number
from admindesk.envs.world.models import Facility, Payer, Plan, Provider, StaffAccount, Supplier

# The health system sits in south-central Pennsylvania; local numbers use its area codes.
AREA_CODES = ("717", "223", "610", "484")
TOLL_FREE = ("800", "888", "877", "866")
CITIES = (
    ("Harrisburg", "17101"), ("Harrisburg", "17109"), ("Camp Hill", "17011"),
    ("Mechanicsburg", "17055"), ("Carlisle", "17013"), ("Hershey", "17033"),
    ("Lancaster", "17601"), ("Lancaster", "17603"), ("York", "17402"),
    ("Lebanon", "17042"), ("Elizabethtown", "17022"), ("Gettysburg", "17325"),
    ("Reading", "19601"), ("Lititz", "17543"), ("Middletown", "17057"),
)
STATE = "PA"

# (id suffix, name, portal, payer code, appeal days, plans as (suffix, product, name))
_PAYERS = (
    ("NWH", "Northwind Health Plan", "a", "NWH01", 180,
     (("PPO", "PPO", "Northwind Choice PPO"), ("HMO", "HMO", "Northwind Select HMO"))),
    ("CSH", "Cascade Summit Health", "a", "CSH22", 180,
     (("PPO", "PPO", "Cascade Summit Open Access PPO"), ("EPO", "EPO", "Cascade Summit Core EPO"))),
    ("HSA", "Harborview Senior Advantage", "a", "HSA60", 60,
     (("MAPD", "Medicare Advantage", "Harborview Advantage Plus (HMO-POS)"),
      ("MAPPO", "Medicare Advantage", "Harborview Advantage Freedom PPO"))),
    ("PSM", "Prairie State Community Care", "a", "PSM07", 90,
     (("MCD", "Medicaid Managed Care", "Prairie State Medical Assistance"),)),
    ("ACH", "Atlas Choice Health", "a", "ACH45", 180,
     (("PPO", "PPO", "Atlas Choice National PPO"), ("HMO", "HMO", "Atlas Choice Local HMO"))),
    ("SLH", "Silverline Health Partners", "a", "SLH93", 120,
     (("EPO", "EPO", "Silverline Value EPO"),)),
    ("KMH", "Keystone Mutual Health", "b", "KMH88", 90,
     (("PPO", "PPO", "Keystone Mutual Preferred PPO"), ("HMO", "HMO", "Keystone Mutual Community HMO"),
      ("MA", "Medicare Advantage", "Keystone Mutual Senior Advantage"))),
)

# Payers whose contract with the practice allows a fixed share of billed charges, published
# on the payer's portal (Keystone's reimbursement page); the others' allowances vary by claim.
CONTRACT_ALLOWED_SHARE = {"KMH": 0.6}
# Days an overpayment notice gives the office to dispute before the payer offsets the recovery.
RECOUPMENT_DISPUTE_DAYS = 45
# Accounts-receivable follow-up: a claim billed this long ago with no answer from the payer.
NO_RESPONSE_DAYS = 45
# An HMO referral from the PCP of record covers its visits from its start date through this many days after.
REFERRAL_VALID_DAYS = 90

# (id, name, place of service, city index)
_FACILITIES = (
    ("FAC-HBG", "Susquehanna Valley Medical Group - Harrisburg", "11", 0),
    ("FAC-LAN", "Susquehanna Valley Medical Group - Lancaster", "11", 6),
    ("FAC-OPI", "Susquehanna Valley Hospital Outpatient Imaging", "22", 1),
    ("FAC-INF", "Susquehanna Valley Hospital Infusion Center", "22", 1),
    ("FAC-SLP", "Riverbend Sleep and Lung Center", "19", 2),
    ("FAC-ASC", "Capital Region Surgery Center", "24", 3),
    ("FAC-HOM", "Susquehanna Valley Home Care", "12", 5),
)

# What each site performs, as payers' facility directories list it (portal A's Provider Network).
FACILITY_SERVICES = {
    "FAC-OPI": ("MRI", "CT", "PET/CT", "Nuclear cardiology", "Cardiac CT angiography"),
    "FAC-INF": ("Infusion",),
    "FAC-SLP": ("Sleep study",),
    "FAC-ASC": ("Ambulatory surgery",),
}

# The inpatient hospital (place of service 21). It is made after the rest of the world (its own
# draws come last), so adding it changed none of the world's other records.
HOSPITAL = ("FAC-HOS", "Susquehanna Valley Hospital", "21", 0)
# The hospital's molecular diagnostics laboratory, which performs germline genetic tests on outpatient
# specimens (billed as on-campus outpatient hospital, 22). Made after the hospital, for the same reason.
MOLECULAR_LAB = ("FAC-MOL", "Susquehanna Valley Hospital Molecular Diagnostics Laboratory", "22", 1)
# An inpatient admission is notified to the payer by the end of the next business day.
NOTIFICATION_BUSINESS_DAYS = 1

# (specialty, count, facility ids to spread over, credential choices)
_SPECIALTIES = (
    ("Primary Care", 6, ("FAC-HBG", "FAC-LAN"), ("MD", "DO", "NP", "PA-C")),
    ("Orthopedics", 3, ("FAC-HBG", "FAC-LAN"), ("MD", "DO", "PA-C")),
    ("Neurology", 3, ("FAC-HBG", "FAC-LAN"), ("MD", "DO", "NP")),
    ("Pulmonology/Sleep Medicine", 3, ("FAC-SLP",), ("MD", "DO", "NP")),
    ("Cardiology", 3, ("FAC-HBG", "FAC-LAN"), ("MD", "DO")),
    ("Oncology", 3, ("FAC-INF",), ("MD", "DO", "NP")),
    ("Rheumatology", 2, ("FAC-HBG", "FAC-INF"), ("MD", "DO")),
    ("Endocrinology", 2, ("FAC-LAN", "FAC-HBG"), ("MD", "NP")),
    ("Physical Medicine & Rehabilitation", 2, ("FAC-HBG", "FAC-HOM"), ("MD", "DO")),
    ("Physical Therapy", 2, ("FAC-HBG", "FAC-LAN"), ("DPT",)),
)

_SUPPLIERS = (
    ("SUP-BRH", "BreatheRight Home Medical", ("cpap", "oxygen")),
    ("SUP-KSO", "Keystone Oxygen & Respiratory", ("oxygen",)),
    ("SUP-CMS", "Capital Mobility Solutions", ("mobility", "beds")),
    ("SUP-HCE", "HomeCare Equipment of Central PA", ("beds", "mobility", "oxygen")),
    ("SUP-GLS", "GlucoSource Diabetes Supply", ("diabetes",)),
    ("SUP-SDS", "SleepWell DME Services", ("cpap",)),
    ("SUP-VMS", "Valley Medical Supply", ("mobility", "diabetes", "cpap")),
)

# Staff per app: (username, display name, role). "coordinator"/"admindesk" is the
# harness's default login in every app.
_STAFF = {
    "ehr_web": (
        ("coordinator", "Jordan Ellis", "Prior Authorization Coordinator"),
        ("mreyes", "Maria Reyes", "Prior Authorization Coordinator"),
        ("tnguyen", "Tuan Nguyen", "Denials & Appeals Specialist"),
        ("kbrooks", "Kendra Brooks", "DME Coordinator"),
        ("lpatel", "Leena Patel", "Revenue Cycle Supervisor"),
        ("rwhitman", "Rachel Whitman, RN", "Clinical Appeals Nurse"),
    ),
    "payer_portal_a": (
        ("coordinator", "Jordan Ellis", "Provider Office Coordinator"),
        ("mreyes", "Maria Reyes", "Provider Office Coordinator"),
        ("tnguyen", "Tuan Nguyen", "Billing Specialist"),
        ("lpatel", "Leena Patel", "Office Administrator"),
    ),
    "payer_portal_b": (
        ("coordinator", "Jordan Ellis", "Provider Office Coordinator"),
        ("mreyes", "Maria Reyes", "Provider Office Coordinator"),
        ("tnguyen", "Tuan Nguyen", "Billing Specialist"),
        ("lpatel", "Leena Patel", "Office Administrator"),
    ),
    "fax": (
        ("coordinator", "Jordan Ellis", "Coordinator"),
        ("mreyes", "Maria Reyes", "Coordinator"),
        ("kbrooks", "Kendra Brooks", "DME Coordinator"),
        ("lpatel", "Leena Patel", "Fax Administrator"),
    ),
}
STAFF_PASSWORD = "admindesk"


def build_payers(ids: UniqueIds) -> tuple[tuple[Payer, ...], tuple[Plan, ...]]:
    """Payers and their plans; fax and phone numbers are unique toll-free numbers."""
    payers, plans = [], []
    for suffix, name, portal, code, days, plan_specs in _PAYERS:
        payer_id = f"PYR-{suffix}"
        payers.append(Payer(
            id=payer_id, name=name, portal=portal, payer_code=code,
            phone=ids.draw(lambda r: phone_number(r, TOLL_FREE)),
            pa_fax=ids.draw(lambda r: phone_number(r, TOLL_FREE)),
            appeals_fax=ids.draw(lambda r: phone_number(r, TOLL_FREE)),
            timely_appeal_days=days, allowed_share=CONTRACT_ALLOWED_SHARE.get(suffix),
        ))
        for plan_suffix, product, plan_name in plan_specs:
            plans.append(Plan(
                id=f"PLN-{suffix}-{plan_suffix}", payer_id=payer_id, name=plan_name,
                product=product, group_prefix=f"{suffix[0]}{plan_suffix[:2]}",
            ))
    return tuple(payers), tuple(plans)


def build_facilities(fake: Faker, rng: random.Random, ids: UniqueIds) -> tuple[Facility, ...]:
    """The health system's sites; each has its own organisational NPI and fax line."""
    tax_id = f"23-{rng.randrange(1000000, 9999999)}"
    return tuple(
        Facility(
            id=fid, name=name, address=fake.street_address(), city=CITIES[ci][0], state=STATE,
            zip=CITIES[ci][1], npi=ids.draw(lambda r: make_npi(r, "1")),
            tax_id=tax_id, phone=ids.draw(lambda r: phone_number(r, AREA_CODES)),
            fax=ids.draw(lambda r: phone_number(r, AREA_CODES)), place_of_service=pos,
        )
        for fid, name, pos, ci in _FACILITIES
    )


def build_hospital(fake: Faker, ids: UniqueIds, tax_id: str, site: tuple = HOSPITAL) -> Facility:
    """A site made after the rest of the world: the inpatient hospital (HOSPITAL), its laboratory
    (MOLECULAR_LAB)."""
    fid, name, pos, ci = site
    return Facility(id=fid, name=name, address=fake.street_address(), city=CITIES[ci][0], state=STATE,
                    zip=CITIES[ci][1], npi=ids.draw(lambda r: make_npi(r, "1")), tax_id=tax_id,
                    phone=ids.draw(lambda r: phone_number(r, AREA_CODES)),
                    fax=ids.draw(lambda r: phone_number(r, AREA_CODES)), place_of_service=pos)


def build_providers(fake: Faker, rng: random.Random, ids: UniqueIds) -> tuple[Provider, ...]:
    """Clinicians by specialty, each with a direct phone and fax line."""
    providers = []
    for specialty, count, facility_ids, credentials in _SPECIALTIES:
        for index in range(count):
            female = rng.random() < 0.5
            providers.append(Provider(
                npi=ids.draw(lambda r: make_npi(r, "1")),
                first_name=fake.first_name_female() if female else fake.first_name_male(),
                last_name=fake.last_name(),
                credentials=credentials[index % len(credentials)],
                specialty=specialty,
                facility_id=facility_ids[index % len(facility_ids)],
                phone=ids.draw(lambda r: phone_number(r, AREA_CODES)),
                fax=ids.draw(lambda r: phone_number(r, AREA_CODES)),
            ))
    return tuple(providers)


def build_suppliers(fake: Faker, rng: random.Random, ids: UniqueIds) -> tuple[Supplier, ...]:
    """DME suppliers with organisational NPIs and intake fax lines."""
    suppliers = []
    for sid, name, categories in _SUPPLIERS:
        city, zip_code = rng.choice(CITIES)
        suppliers.append(Supplier(
            id=sid, name=name, npi=ids.draw(lambda r: make_npi(r, "1")),
            phone=ids.draw(lambda r: phone_number(r, AREA_CODES)),
            fax=ids.draw(lambda r: phone_number(r, AREA_CODES)),
            address=fake.street_address(), city=city, state=STATE, zip=zip_code,
            categories=categories,
        ))
    return tuple(suppliers)


def build_staff() -> tuple[StaffAccount, ...]:
    """Logins for every app, in a fixed order."""
    return tuple(
        StaffAccount(username, STAFF_PASSWORD, display, role, app)
        for app, accounts in _STAFF.items()
        for username, display, role in accounts
    )
