"""The case facts a rubric is judged against: what the judge may check the text with.

A task's case (admindesk.schema.case_model, as checks read it: the case as JSON plus the
record `ids`, see case_ids.case_values) is flattened into facts, one per value, each named
by its dotted path. List items are named by their case `key` where they have one, by
position otherwise; a list of plain values (diagnoses, modifiers) is one fact:

    patient.dob: "1966-06-18"                       orders.svc.code: "72148"
    documents.addendum.facts.physical_therapy_weeks: 7
    claims.denied.lines.0.adjustments.0.carc: "50"  ids.claims.denied: "CLM26-0476000"

Selection rule for one rubric. Every fact of the case goes to the judge (the patient's
name, birth date and sex, look-alike patients, coverages and member ids, orders, the
documents' dates, titles, narratives and stated facts, the payer's history, claims,
remittances, the inbound faxes' senders, CSIDs and pages, and every record id): a rubric that
asks whether text agrees with the chart, invents nothing or names the right patient is
judged against all of it, and any value a rubric names is among them. Two kinds of value
are left out:
- the patient's contact details (address, city, zip, phone, language), which rubrics do
  not judge, unless the rubric names the value;
- values rendered longer than MAX_TEXT characters: the pages of inbound faxes (letters
  whose content the typed facts already give), and the case's id slot.

Size, as the prompt's CASE FACTS section: 74 facts and 2,866 characters (about 800
tokens) for the suite's largest (appeal-hard-04), 25 facts and 814 characters for the
smallest, 1,562 characters on average over the 135 tasks.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

# Longer values are letters and pages, not facts to check a detail against.
MAX_TEXT = 200
CONTACT_DETAILS = frozenset({"address", "city", "zip", "phone", "language"})
# Case fields that are bookkeeping of the case file, not facts of the situation.
NOT_FACTS = frozenset({"slot"})


def case_facts(case: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every value of the case by dotted path, in case order (None and empty lists left out)."""
    facts: dict[str, Any] = {}

    def visit(value: Any, path: str) -> None:
        if isinstance(value, Mapping):
            for name, item in value.items():
                visit(item, f"{path}.{name}")
        elif isinstance(value, list) and any(isinstance(item, (Mapping, list)) for item in value):
            for index, item in enumerate(value):
                if isinstance(item, Mapping) and item.get("key"):
                    visit({name: part for name, part in item.items() if name != "key"}, f"{path}.{item['key']}")
                else:
                    visit(item, f"{path}.{index}")
        elif value is not None and value != []:
            facts[path] = value

    for name, value in (case or {}).items():
        if name not in NOT_FACTS:
            visit(value, name)
    return facts


def names_value(rubric: str, value: Any) -> bool:
    """Whether `rubric` names `value`: its text appears there as a whole word, any case."""
    text = str(value).strip()
    if not text or isinstance(value, (bool, list)):
        return False
    return re.search(rf"(?<!\w){re.escape(text)}(?!\w)", rubric, re.IGNORECASE) is not None


def rubric_facts(case: Mapping[str, Any] | None, rubric: str) -> dict[str, Any]:
    """The facts a judge gets for `rubric` over `case` (the module docstring gives the rule)."""
    selected = {}
    for name, value in case_facts(case).items():
        if len(json.dumps(value)) > MAX_TEXT:
            continue
        if name.rsplit(".", 1)[-1] in CONTACT_DETAILS and name.startswith("patient.") \
                and not names_value(rubric, value):
            continue
        selected[name] = value
    return selected
