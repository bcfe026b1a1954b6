"""Reference solution of template prior_auth/site_of_care: an infused biologic ordered at the
hospital's outpatient infusion center for a Keystone Mutual member. Keystone's site-of-care
policy (KM-RX-510) covers the hospital setting only for a reason the chart documents.

Read the order and its note, look through the chart's other documents for such a reason, and
read the policy. No reason: file nothing, send the ordering provider a staff message asking to
redirect the infusion to the office infusion suite or home (or to document a reason), comment
and keep the item In Progress. A documented reason (a severe reaction to a prior infusion):
request the infusion at the order's place of service with the reason, the note that documents
it and the drug policy's documents, in the drug's billing units, then record the approval.
"""
from __future__ import annotations

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.ehr_steps import click_to_download
from admindesk.harness.agents.reference.work import Work, us_date

POLICY = "KM-RX-510"
KEYSTONE = "Keystone Mutual Health"
# The chart's finding -> the policy's reason for a hospital outpatient infusion (the request's field value).
SEVERE_REACTION = "Severe reaction to a prior infusion"
NOT_STATED = ("", "none", "no")


def _stated(value: object) -> bool:
    return value is not None and str(value).split(";")[0].strip().lower() not in NOT_STATED


def reaction_document(work: Work) -> dict | None:
    """The chart document that states a reaction to a prior infusion, if any."""
    found = [d for d in work.case.get("documents", []) if _stated((d.get("facts") or {}).get("infusion_reaction"))]
    return found[-1] if found else None


def open_chart_document(work: Work, doc_key: str) -> str:
    """A document the order does not list: the chart's Documents tab, the document, its PDF
    downloaded; back to the order. Returns the downloaded file's name."""
    actor = work.actor
    doc_id = work.ids["documents"][doc_key]
    ehr_steps.back_to_order(work)
    actor.click("nav[aria-label='Chart sections'] a:text-is('Documents')")
    actor.click(f"main table a[href='/documents/{doc_id}']")
    name = click_to_download(work, "a.pv-btn[download]", doc_id)
    ehr_steps.back_to_order(work)
    return name


def read_site_policy(work: Work) -> None:
    """Keystone's Medical Policy Library searched by the ordered code; the site-of-care policy."""
    work.notes["policy_title"] = portal_b.read_policy(work, POLICY)


def message_text(work: Work) -> str:
    n = work.notes
    return (f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {n['order_id']}: {n['code']} x{n['units']} "
            f"planned {n['planned']} at {n['facility']} (place of service {n['place_of_service']}). "
            f"{KEYSTONE}'s site-of-care policy {POLICY} ({n.get('policy_title', 'Site of Care for Infused Specialty Drugs')}) "
            "covers this drug in the office infusion suite (place of service 11) or with home infusion (12); a hospital "
            "outpatient infusion is covered only when the chart documents a severe reaction to a prior infusion, an "
            "unstable cardiac or pulmonary condition, or a first infusion or restart after 6 months. The chart documents "
            "none of these (prior infusions tolerated, no cardiopulmonary disease, on therapy for months). Nothing has "
            "been submitted to Keystone. Please redirect the infusion to the office infusion suite or home infusion and "
            "update the order, or document the qualifying reason if there is one; we will request the authorization "
            "for the site you choose.")



def clinical_summary(work: Work, member: str, visit: dict, reaction: dict) -> str:
    n, facts = work.notes, visit.get("facts") or {}
    return (f"{work.patient_name}, DOB {work.patient['dob']}, member {member}. Requesting {n['code']} x{n['units']} "
            f"billing units ({n['description']}) for diagnoses {n['diagnoses']}, ordered by {n['provider']}, at "
            f"{n['facility']} (place of service {n['place_of_service']}). Prior conventional therapy: "
            f"{facts.get('prior_therapy')} for {facts.get('prior_therapy_weeks')} weeks, "
            f"{facts.get('prior_therapy_outcome')}; tuberculosis screen {facts.get('tb_screen')} on "
            f"{us_date(facts['tb_screen_date'])}. Hospital outpatient setting (policy {POLICY}): "
            f"{SEVERE_REACTION.lower()}, per the {reaction.get('title', 'note')} of {us_date(reaction['date'])}: "
            f"{reaction['facts']['infusion_reaction']}. Every infusion since is given with premedication and "
            "hospital-level monitoring.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    coverage = next(c for c in work.case["coverages"] if c["payer"] == "PYR-KMH")
    member = work.ids["coverages"][coverage["key"]]["payer_member_id"]
    visit = next(d for d in work.case["documents"] if d["key"] == "visit")
    reaction = reaction_document(work)
    subtasks = {s.id for s in work.task.subtasks}
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        work.notes["description"] = work.actor.fact("Description").splitlines()[0].strip()
        if reaction is None:
            ehr_steps.open_document(work, "visit")
        else:  # the request's documents: the office note, the reaction note, the drug policy's lab
            attachments.append((ehr_steps.open_document(work, "visit", download=True), "Clinical notes"))
            attachments.append((open_chart_document(work, reaction["key"]), "Clinical notes"))
            for document in work.case["documents"]:
                if document["type"] == "lab_result" and document.get("order") == "svc":
                    attachments.append((ehr_steps.open_document(work, document["key"], download=True), "Lab results"))
    if work.doing("read_policy"):
        work.need("code")
        read_site_policy(work)
    if reaction is None:
        if "route_to_provider" in subtasks and work.doing("route_to_provider"):
            work.need("order_id")
            ehr_steps.send_staff_message(
                work, message_type="Clinical question",
                subject=f"Site of care: {work.notes['code']} infusion needs a non-hospital site ({POLICY})",
                body=message_text(work))
            work.notes["messaged"] = "yes"
        if work.doing("hold_item"):
            ehr_steps.back_to_order(work)
            ehr_steps.add_order_comment(
                work, f"Not submitted to {KEYSTONE}: its site-of-care policy {POLICY} covers {work.notes['code']} at "
                      f"a hospital outpatient infusion center (POS {work.notes['place_of_service']}) only for a documented "
                      "reason (severe prior infusion reaction, unstable cardiopulmonary condition, first infusion or "
                      "restart), and the chart documents none. Staff message sent to the ordering provider "
                      f"({work.notes['provider']}) to redirect the infusion to the office infusion suite (POS 11) or "
                      "home infusion (POS 12). When the order is changed, request the authorization for the new site; "
                      "follow up with the provider in 2 business days.")
            ehr_steps.set_work_item(work, "In Progress")
        work.finish(f"Nothing submitted: {KEYSTONE}'s site-of-care policy {POLICY} does not cover the infusion at the "
                    "hospital outpatient infusion center without a documented reason, and the chart documents none. "
                    "The ordering provider was asked by staff message to redirect it to the office infusion suite or "
                    "home infusion; the Prior Auth item is left In Progress with an order comment.")
        return
    facts = visit.get("facts") or {}
    answers = {"conservative_therapy_weeks": str(facts["prior_therapy_weeks"]),
               "hospital_site_reason": SEVERE_REACTION}
    decision = portal_b.request_after_eligibility(
        work, member, answers, lambda: clinical_summary(work, member, visit, reaction), attachments, 3,
        "the chart documents were not downloaded")
    portal_b.record_and_close(work, decision, lambda approved: (
        f"Precertification approved by {KEYSTONE} on its provider portal at the hospital outpatient infusion "
        f"center (POS {work.notes['place_of_service']}) under site-of-care policy {POLICY}: requested with the "
        f"documented severe reaction to a prior infusion ({reaction.get('title', 'note')} of "
        f"{us_date(reaction['date'])}, attached with the office note and TB screen). Auth "
        f"{approved.get('auth_number', '')}, reference {approved.get('reference', '')}, "
        f"{approved.get('units', '')} billing unit(s), {approved.get('start', '')} to {approved.get('end', '')}."))
    work.finish(f"Approved by {KEYSTONE} at the hospital outpatient infusion center on the documented severe reaction "
                f"to a prior infusion: authorization {decision.get('auth_number', 'none')} recorded on order "
                f"{work.need('order_id')}.")
