"""Reference solution of template appeals/liability_handoff: a claim the health plan denied CO-19
(work-related: the workers' compensation carrier's) or CO-20 (the liability carrier's). How and
where the injury happened, as the chart's document states it, decides; registration's accident
records (the Coverage tab) are read beside it but do not decide:
- a work (or liability) injury: nothing is filed with the health plan; the Denials item goes to the
  WC/Liability Billing pool, left In Progress, with a hand-off note giving the carrier, its claim
  number, the employer and the date of injury from the first report of injury (not a closed,
  earlier claim registration still shows);
- an injury the document says did not happen at work: a level-1 reconsideration to the health plan
  with that document attached, recorded as Appeal Filed, and the item stays with the desk.
"""
from __future__ import annotations

import re

from pypdf import PdfReader

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.appeals.portal_appeal import document_type
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

INJURY_CARCS = {"19": "workers' compensation", "20": "liability"}
WC_POOL = "WC/Liability Billing (team pool)"
IN_PROGRESS = "In Progress"
RECONSIDERATION_REASON = "Other"
ACCIDENT_TABLE = "Accident and injury registrations"
ACCIDENT_COLUMNS = ("related_to", "injury_date", "registered_as", "employer", "carrier", "claim_number", "status",
                    "closed_on")
# The chart documents' injury sentences (envs/world/cases/documents.py writes them one a line).
INJURY_FACTS = {"injury_date": "Date of injury", "injury_cause": "How the injury happened",
                "work_related": "Injury at work", "employer": "Employer",
                "wc_carrier": "Workers' compensation carrier", "wc_claim_number": "Workers' compensation claim number"}


def injury_document(work: Work) -> str:
    """The case document that says how the injury happened: a first report of injury when the chart
    holds one, else the note whose title names the injury."""
    documents = work.case.get("documents", [])
    reports = [d["key"] for d in documents if d["type"] == "injury_report"]
    notes = [d["key"] for d in documents if "injury" in (d.get("title") or "").lower()]
    if not (reports or notes):
        raise ScriptFailed("no chart document about the injury")
    return (reports or notes)[0]


def injury_facts(text: str) -> dict[str, str]:
    """The injury sentences of a document's text, by fact name."""
    flat = " ".join(text.split())
    facts = {}
    for key, label in INJURY_FACTS.items():
        found = re.search(rf"{re.escape(label)}: (.+?)\.(?: |$)", flat)
        if found:
            facts[key] = found.group(1)
    return facts


def review_injury(work: Work) -> None:
    """Registration's accident records on the Coverage tab, then the injury document (downloaded:
    its text, and the file a reconsideration encloses)."""
    actor = work.actor
    ehr_denials.back_to_claim(work)
    actor.click("nav[aria-label='Chart sections'] a:text-is('Coverage')")
    accidents = [row for row in ehr_steps.table_rows(work, ACCIDENT_TABLE, ACCIDENT_COLUMNS) if len(row) > 1]
    doc_key = injury_document(work)
    file_name = ehr_denials.open_chart_document(work, doc_key, download=True)
    text = " ".join(page.extract_text() or "" for page in PdfReader(work.env.downloads_dir / file_name).pages)
    facts = injury_facts(text)
    if "work_related" not in facts or "injury_date" not in facts:
        raise ScriptFailed(f"the document does not say when and whether at work the injury happened: {facts}")
    closed = [row for row in accidents if row["status"] == "Closed" and row["claim_number"]]
    work.notes.update(injury_doc=doc_key, injury_file=file_name, injury_title=work.notes[f"doc_{doc_key}_title"],
                      registered_kinds=", ".join(sorted({row["related_to"] for row in accidents})),
                      closed_claims=", ".join(f"{row['claim_number']} ({row['carrier']}, injury {row['injury_date']})"
                                              for row in closed),
                      **{f"injury_{key}" if not key.startswith("injury") else key: value
                         for key, value in facts.items()})


def work_injury(work: Work) -> bool:
    return work.need("injury_work_related").lower() == "yes"


def handoff_note(work: Work) -> str:
    n = work.notes
    closed = (f" Registration also shows an earlier, closed claim ({n['closed_claims']}): not this injury."
              if n.get("closed_claims") else "")
    return (f"Hand-off to WC/Liability Billing. Claim {n['claim_number']} (DOS {n['service_date']}, billed {n['billed']}) "
            f"was denied {n['denials']} by {n['payer']} (remittance {n['remittance_id']}, {n['paid_on']}): the injury is "
            f"the {INJURY_CARCS[n['injury_carc']]} carrier's. Per the {n['injury_title']}: date of injury "
            f"{n['injury_date']}, employer {n['injury_employer']}, how it happened: {n['injury_cause']}. Carrier "
            f"{n['injury_wc_carrier']}, claim number {n['injury_wc_claim_number']}.{closed} Nothing filed with or billed "
            f"again to {n['payer']}. Item assigned to the WC/Liability Billing pool to bill the carrier under that claim.")


def reconsideration_letter(work: Work) -> str:
    n = work.notes
    return (f"Re: {work.patient_name}, DOB {work.patient['dob']}, member ID {n['member_id']}. Claim {n['claim_number']}, "
            f"date of service {n['service_date']}, billed {n['billed']}.\n\n"
            f"The claim was denied {n['denials']} as a work-related injury, the workers' compensation carrier's "
            f"liability (remittance {n['remittance_id']} of {n['paid_on']}). The enclosed {n['injury_title']} documents "
            f"how the injury happened: on {n['injury_date']} the patient {n['injury_cause']}. Injury at work: no. The "
            "injury did not happen at work or in an accident another party is liable for, so no workers' compensation "
            "or liability carrier is responsible.\n\n"
            f"Enclosed: {n['injury_title']}. Please reprocess and pay the claim under the member's benefits. For "
            f"questions, contact {n['user_name']} at {n['provider_phone']}.")


def file_reconsideration(work: Work) -> dict[str, str]:
    n = work.notes
    ehr_denials.open_order_from_claim(work)  # the office's phone for the contact
    return portal_a.file_appeal(work, n["claim_number"], appeal_type="Reconsideration", reason=RECONSIDERATION_REASON,
                                letter=reconsideration_letter(work), contact_name=n["user_name"],
                                contact_phone=n["provider_phone"],
                                attachment=(work.need("injury_file"), document_type(n["injury_title"], "A")))


def appeal_note(work: Work, appeal: dict[str, str]) -> str:
    n = work.notes
    return (f"Claim {n['claim_number']} (DOS {n['service_date']}, {n['billed']}) denied {n['denials']} by {n['payer']} as "
            f"work-related. Registration records the injury as {n['registered_kinds']}, but the {n['injury_title']} says "
            f"it happened at home on {n['injury_date']} ({n['injury_cause']}), not at work: registration's employment "
            f"entry is wrong. Filed a level 1 reconsideration on portal A with that note, reference {appeal['reference']}, "
            f"{appeal['status']}, decision due {appeal['decision_due']}. Follow up on {appeal['decision_due']}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        ehr_denials.open_denial_item(work)
        ehr_denials.open_claim(work)
        ehr_denials.open_remittance(work)
        carcs = [carc for carc in work.notes["carcs"].split(", ") if carc in INJURY_CARCS]
        if not carcs:
            raise ScriptFailed(f"the remittance shows {work.notes['denials']}, not CO-19 or CO-20")
        work.notes["injury_carc"] = carcs[0]
    if work.doing("review_injury"):
        review_injury(work)
    if "injury_work_related" not in work.notes:
        work.finish("Nothing done: how the injury happened was not read.")
        return
    if work_injury(work):
        if work.doing("hand_off"):
            ehr_denials.assign_to_pool(work, WC_POOL, IN_PROGRESS)
        if work.doing("explain"):
            ehr_denials.add_item_note(work, handoff_note(work))
        work.finish(handoff_note(work))
        return
    appeal = {}
    if work.doing("file_reconsideration"):
        appeal = file_reconsideration(work)
    if not appeal:
        work.finish("No reconsideration was filed; the denial item is unchanged.")
        return
    if work.doing("record_outcome"):
        ehr_denials.record_filed_appeal(work, appeal)
    if work.doing("explain"):
        ehr_denials.add_item_note(work, appeal_note(work, appeal))
    work.finish(appeal_note(work, appeal))
