"""Reference solution of template dme/home_oxygen: home oxygen for a Keystone Mutual member
under policy KM-DME-402.

The coordinator reads every oxygen test the chart holds (the oximetry reports and the visit's
own measurement) and keeps those that count: done within the 30 days before the written order,
in a chronic stable state, and not by a DME supplier. A Group I value qualifies alone; a Group II
value (SpO2 89%) needs a finding the visit note documents (dependent edema, cor pulmonale or
pulmonary hypertension, a hematocrit above 56%). Qualifying: a DME request with the test's facts,
the report, the visit note and the written order, recorded on the order and the item. Not
qualifying: nothing filed, a staff message to the ordering provider saying what is missing, an
item note, the item On Hold.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.dme import portal_b_request, steps as dme_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"
POLICY = "KM-DME-402"
TEST_DAYS, GROUP_I_SPO2, GROUP_II_SPO2, ERYTHROCYTHEMIA_HCT = 30, 88, 89, 56
GROUP_MONTHS, GROUP_II_RETEST = {"I": 12, "II": 3}, (61, 90)
FOLLOW_UP_DAYS = 7
# The visit note's Group II findings, as the portal names them, and how a note states them.
GROUP_II_FINDINGS = {"Dependent edema / congestive heart failure": re.compile(r"\d\+ [\w ]*pitting edema"),
                     "Pulmonary hypertension / cor pulmonale": re.compile(r"consistent with cor pulmonale")}
HEMATOCRIT = re.compile(r"Hematocrit (\d+)%")


@dataclass(frozen=True)
class OxygenTest:
    """One oxygen test in the chart, as its document states it."""

    doc_key: str
    day: date
    performer: str
    conditions: str
    rest: int | None
    exertion: int | None
    on_oxygen: int | None

    @property
    def by_supplier(self) -> bool:
        return "supplier" in self.performer.lower()

    def group_i(self) -> bool:
        return (self.rest is not None and self.rest <= GROUP_I_SPO2) or (
            self.exertion is not None and self.exertion <= GROUP_I_SPO2 and self.on_oxygen is not None
            and self.on_oxygen > self.exertion)

    def group_ii_value(self) -> bool:
        return GROUP_II_SPO2 in (self.rest, self.exertion)

    def described(self) -> str:
        values = ", ".join(f"{label} {value}%" for label, value in (
            ("resting SpO2", self.rest), ("SpO2 walking on room air", self.exertion),
            ("SpO2 walking on oxygen", self.on_oxygen)) if value is not None)
        return f"{us_date(self.day)} ({values}; performed by {self.performer})"


def chart_tests(work: Work) -> list[OxygenTest]:
    """The oxygen tests the chart's documents state (an oximetry report, or a visit's own measurement)."""
    tests = []
    for doc in work.case["documents"]:
        facts = doc.get("facts") or {}
        if facts.get("spo2_rest") is None and facts.get("spo2_exertion") is None:
            continue
        performer = facts.get("tested_by") or f"the treating practitioner ({doc.get('author')}) at the visit"
        tests.append(OxygenTest(doc["key"], date.fromisoformat(str(facts.get("test_date") or doc["date"])), performer,
                                facts.get("test_conditions") or "at rest on room air, in the office, stable",
                                facts.get("spo2_rest"), facts.get("spo2_exertion"), facts.get("spo2_on_oxygen")))
    return tests


def group_ii_findings(work: Work) -> list[str]:
    """The Group II findings the visit note documents."""
    narrative = next(d for d in work.case["documents"] if d["key"] == "visit").get("narrative") or ""
    found = [name for name, pattern in GROUP_II_FINDINGS.items() if pattern.search(narrative)]
    hematocrit = HEMATOCRIT.search(narrative)
    if hematocrit and int(hematocrit.group(1)) > ERYTHROCYTHEMIA_HCT:
        found.append("Erythrocythemia")
    return found


def decide(work: Work) -> None:
    """Which test qualifies and under which group, against the written order's date."""
    order_day = dme_steps.document_date(work, "wo")
    earliest = order_day - timedelta(days=TEST_DAYS)
    findings = group_ii_findings(work)
    reasons, chosen = [], None
    for test in sorted(chart_tests(work), key=lambda t: t.day, reverse=True):
        if test.by_supplier:
            reasons.append(f"the test of {test.described()} was performed by the DME supplier, which {POLICY} does "
                           "not accept")
        elif not earliest <= test.day <= order_day:
            reasons.append(f"the test of {test.described()} is outside the 30 days before the written order of "
                           f"{us_date(order_day)} ({us_date(earliest)} to {us_date(order_day)})")
        elif test.group_i():
            chosen = chosen or (test, "I")
        elif test.group_ii_value() and findings:
            chosen = chosen or (test, "II")
        elif test.group_ii_value():
            reasons.append(f"the test of {test.described()} is in Group II's range, and the visit note documents no "
                           "Group II finding (no dependent edema, no pulmonary hypertension or cor pulmonale, no "
                           "hematocrit above 56%)")
        else:
            reasons.append(f"the test of {test.described()} is above Group I and Group II values")
    work.notes.update(order_day=order_day.isoformat(), findings=", ".join(findings),
                      not_used="; ".join(reasons))
    if chosen:
        test, group = chosen
        work.notes.update(test_key=test.doc_key, test_day=test.day.isoformat(), test_text=test.described(),
                          group=group, test_rest=str(test.rest), test_lab="laboratory" in test.performer.lower())


def review(work: Work, met: bool) -> dict[str, dict]:
    """The order's documents opened (and, to file, downloaded); returns the item's supplier list."""
    work.notes["documents"] = dme_steps.order_documents(work)
    for key in ("visit", "oxi"):
        ehr_steps.open_document(work, key)
    if met:
        for key in ("oxi", "visit", "wo"):
            work.notes[f"file:{key}"] = dme_steps.download_from_order(work, key)
    decide(work)
    dme_steps.open_dme_item(work)
    return dme_steps.read_suppliers(work)


def fill_request(work: Work, supplier: str) -> None:
    """The DME request from the chart: the order, the visit, the qualifying test and its group's findings."""
    actor, notes = work.actor, work.notes
    test_key = work.need("test_key")  # decided in the review
    dme_steps.to_tab(work, int(work.need("portal_b_tab")))
    actor.click("nav a[href='/dme/new']")
    actor.fill("input[name=subscriber_id]", notes["member"])
    actor.fill("input[name=subscriber_dob]", portal_b.portal_b_date(date.fromisoformat(work.patient["dob"])))
    actor.fill("input[name=hcpcs_code]", notes["code"])
    actor.fill("input[name=diagnosis_codes]", notes["diagnoses"])
    actor.fill("input[name=ordering_npi]", notes["provider_npi"])
    actor.select_containing("select[name=supplier_npi]", supplier + " (NPI")
    actor.fill("input[name=face_to_face_date]", portal_b.portal_b_date(dme_steps.document_date(work, "visit")))
    actor.fill("input[name=order_date]", portal_b.portal_b_date(dme_steps.document_date(work, "wo")))
    actor.fill("input[name=spo2_rest]", notes["test_rest"])
    actor.fill("input[name=oxygen_test_date]", portal_b.portal_b_date(date.fromisoformat(notes["test_day"])))
    actor.select_option("select[name=oxygen_test_by]", "Hospital or independent testing facility"
                        if notes["test_lab"] else "Treating practitioner")
    actor.select_option("select[name=oxygen_test_state]", "Chronic stable state, outpatient")
    if notes["group"] == "II":
        for finding in notes["findings"].split(", "):
            actor.click(f"select[name=oxygen_conditions] option:text-is('{finding}')")
    notes.update(supplier=supplier, test_doc=test_key)


def attach(work: Work) -> None:
    actor = work.actor
    actor.upload("input[name=written_order]", work.need("file:wo"))
    actor.select_option("select[name=document_type_2]", "Oximetry or blood gas report")
    actor.upload("input[name=attachment_2]", work.need(f"file:{work.need('test_doc')}"))
    actor.select_option("select[name=document_type_3]", "Clinical notes")
    actor.upload("input[name=attachment_3]", work.need("file:visit"))


def record(work: Work, follow_up: str) -> None:
    """The approval on the order (from the planned delivery for the group's months) and the item."""
    notes = work.notes
    group = work.need("group")
    start = parse_us_date(work.need("planned"))
    end = dme_steps.months_after(start, GROUP_MONTHS[group]) - timedelta(days=1)
    dme_steps.to_order(work)
    ehr_steps.record_authorization(work, status="Approved", payer=KEYSTONE, auth_number=work.need("auth_number"),
                                   reference=work.need("request_id"), start=us_date(start), end=us_date(end))
    order_day = date.fromisoformat(notes["order_day"])
    retest = ""
    if group == "II":
        retest = (f" Group II: continued coverage needs a retest and a re-evaluation by {notes['provider']} between "
                  f"day {GROUP_II_RETEST[0]} and day {GROUP_II_RETEST[1]} after the initial date {us_date(order_day)} "
                  f"({us_date(order_day + timedelta(days=GROUP_II_RETEST[0]))} to "
                  f"{us_date(order_day + timedelta(days=GROUP_II_RETEST[1]))}); I will remind the office to book it.")
    dme_steps.back_to_item(work)
    dme_steps.update_dme_item(
        work, "In Progress", supplier=notes["supplier"], follow_up=follow_up,
        note=f"{KEYSTONE} approved DME request {notes['request_id']} for the {notes['code']}: authorization "
             f"{notes['auth_number']}, Group {group}, {GROUP_MONTHS[group]}-month rental ({us_date(start)} to "
             f"{us_date(end)}). Patient {work.patient_name}, DOB {us_date(work.patient['dob'])}, member "
             f"{notes['member']}. Qualifying test under policy {POLICY}: {notes['test_text']}, within the 30 days "
             f"before the written order of {us_date(order_day)}"
             + (f"; Group II finding documented in the visit note: {notes['findings']}" if group == "II" else "")
             + f". Not used: {notes['not_used'] or 'none'}. Attached: the oximetry report, the visit note and the "
             f"written order. Supplier: {notes['supplier']}.{retest} Next: the supplier schedules delivery; I will "
             f"follow up on {follow_up}.")


def stop_text(work: Work) -> str:
    return (f"No home oxygen test in the chart qualifies under {KEYSTONE} policy {POLICY} for the {work.notes['code']} "
            f"ordered {us_date(date.fromisoformat(work.need('order_day')))}: {work.need('not_used')}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    met = "submit_request" in {s.id for s in work.task.subtasks}
    equipment = dme_steps.open_equipment_order(work)
    suppliers: dict[str, dict] = {}
    if work.doing("review_chart"):
        suppliers = review(work, met)
    if work.doing("check_policy"):
        portal_b.open_portal_b(work)
        portal_b_request.read_policy(work)
    follow_up = us_date(work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS))
    if met:
        if work.doing("submit_request"):
            if not suppliers:
                work.need("suppliers")  # the review that reads them was skipped
            fill_request(work, suppliers[work.case["orders"][0]["supplier"]]["name"])
            if work.doing("attach_documents"):
                attach(work)
            portal_b_request.submit_approved(work, "the oxygen")
        if work.doing("record_outcome"):
            record(work, follow_up)
        work.finish(f"Keystone Mutual approved the {equipment} under Group {work.notes.get('group', '?')} for "
                    f"{GROUP_MONTHS.get(work.notes.get('group'), '?')} months: authorization "
                    f"{work.notes.get('auth_number', '(none)')} (DME request {work.notes.get('request_id', '(none)')})."
                    + (f" A retest and re-evaluation are due between day {GROUP_II_RETEST[0]} and day "
                       f"{GROUP_II_RETEST[1]}." if work.notes.get("group") == "II" else ""))
        return
    if work.notes.get("group"):
        raise ScriptFailed(f"a test qualifies: {work.notes['test_text']}")
    dme_steps.route_to_provider_and_hold(
        work, f"Home oxygen order {work.notes['order_id']}: no qualifying test ({POLICY})",
        f"{work.patient_name}, DOB {us_date(work.patient['dob'])}: the {work.notes['code']} order cannot go to "
        f"{KEYSTONE} yet. {stop_text(work)} Please repeat the oximetry in the office or a testing facility (not the "
        "supplier), within the 30 days before a new written order, or document a Group II finding (dependent edema, "
        "pulmonary hypertension or cor pulmonale, hematocrit above 56%) if present. Nothing was submitted to the "
        "payer and the supplier was not sent the order.",
        f"Not submitted; no supplier sent the order. {stop_text(work)} Staff message sent to the ordering provider, "
        f"{work.notes['provider']}, for a qualifying test not done by the supplier or Group II documentation. On "
        f"hold; I will follow up on {follow_up}.", follow_up)
    work.finish(f"Nothing was submitted for the {equipment}. {stop_text(work)} The ordering provider was messaged and "
                "the DME item is On Hold.")
