"""A new patient for a drawn case: name, date of birth and look-alikes, and the text that quotes them.

The trap a case sets with its look-alikes keeps its shape: a look-alike that shares the
patient's name shares the new name, one with a near name gets a new near name (same first
two letters), and every date of birth moves by the same number of days, so a look-alike
born a week apart still is. The patient stays in the same age band on the task's day
(minor, adult under 26, adult, Medicare age), which the plans and the rules depend on.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from faker import Faker
from faker.providers.person.en_US import Provider as Names

AGE_BANDS = (18, 26, 65)
# Years and days a date of birth may move (a different person, of about the same age).
DOB_YEARS, DOB_DAYS = 9, 150
MAX_TRIES = 200


@dataclass
class TextMap:
    """Old text -> new text, applied to every free-text field of a case (longest first)."""

    pairs: dict[str, str] = field(default_factory=dict)

    def add(self, old: str, new: str) -> None:
        if old and old != new:
            self.pairs[old] = new

    def apply(self, text: str) -> str:
        if not self.pairs:
            return text
        pattern = re.compile("|".join(rf"\b{re.escape(old)}\b" for old in sorted(self.pairs, key=len, reverse=True)))
        return pattern.sub(lambda match: self.pairs[match.group(0)], text)


def _age_band(dob: date, today: date) -> int:
    age = today.year - dob.year - ((today.month, today.day) < (dob.month, dob.day))
    return sum(age >= edge for edge in AGE_BANDS)


def _first_names(sex: str) -> list[str]:
    return sorted(Names.first_names_female if sex == "F" else Names.first_names_male)


def _near_name(name: str, sex: str, rng: random.Random) -> str:
    """Another first name starting like `name` (the look-alike a hurried reader confuses)."""
    for prefix_length in (2, 1):
        near = [n for n in _first_names(sex) if n[:prefix_length] == name[:prefix_length] and n != name]
        if near:
            return rng.choice(near)
    return rng.choice([n for n in _first_names(sex) if n != name])


def _last_name(old: str, fake: Faker, avoid: set[str]) -> str:
    """A new surname, hyphenated when the old one was."""
    for _ in range(MAX_TRIES):
        parts = [fake.last_name() for _ in old.split("-")]
        new = "-".join(parts)
        if new not in avoid and len(set(parts)) == len(parts):
            return new
    raise RuntimeError("no fresh surname found")


def _move_dob(dob: date, today: date, rng: random.Random) -> date:
    for _ in range(MAX_TRIES):
        years = rng.choice([y for y in range(-DOB_YEARS, DOB_YEARS + 1) if y])
        moved = date(dob.year + years, dob.month, min(dob.day, 28)) + timedelta(days=rng.randint(-DOB_DAYS, DOB_DAYS))
        if _age_band(moved, today) == _age_band(dob, today) and moved < today:
            return moved
    return dob + timedelta(days=rng.choice([-1, 1]) * rng.randint(30, DOB_DAYS))


def _date_forms(day: date) -> list[str]:
    return [day.isoformat(), f"{day:%m/%d/%Y}"]


def new_identity(case: dict[str, Any], today: date, rng: random.Random, avoid_names: set[str]) -> TextMap:
    """Give `case` (edited in place) a new patient and look-alikes; returns the map that
    rewrites the free text quoting the old ones (names and dates of birth)."""
    fake = Faker("en_US")
    fake.seed_instance(rng.getrandbits(32))
    patient = case["patient"]
    text = TextMap()
    old_first, old_last, old_dob = patient["first_name"], patient["last_name"], date.fromisoformat(patient["dob"])
    new_first = rng.choice([n for n in _first_names(patient["sex"]) if n != old_first])
    new_last = _last_name(old_last, fake, avoid_names | {old_last})
    new_dob = _move_dob(old_dob, today, rng)
    shift = new_dob - old_dob
    text.add(f"{old_first} {old_last}", f"{new_first} {new_last}")
    text.add(f"{old_last}, {old_first}", f"{new_last}, {new_first}")
    text.add(old_last, new_last)
    text.add(old_first, new_first)
    for old, new in zip(_date_forms(old_dob), _date_forms(new_dob)):
        text.add(old, new)
    patient.update(first_name=new_first, last_name=new_last, dob=new_dob.isoformat())
    for field_name in ("address", "city", "zip", "phone"):
        patient.pop(field_name, None)  # drawn from the case's slot, like every public case's
    for lookalike in case.get("lookalikes", []):
        # Unset names copy the patient's; a name set to the patient's own follows it.
        if lookalike.get("first_name") == old_first:
            lookalike["first_name"] = new_first
        elif "first_name" in lookalike:
            near = _near_name(new_first, lookalike.get("sex", patient["sex"]), rng)
            text.add(lookalike["first_name"], near)
            lookalike["first_name"] = near
        if lookalike.get("last_name") == old_last:
            lookalike["last_name"] = new_last
        elif "last_name" in lookalike:
            other = _last_name(lookalike["last_name"], fake, avoid_names | {new_last})
            text.add(lookalike["last_name"], other)
            lookalike["last_name"] = other
        if "dob" in lookalike:
            lookalike["dob"] = (date.fromisoformat(lookalike["dob"]) + shift).isoformat()
    for coverage in case.get("coverages", []):
        if coverage.get("subscriber_name"):
            coverage["subscriber_name"] = text.apply(coverage["subscriber_name"])
    return text
