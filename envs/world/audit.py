"""World audit: re-run the payers' rules over the built world and every task's case, and
list what contradicts them.

    python -m admindesk.envs.world.audit [--seed N] [--tasks-dir DIR]

Prints, per scenario family, how many open orders, requests on file and claims the world
holds, then the count of each inconsistency kind; then the same for the task cases (each
case built on the world as a reset builds it, in the chart's and the payer's view, and
measured against its task's `now`); and exits 1 when there is any (CI runs it). The rules
are the world's own restatement of the portals' policies (`review_rules`), the same ones the
generator decides with, checked here record by record. A request on file for a code those
rules do not restate cannot be judged: the report counts such codes instead.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from admindesk.envs.world import DEFAULT_SEED, WORLD_ANCHOR, build_world, ncci
from admindesk.envs.world.audit_rules.diagnosis import KINDS as DIAGNOSIS_KINDS, audit_diagnosis_denials
from admindesk.envs.world.audit_rules.enrollment import KINDS as ENROLLMENT_KINDS, audit_enrollments
from admindesk.envs.world.audit_rules.eob_faxes import KINDS as EOB_FAX_KINDS, audit_eob_faxes
from admindesk.envs.world.audit_rules.injury import KINDS as INJURY_KINDS, audit_injuries
from admindesk.envs.world.audit_rules.inpatient import KINDS as INPATIENT_KINDS, audit_inpatient
from admindesk.envs.world.audit_rules.ndc import KINDS as NDC_KINDS, audit_ndc_denials
from admindesk.envs.world.cases.builder import CaseError, build_case
from admindesk.envs.world.claim_lines import EVALUATION_AND_MANAGEMENT, MEDICARE_COVERAGE_REMARKS
from admindesk.envs.world.claims import DENIED_ALTHOUGH_MET, SUPPLIER_CATEGORY
from admindesk.envs.world.faxes import answered_order, faxed_request
from admindesk.envs.world.models import Authorization, Claim
from admindesk.envs.world.org import NO_RESPONSE_DAYS
from admindesk.envs.world.retired_codes import NOT_BILLABLE_2026, not_billable
from admindesk.envs.world.review_rules import (
    MEDICARE_PRODUCTS,
    MET,
    NOT_REVIEWED,
    family_of,
    restated,
    review,
    service_rule,
)
from admindesk.envs.world.world import World
from admindesk.schema.task_model import TASKS_ROOT, Task, load_tasks

# Inconsistency kinds, in report order, with what each one means.
KINDS = {
    "invalid_code": "a header or deleted code used as billable (orders, claims, auths, facts, code sets)",
    "auth_contradicts_rules": "a decision on file the payer's rules do not give, with no deliberate-error label",
    "auth_for_unreviewed_service": "a request on file for a service the payer does not review",
    "mislabelled_deliberate_error": "a denial labelled deliberate although the rules deny it too",
    "denial_quotes_wrong_criterion": "a denial (record or letter) that does not quote the criterion that failed",
    "rfi_asks_wrong_records": "a request for information that does not ask for what the service needs",
    "paid_outside_coverage": "a claim paid for a date the coverage was not active",
    "coverage_denial_on_active_date": "a CO-26/CO-27 denial for a date the coverage was active",
    "paid_without_required_auth": "a claim paid for a reviewed service without an approved auth",
    "necessity_denial_without_auth": "a CO-50 denial of a reviewed service that had no approved auth "
                                     "(the payer denies a missing auth as such: CO-197)",
    "co197_with_covering_auth": "a CO-197 (authorization absent) on a line the authorization the claim carries "
                                "covers (its code, units and dates)",
    "dme_not_billed_by_supplier": "a DME claim whose billing provider is not a supplier of that equipment",
    "co18_without_original": "a CO-18 duplicate without the paid original claim it repeats",
    "co109_without_responsible_payer": "a CO-109 (another payer responsible) with no other payer's coverage "
                                        "in force on the date of service",
    "medicare_remark_on_non_medicare_plan": "N386/N115 on a plan that is not Medicare or Medicare Advantage",
    "co97_not_bundled": "a CO-97 bundling the correct coding edits do not make (an E/M without modifier 25 next to "
                        "a procedure, or a procedure pair's column-2 code without a modifier the pair allows)",
    "priced_off_contract": "a paid line of a payer with a published contract allowed off it, unless the claim is "
                           "labelled underpaid (and a labelled claim with every line on it)",
    "recoupment_not_a_duplicate": "an overpayment recovery whose first payment is not the same patient, payer and "
                                  "date with the same lines (code, modifiers, units), unless labelled payer_error "
                                  "(and a labelled one whose lines are the same)",
    "benefit_limit_miscounted": "a CARC 119 visit-limit denial whose accumulator is missing, counts the denied "
                                "visit's date, or whose visits in the period (distinct dates) do not reach the "
                                "limit unless labelled payer_error (and a labelled one that does reach it)",
    "therapy_visits_inconsistent": "a therapy visit accumulator with a visit after today, or a chart note whose "
                                   "count of the period's visits is not the accumulator's through its date",
    "clearinghouse_history_mismatch": "a claim's clearinghouse history with a transmission before the date of "
                                      "service, a report that is not a clearinghouse report in the patient's chart "
                                      "dated its transmission, or a last transmission that is not the accepted "
                                      "claim the payer received (its submitted date)",
    "appeal_deadline_mismatch": "a remittance appeal deadline that is not the payer's appeal window",
    "dated_after_today": "a claim serviced or submitted, or a remittance paid, after today (a task's `now`)",
    "unanswered_claim_inconsistent": "a claim the office follows up as unanswered (no_response) billed fewer than "
                                     f"{NO_RESPONSE_DAYS} days before today, or with a remittance in the chart",
    "fax_request_before_order": "a request in the fax history faxed before the order it requests",
    "fax_answer_before_request": "a payer's letter or supplier's confirmation received before its faxed request",
    **INPATIENT_KINDS,
    **INJURY_KINDS,
    **NDC_KINDS,
    **DIAGNOSIS_KINDS,
    **EOB_FAX_KINDS,
    **ENROLLMENT_KINDS,
}
OPEN_ORDER_STATUSES = ("Ordered", "Scheduled")
_RETIRED_IN_TEXT = re.compile(r"(?<![\w.])(" + "|".join(re.escape(c) for c in NOT_BILLABLE_2026) + r")(?!\.?\w)")


@dataclass(frozen=True)
class Finding:
    """One inconsistency: its kind, the scenario family, the record and what is wrong."""

    kind: str
    family: str
    record: str
    detail: str


@dataclass
class AuditReport:
    """Findings plus per-family counts of what was audited, and the codes of requests on
    file that the rules do not restate (not judged)."""

    findings: list[Finding] = field(default_factory=list)
    family_counts: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    unjudged_codes: Counter = field(default_factory=Counter)

    def add(self, kind: str, family: str, record: str, detail: str) -> None:
        self.findings.append(Finding(kind, family, record, detail))

    def counts(self) -> Counter:
        """Findings per kind (every kind present, zero when clean)."""
        counted = Counter({kind: 0 for kind in KINDS})
        counted.update(f.kind for f in self.findings)
        return counted


def _facts_by_order(world: World) -> dict[str, dict[str, str]]:
    facts: dict[str, dict[str, str]] = {}
    for document in world.documents:
        if document.order_id:
            facts.setdefault(document.order_id, {}).update(document.facts)
    return facts


def _audit_codes(world: World, report: AuditReport) -> None:
    for code in not_billable([*world.codes.icd10, *world.codes.procedures]):
        report.add("invalid_code", "code_sets", code, f"{code} is in the code sets: {NOT_BILLABLE_2026[code]}")
    for order in world.orders:
        for code in not_billable((order.code, *order.diagnosis_codes)):
            report.add("invalid_code", family_of(order.code), order.id, f"order uses {code}")
    for enc in world.encounters:
        for code in not_billable(enc.diagnosis_codes):
            report.add("invalid_code", "office_visit", enc.id, f"encounter diagnosis {code}")
    for claim in world.claims:
        for line in claim.lines:
            for code in not_billable((line.code, *line.diagnosis_codes)):
                report.add("invalid_code", _claim_family(world, claim), claim.claim_number,
                           f"line {line.line_no} bills {code}")
    for auth in world.authorizations:
        for code in not_billable((auth.code,)):
            report.add("invalid_code", family_of(auth.code), auth.case_number, f"request on file for {code}")
    for document in world.documents:
        family = family_of(world.order(document.order_id).code) if document.order_id else "office_visit"
        for key, value in document.facts:
            for code in _RETIRED_IN_TEXT.findall(value):
                report.add("invalid_code", family, document.id, f"fact {key} states {code}")


def _claim_family(world: World, claim: Claim) -> str:
    return family_of(world.order(claim.order_id).code) if claim.order_id else "office_visit"


def _product(world: World, coverage_id: str) -> str:
    return world.plan(world.coverage(coverage_id).plan_id).product


def _audit_authorizations(world: World, report: AuditReport, facts: dict[str, dict[str, str]]) -> None:
    by_member = {c.member_id: c for c in world.coverages}
    for auth in world.authorizations:
        order, coverage = world.order(auth.order_id), by_member[auth.member_id]
        family, rule = family_of(auth.code), service_rule(auth.code)
        report.family_counts[family][f"auth {auth.status.lower()}"] += 1
        if not restated(auth.code):
            report.unjudged_codes[auth.code] += 1
            continue
        outcome = review(auth.code, world.payer(auth.payer_id).portal, _product(world, coverage.id),
                         facts.get(order.id, {}), coverage.active_on(auth.start))
        record = auth.case_number
        if outcome.outcome == NOT_REVIEWED:
            report.add("auth_for_unreviewed_service", family, record, f"{auth.status} request for {auth.code}")
            continue
        if auth.status == "Approved" and outcome.outcome != MET:
            report.add("auth_contradicts_rules", family, record, f"approved although {outcome.criterion_id} fails")
        elif auth.status == "Denied" and outcome.outcome == MET:
            if auth.deliberate_error != DENIED_ALTHOUGH_MET:
                report.add("auth_contradicts_rules", family, record, "denied although the criteria are met")
        elif auth.status == "Denied":
            if auth.deliberate_error is not None:
                report.add("mislabelled_deliberate_error", family, record, f"labelled {auth.deliberate_error}")
            if auth.decision_reason != outcome.reason or auth.failed_criterion != outcome.criterion_id:
                report.add("denial_quotes_wrong_criterion", family, record,
                           f"quotes {auth.failed_criterion!r}, failed {outcome.criterion_id!r}")
        elif auth.status == "Pended" and auth.requested_items != (rule.records_needed,):
            report.add("rfi_asks_wrong_records", family, record, f"asks for {auth.requested_items}")


def _audit_faxes(world: World, report: AuditReport) -> None:
    by_case = {a.case_number: a for a in world.authorizations}
    for fax in world.faxes:
        if fax.kind not in ("determination_letter", "request_for_information"):
            continue
        text = "\n".join(fax.pages_text)
        auth = next((by_case[case] for case in re.findall(r"Case number: (\S+)", text) if case in by_case), None)
        if auth is None:
            continue
        family = family_of(auth.code)
        if auth.status == "Denied" and auth.decision_reason not in text:
            report.add("denial_quotes_wrong_criterion", family, fax.id, "letter does not quote the decision reason")
        if auth.status == "Pended" and service_rule(auth.code).records_needed not in text:
            report.add("rfi_asks_wrong_records", family, fax.id, f"letter does not ask for what {auth.code} needs")


def _audit_fax_history(world: World, report: AuditReport) -> None:
    """The outbox's past sends (the requests the received answers answer, as the fax app
    seeds them): each faxed on or after its order's date, each answer after its request."""
    for fax in world.faxes:
        request = faxed_request(world, fax)
        if request is None:
            continue
        order = answered_order(world, fax)
        family = family_of(order.code) if order else "office_visit"
        if order is not None and request.queued_at.date() < order.ordered_on:
            report.add("fax_request_before_order", family, fax.id,
                       f"{request.kind} faxed {request.queued_at:%Y-%m-%d}, ordered {order.ordered_on}")
        if fax.received_at <= request.last_queued:
            report.add("fax_answer_before_request", family, fax.id,
                       f"received {fax.received_at}, request sent {request.last_queued}")


def _audit_claims(world: World, report: AuditReport, facts: dict[str, dict[str, str]], today: date) -> None:
    supplier_npis = {s.npi: set(s.categories) for s in world.suppliers}
    approved = {a.auth_number: a for a in world.authorizations if a.status == "Approved"}
    claims = {c.claim_number: c for c in world.claims}
    for claim in world.claims:
        family, record = _claim_family(world, claim), claim.claim_number
        coverage, payer = world.coverage(claim.coverage_id), world.payer(claim.payer_id)
        product = _product(world, claim.coverage_id)
        active = coverage.active_on(claim.service_date)
        carcs = {a.carc for line in claim.lines for a in line.adjustments}
        report.family_counts[family]["claims"] += 1
        report.family_counts[family]["denied claims"] += claim.status == "Denied"
        remittance = world.remittance_for(claim.claim_number)
        latest = max(claim.service_date, claim.submitted_on, remittance.paid_on if remittance else claim.service_date)
        if latest > today:
            report.add("dated_after_today", family, record, f"dated {latest}, after {today}")
        if claim.no_response and (claim.submitted_on + timedelta(days=NO_RESPONSE_DAYS) > today or remittance):
            report.add("unanswered_claim_inconsistent", family, record,
                       f"billed {claim.submitted_on}, remittance {remittance.id if remittance else 'none'}")
        if claim.paid_amount > 0 and not active:
            report.add("paid_outside_coverage", family, record, f"paid on {claim.service_date} outside coverage")
        if active and carcs & {"26", "27"} and not claim.eligibility_error:
            report.add("coverage_denial_on_active_date", family, record, "CO-26/27 while coverage is active")
        order = world.order(claim.order_id) if claim.order_id else None
        if order is not None and (claim.paid_amount > 0 or "50" in carcs):
            outcome = review(order.code, payer.portal, product, facts.get(order.id, {}), active)
            auth = approved.get(claim.auth_number or "")
            if outcome.outcome != NOT_REVIEWED and (auth is None or auth.order_id != order.id):
                kind = "paid_without_required_auth" if claim.paid_amount > 0 else "necessity_denial_without_auth"
                report.add(kind, family, record, f"{order.code} {'paid' if claim.paid_amount > 0 else 'denied CO-50'} "
                                                 "without its auth")
        if order is not None and order.code in SUPPLIER_CATEGORY:
            if SUPPLIER_CATEGORY[order.code] not in supplier_npis.get(claim.billing_npi, set()):
                report.add("dme_not_billed_by_supplier", family, record, f"billed by NPI {claim.billing_npi}")
        if "109" in carcs and not [c for c in world.coverages_for(claim.mrn)
                                   if c.payer_id != claim.payer_id and c.active_on(claim.service_date)]:
            # CO-109 sends the claim to the payer responsible: some other payer's coverage holds that date.
            report.add("co109_without_responsible_payer", family, record,
                       f"no other payer's coverage in force on {claim.service_date}")
        if "18" in carcs and not _has_paid_original(claim, claims.get(claim.original_claim_number or "")):
            report.add("co18_without_original", family, record, "no paid original claim")
        for line in claim.lines:
            for adjustment in line.adjustments:
                if adjustment.rarc in MEDICARE_COVERAGE_REMARKS and product not in MEDICARE_PRODUCTS:
                    report.add("medicare_remark_on_non_medicare_plan", family, record,
                               f"{adjustment.rarc} on a {product} plan")
                if adjustment.carc == "197" and _covers(approved.get(claim.auth_number or ""), claim, line):
                    report.add("co197_with_covering_auth", family, record,
                               f"CO-197 on line {line.line_no} covered by {claim.auth_number}")
                if adjustment.carc == "97" and not _bundled(claim, line):
                    report.add("co97_not_bundled", family, record, f"CO-97 on line {line.line_no}")
        _audit_contract_pricing(claim, payer.allowed_share, report, family)
        if claim.recoupment is not None:
            _audit_recoupment(claim, claims.get(claim.recoupment.duplicate_of), report, family)
        if "119" in carcs or claim.benefit_accumulator is not None:
            _audit_benefit_limit(claim, report, family)
        if claim.submissions:
            _audit_submissions(world, claim, report, family)
        remittance = world.remittance_for(claim.claim_number)
        if remittance and remittance.appeal_deadline != remittance.paid_on + timedelta(days=payer.timely_appeal_days):
            report.add("appeal_deadline_mismatch", family, record,
                       f"deadline {remittance.appeal_deadline}, window {payer.timely_appeal_days} days")


def _audit_contract_pricing(claim: Claim, share: float | None, report: AuditReport, family: str) -> None:
    """A paid line's allowance (charge less the contractual CO-45) is the payer's published share."""
    if share is None:
        return
    off = [line.line_no for line in claim.lines if line.paid > 0 and abs(
        line.charge - sum(a.amount for a in line.adjustments if (a.group, a.carc) == ("CO", "45"))
        - round(line.charge * share, 2)) > 0.01]
    if bool(off) != claim.underpaid:
        detail = (f"line(s) {', '.join(map(str, off))} allowed off the {share:.0%} contract" if off
                  else "labelled underpaid but every paid line is on the contract")
        report.add("priced_off_contract", family, claim.claim_number, detail)


def _audit_recoupment(claim: Claim, first: Claim | None, report: AuditReport, family: str) -> None:
    """A recovered claim repeats a claim paid before it, unless the payer is wrong on purpose."""
    def service(line):
        return line.code, tuple(sorted(line.modifiers)), line.units

    repeats = (_has_paid_original(claim, first)
               and [service(line) for line in first.lines] == [service(line) for line in claim.lines])
    if repeats == claim.recoupment.payer_error:
        detail = ("labelled payer_error but repeats claim " if repeats else "does not repeat claim ")
        report.add("recoupment_not_a_duplicate", family, claim.claim_number, detail + claim.recoupment.duplicate_of)


def _audit_benefit_limit(claim: Claim, report: AuditReport, family: str) -> None:
    """A visit-limit denial shows the payer's count; the limit is reached unless the payer is
    wrong on purpose, and the denied visit itself is neither counted nor outside the period."""
    accumulator = claim.benefit_accumulator
    if accumulator is None:
        report.add("benefit_limit_miscounted", family, claim.claim_number, "CARC 119 without an accumulator")
        return
    if not accumulator.period_start <= claim.service_date <= accumulator.period_end or any(
            v.on >= claim.service_date for v in accumulator.counted):
        report.add("benefit_limit_miscounted", family, claim.claim_number,
                   "the denied visit is outside the period or a counted visit is not before it")
    reached = accumulator.visits_in_period() >= accumulator.visits_allowed
    if reached == accumulator.payer_error:
        detail = "labelled payer_error but the limit is reached" if reached else "the limit is not reached"
        report.add("benefit_limit_miscounted", family, claim.claim_number,
                   f"{detail} ({accumulator.visits_in_period()} of {accumulator.visits_allowed})")


def _audit_therapy_benefits(world: World, report: AuditReport, today: date) -> None:
    """A member's therapy visits applied so far are all before today, and a chart note that counts
    the period's visits (`therapy_visits_used`) counts the accumulator's visits through its date."""
    for coverage in world.coverages:
        accumulator = coverage.therapy_accumulator
        if accumulator is None:
            continue
        if any(visit.on > today for visit in accumulator.counted):
            report.add("therapy_visits_inconsistent", "therapy", coverage.id, f"a visit applied after {today}")
        for doc in world.documents:
            stated = doc.fact("therapy_visits_used")
            if doc.mrn != coverage.mrn or stated is None:
                continue
            counted = len({v.on for v in accumulator.counted
                           if accumulator.period_start <= v.on <= min(doc.date, accumulator.period_end)})
            if int(stated) != counted:
                report.add("therapy_visits_inconsistent", "therapy", doc.id,
                           f"the note counts {stated} visits, the accumulator {counted} through {doc.date}")


def _audit_submissions(world: World, claim: Claim, report: AuditReport, family: str) -> None:
    """The clearinghouse history ends with the claim the payer received; each report is in the chart."""
    documents = {d.id: d for d in world.documents_for(claim.mrn)}
    last = claim.submissions[-1]
    problems = [f"transmitted {s.transmitted_on} before the service" for s in claim.submissions
                if s.transmitted_on < claim.service_date]
    problems += [f"report {s.report_document_id} is not its clearinghouse report" for s in claim.submissions
                 if (doc := documents.get(s.report_document_id)) is None or doc.kind != "clearinghouse_report"
                 or doc.date != s.transmitted_on]
    if last.transmitted_on != claim.submitted_on or last.rejection:
        problems.append(f"the last transmission ({last.transmitted_on}, {last.payer_status}) is not the received claim")
    for problem in problems:
        report.add("clearinghouse_history_mismatch", family, claim.claim_number, problem)


def _covers(auth: Authorization | None, claim: Claim, line) -> bool:
    """Whether an approved authorization covers a claim line: its code, units and date of service."""
    return (auth is not None and auth.code == line.code and line.units <= auth.units
            and auth.start <= claim.service_date <= auth.end)


def _has_paid_original(duplicate: Claim, original: Claim | None) -> bool:
    return (original is not None and original.claim_number != duplicate.claim_number
            and original.paid_amount > 0 and original.submitted_on < duplicate.submitted_on
            and (original.mrn, original.payer_id, original.service_date) ==
                (duplicate.mrn, duplicate.payer_id, duplicate.service_date)
            and [line.code for line in original.lines] == [line.code for line in duplicate.lines])


def _bundled(claim: Claim, line) -> bool:
    """The line is included in another line of the claim: an E/M without modifier 25 beside a paid
    procedure, or a procedure pair's column-2 code (Keystone's NCCI edits) without its modifier."""
    others = [other for other in claim.lines if other.line_no != line.line_no]
    if (line.code in EVALUATION_AND_MANAGEMENT and "25" not in line.modifiers
            and any(other.code not in EVALUATION_AND_MANAGEMENT and other.paid > 0 for other in others)):
        return True
    lines = [{"code": each.code, "modifiers": list(each.modifiers)} for each in claim.lines]
    return any(claim.lines[edit.line] is line for edit in ncci.bundled_lines(lines))


def audit_world(world: World, today: date | None = None) -> AuditReport:
    """Every inconsistency of `world` against the payers' rules and the coding rules, as of
    `today` (default: the world's today)."""
    report = AuditReport()
    facts = _facts_by_order(world)
    for order in world.orders:
        if order.status in OPEN_ORDER_STATUSES:
            report.family_counts[family_of(order.code)]["open orders"] += 1
    _audit_codes(world, report)
    _audit_authorizations(world, report, facts)
    _audit_faxes(world, report)
    _audit_fax_history(world, report)
    _audit_claims(world, report, facts, today or WORLD_ANCHOR.date())
    audit_inpatient(world, report, today or WORLD_ANCHOR.date())
    _audit_therapy_benefits(world, report, today or WORLD_ANCHOR.date())
    audit_injuries(world, report)
    audit_ndc_denials(world, report)
    audit_diagnosis_denials(world, report)
    audit_eob_faxes(world, report)
    audit_enrollments(world, report)
    return report


def audit_cases(world: World, tasks: Iterable[Task]) -> AuditReport:
    """Every inconsistency of the tasks' cases, each built on `world` as a reset builds it
    and audited in the chart's and the payer's view as of its task's `now`; a finding's
    record names the task. CaseError (naming the task) when a case does not build."""
    report = AuditReport()
    for task in tasks:
        if task.case is None:
            continue
        try:
            records = build_case(world, task.id, task.case)
        except CaseError as exc:
            raise CaseError(f"task {task.id}: {exc}") from exc
        seen: set[tuple[str, str, str]] = set()
        for view in ("chart", "payer"):
            found = audit_world(records.view(view), today=task.now.date())
            for finding in found.findings:
                if (finding.kind, finding.record, finding.detail) not in seen:
                    seen.add((finding.kind, finding.record, finding.detail))
                    report.add(finding.kind, finding.family, f"{task.id} {finding.record}", finding.detail)
            if view == "chart":  # the payer's view holds the same orders and requests
                for family, counts in found.family_counts.items():
                    report.family_counts[family].update(counts)
                report.unjudged_codes.update(found.unjudged_codes)
    return report


def format_report(report: AuditReport, scope: str = "") -> str:
    """The printed audit: a table of counts per family, then findings per kind; `scope`
    (e.g. "task cases") names what was audited in the headings and the total."""
    columns = ("open orders", "auth approved", "auth denied", "auth pended", "auth cancelled", "claims",
               "denied claims")
    width = max([len("family")] + [len(f) for f in report.family_counts])
    suffix = f" in {scope}" if scope else ""
    lines = [f"Scenario families{suffix}", "  " + "family".ljust(width) + "".join(f"{c:>16}" for c in columns)]
    for family in sorted(report.family_counts):
        counts = report.family_counts[family]
        lines.append("  " + family.ljust(width) + "".join(f"{counts[c]:>16}" for c in columns))
    if report.unjudged_codes:
        lines.append("Requests on file for codes the rules do not restate (not judged): "
                     + ", ".join(f"{code} x{count}" for code, count in sorted(report.unjudged_codes.items())))
    lines.append(f"Inconsistencies{suffix}")
    for kind, count in report.counts().items():
        lines.append(f"  {kind:<38}{count:>6}  {KINDS[kind]}")
    for finding in report.findings[:50]:
        lines.append(f"  ! {finding.kind} [{finding.family}] {finding.record}: {finding.detail}")
    lines.append(f"Total inconsistencies{suffix}: {len(report.findings)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Audit the world built from `--seed` and the cases of the tasks under `--tasks-dir`;
    exit status 1 when anything is inconsistent or a case does not build."""
    parser = argparse.ArgumentParser(prog="python -m admindesk.envs.world.audit", description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="world seed (default %(default)s)")
    parser.add_argument("--tasks-dir", type=Path, default=TASKS_ROOT,
                        help="folder of task files whose cases are audited (default: the suite's)")
    args = parser.parse_args(argv)
    world = build_world(args.seed)
    report = audit_world(world)
    print(format_report(report))
    tasks = load_tasks(args.tasks_dir)
    try:
        case_report = audit_cases(world, tasks)
    except CaseError as exc:
        print(f"A case does not build: {exc}")
        return 1
    print(f"\n{sum(task.case is not None for task in tasks)} task case(s) under {args.tasks_dir}")
    print(format_report(case_report, scope="task cases"))
    return 1 if report.findings or case_report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
