"""Reference solution of template appeals/underpayment_appeal: a paid Keystone claim that
payment posting flagged as a low payment. Read the remittance line by line in the EHR (billed,
paid, each adjustment with its group), then the claim's EOB and the published contract on
Keystone's portal (a line is allowed a fixed share of its charge). A line's allowance is its
charge less the contractual CO-45; the member's PR cost share comes out of the allowance and is
no shortfall. A line allowed below the contract: one level-1 reconsideration of the payment
amount for that line's difference, recorded as Appeal Filed. Every line on the contract: file
nothing, resolve the item and say what the member owes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from admindesk.harness.agents.reference import portal_b
from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.appeals.portal_appeal import follow_up_day
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

ADJUSTMENT = re.compile(r"^(CO|PR|OA|PI)-(\w+)\s+\$([\d,]+\.\d\d)", re.MULTILINE)
CONTRACT_SHARE = re.compile(r"(\d+(?:\.\d+)?)% of the line's billed charge")
COST_SHARE = {"1": "deductible", "2": "coinsurance", "3": "copay"}


@dataclass(frozen=True)
class PricedLine:
    """A remittance line against the contract."""

    number: str
    code: str
    billed: float
    contractual: float
    cost_share: dict[str, float]

    def allowed(self) -> float:
        return round(self.billed - self.contractual, 2)

    def contracted(self, share: float) -> float:
        return round(self.billed * share, 2)

    def shortfall(self, share: float) -> float:
        return round(self.contracted(share) - self.allowed(), 2)


def read_lines(work: Work) -> list[PricedLine]:
    """The EHR remittance's service lines (the claim-lines table every claim page shows) with
    their adjustments by group and reason."""
    lines = []
    for row in steps.read_claim_lines(work):
        contractual, cost_share = 0.0, {}
        # One adjustment a line of the cell ("CO-45 $84.00: ..."); a remark line follows its adjustment.
        for group, carc, amount in ADJUSTMENT.findall(row["adjustments"]):
            if (group, carc) == ("CO", "45"):
                contractual += steps.money(amount)
            elif group == "PR":
                cost_share[COST_SHARE.get(carc, f"PR-{carc}")] = steps.money(amount)
            else:
                raise ScriptFailed(f"line {row['line']} carries {group}-{carc}: not a paid line's adjustment")
        lines.append(PricedLine(row["line"], row["code"], steps.money(row["billed"]), round(contractual, 2),
                                cost_share))
    return lines


def review_payment(work: Work) -> list[PricedLine]:
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    ehr_denials.open_remittance(work)
    return read_lines(work)


def check_contract(work: Work) -> float:
    """The claim's EOB on Keystone's portal, then its reimbursement page; the contract's share."""
    portal_b.open_claim(work, work.need("claim_number"), "eob")
    actor = work.actor
    actor.click("nav.sidebar a:has-text('Reimbursement & Fee Schedule')")
    portal_b.stay_signed_in(work)
    found = CONTRACT_SHARE.search(actor.fact("Allowed amount"))
    if found is None:
        raise ScriptFailed(f"the reimbursement page states no share of charges: {actor.fact('Allowed amount')!r}")
    return float(found.group(1)) / 100


def describe_line(line: PricedLine, share: float) -> str:
    return (f"line {line.number} ({line.code}): billed ${line.billed:,.2f}, allowed ${line.allowed():,.2f} on the EOB, "
            f"contract allowance ${line.contracted(share):,.2f} ({share:.0%} of billed)")


def cost_share_text(lines: list[PricedLine]) -> str:
    parts = [f"{kind} ${amount:,.2f} (line {line.number})" for line in lines for kind, amount in line.cost_share.items()]
    return ", ".join(parts) or "none"


def letter(work: Work, short: list[PricedLine], share: float) -> str:
    n, patient = work.notes, work.patient
    disputed = "; ".join(f"{describe_line(line, share)}, underpaid by ${line.shortfall(share):,.2f}" for line in short)
    total = sum(line.shortfall(share) for line in short)
    return (f"Payment dispute for claim {n['claim_number']}, patient {patient['first_name']} {patient['last_name']} "
            f"(DOB {patient['dob']}, member ID {n['member_id']}), date of service {n['service_date']}. Keystone "
            f"Mutual's participating provider fee schedule allows {share:.0%} of each line's billed charge. "
            f"The EOB allowed less on {disputed}. The other lines were allowed as contracted and their member cost "
            f"share is not disputed. Please reprocess the underpaid line at the contracted allowance and pay the "
            f"difference of ${total:,.2f}. Questions: {n['user_name']}, billing office.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    lines: list[PricedLine] = []
    share = 0.0
    if work.doing("review_payment"):
        lines = review_payment(work)
    if work.doing("check_contract"):
        share = check_contract(work)
    if not lines or not share:
        work.finish("Nothing changed: the payment was not checked against the contract.")
        return
    n = work.notes
    short = [line for line in lines if line.shortfall(share) > 0.005]
    if not short:
        if work.doing("resolve_item"):
            ehr_denials.set_item_status(work, "Resolved")
        checked = "; ".join(describe_line(line, share) for line in lines)
        if work.doing("explain"):
            ehr_denials.add_item_note(
                work, f"Low-payment review of claim {n['claim_number']} (DOS {n['service_date']}): {checked}. Every "
                      f"line was allowed as the contract gives; the gap is the member's cost share: "
                      f"{cost_share_text(lines)}, which the member owes. Nothing appealed; item resolved.")
        work.finish(f"Claim {n['claim_number']} was paid as Keystone's contract gives ({checked}); the shortfall is "
                    f"the member's cost share ({cost_share_text(lines)}). Nothing was filed; the item is Resolved.")
        return
    appeal: dict[str, str] = {}
    if work.doing("file_appeal"):
        portal_b.open_claim(work, n["claim_number"])
        appeal = portal_b.file_appeal(
            work, n["claim_number"], kind="Reconsideration", reason="Payment amount", outcome="Adjust the payment amount",
            explanation=letter(work, short, share), appellant=n["user_name"],
            service_day=parse_us_date(n["service_date"]), billed=n["billed"], attachments=[])
    if not appeal:
        work.finish("Stopped: the payment appeal was not filed.")
        return
    follow_up = follow_up_day(appeal)
    disputed = "; ".join(f"{describe_line(line, share)}, short ${line.shortfall(share):,.2f}" for line in short)
    if work.doing("record_appeal"):
        ehr_denials.record_filed_appeal(work, appeal, follow_up)
    if work.doing("explain"):
        ehr_denials.add_item_note(
            work, f"Low-payment review of claim {n['claim_number']} (DOS {n['service_date']}): {disputed}. Filed "
                  f"payment appeal {appeal['reference']} (level 1 reconsideration, payment amount) on Keystone's "
                  f"portal; status {appeal['status']}, decision due {appeal['decision_due']}. Member cost share "
                  f"({cost_share_text(lines)}) is correct. Follow up on {follow_up:%m/%d/%Y}.")
    work.finish(f"Payment appeal {appeal['reference']} filed on claim {n['claim_number']} ({appeal['status']}): "
                f"{disputed}. The other lines matched the contract. Item set to Appeal Filed, follow-up "
                f"{follow_up:%m/%d/%Y}.")
