"""Reference solution of template fax_precert: Keystone Mutual takes this service by fax
only. Read the order, learn the route from the payer's medical policy (and fill in its
request fax form online, downloading the completed form), fax the form with the chart
document to the payer's active prior-authorization line, then record the pending request
in the EHR."""
from __future__ import annotations

from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps, fax_steps, portal_b
from admindesk.harness.agents.reference.portal_a import payer_name
from admindesk.harness.agents.reference.prior_auth.portal_b_precert import clinical_summary
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "PYR-KMH"
PA_LINE = "Payer - Prior Authorization"


def _digits(number: str) -> str:
    return "".join(ch for ch in number if ch.isdigit())


def chart_document(work: Work) -> dict:
    """The chart document of the order that carries the clinical facts the request relies on."""
    documents = [d for d in work.case.get("documents", []) if d.get("order") == "svc" and d.get("facts")]
    if not documents:
        raise ScriptFailed("the case has no chart document with clinical facts for the order")
    return documents[-1]


def read_policy_route(work: Work) -> None:
    """Portal B's Medical Policy Library, searched by the order's code: the policy's submission
    method and precertification fax (into work.notes)."""
    actor = work.actor
    portal_b.open_portal_b(work)
    actor.click("nav a[href='/policies']")
    actor.fill("input#q", work.need("code"))
    actor.click("form.search-bar button[type=submit]")
    actor.click("main table tbody tr td:first-child a")
    work.notes["policy"] = actor.fact("Policy Number")
    method = actor.fact("Submission Method")
    if "FAX ONLY" not in method.upper():
        raise ScriptFailed(f"policy {work.notes['policy']} is submitted {method!r}, not by fax")
    work.notes["route"] = "fax"
    work.notes["payer_pa_fax"] = actor.fact("Precertification Fax")


def fill_fax_form(work: Work, member: str, summary: str) -> None:
    """From the policy, the request form filled in online (the payer returns a blank or
    incomplete form unreviewed), downloaded as the completed PDF (into work.notes)."""
    actor, notes = work.actor, work.notes
    actor.click("section.fax-only a:has-text('Fill In')")
    planned = parse_us_date(work.need("planned"))
    fields = {
        "subscriber_name": work.patient_name, "subscriber_id": member,
        "subscriber_dob": portal_b.portal_b_date(date.fromisoformat(work.patient["dob"])),
        "rendering_name": notes["facility"], "rendering_npi": notes["facility_npi"],
        "referring_name": notes["provider"], "referring_npi": notes["provider_npi"],
        "contact_name": "Prior Authorization Coordinator", "contact_phone": notes["provider_phone"],
        "units": notes["units"], "diagnosis_codes": notes["diagnoses"],
        "start_date": portal_b.portal_b_date(planned),
        "end_date": portal_b.portal_b_date(planned + timedelta(days=portal_b.REQUESTED_DAYS - 1)),
    }
    for name, value in fields.items():
        actor.fill(f"input[name={name}]", value)
    actor.select_by_value("select[name=service_code]", notes["code"])
    actor.fill("textarea[name=clinical_summary]", summary)
    notes["fax_form_file"] = ehr_steps.click_to_download(work, "main form button[type=submit]",
                                                         "the completed precertification fax form")


def cover_comments(work: Work, member: str, doc_title: str) -> str:
    """The cover sheet's comments: what the fax holds (the request is on the completed form)."""
    notes = work.notes
    return (f"Precertification request (prior authorization) under Keystone Mutual policy {notes['policy']}. "
            f"Patient: {work.patient_name}, DOB {work.patient['dob']}, subscriber ID {member}. "
            f"Service: {notes['code']} x{notes['units']}, diagnoses {notes['diagnoses']}, planned date of "
            f"service {notes['planned']}, place of service {notes['place_of_service']}. Ordering provider: "
            f"{notes['provider']}, NPI {notes['provider_npi']}; facility NPI {notes['facility_npi']}. "
            f"Enclosed: the completed Keystone Mutual Precertification Request Fax Form and the {doc_title} supporting "
            f"medical necessity. Please review and fax the determination to the sending line. "
            f"Contact: Prior Authorization Coordinator, {notes['provider_phone']}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    coverage = next(c for c in work.case["coverages"] if c["payer"] == KEYSTONE)
    member = work.ids["coverages"][coverage["key"]]["payer_member_id"]
    payer = payer_name(KEYSTONE)
    document = chart_document(work)
    doc_title = document.get("title") or document["type"].replace("_", " ")

    ehr_steps.open_chart(work)
    if work.doing("review_order"):
        ehr_steps.open_order(work)  # the order's code, units and NPIs, read off the page
        work.notes["chart_file"] = ehr_steps.open_document(work, document["key"], download=True)
    if work.doing("find_route"):
        read_policy_route(work)
        fill_fax_form(work, member, clinical_summary(work, member, doc_title, document.get("facts") or {}))
    if work.doing("send_fax"):
        work.need("route")  # faxing is right only once the policy said fax only
        contact = fax_steps.compose_to_contact(work, payer, PA_LINE)
        if _digits(contact["fax"])[-10:] != _digits(work.need("payer_pa_fax"))[-10:]:
            raise ScriptFailed(f"the phonebook's line {contact['fax']} is not the policy's "
                               f"{work.notes['payer_pa_fax']}")
        fax_steps.fill_cover(
            work, attention="Precertification / Utilization Management",
            re_line=f"Precertification request: {work.patient_name}, DOB {work.patient['dob']}, "
                    f"ID {member}, {work.notes['code']}",
            comments=cover_comments(work, member, doc_title))
        fax_steps.attach(work, work.need("fax_form_file"))
        fax_steps.attach(work, work.need("chart_file"))
        job = fax_steps.send(work)
        work.notes.update(fax_job=job["job_id"], fax_number=job["to_number"], fax_completed=job["completed"])
    if work.doing("record_submission"):
        work.need("fax_job")
        ehr_steps.back_to_order(work)
        # No payer reference exists yet: the payer assigns one when its determination comes back.
        ehr_steps.record_authorization(work, status="Submitted - Pending", payer=payer)
        work.notes["recorded"] = "Submitted - Pending"
    if work.doing("close_item"):
        work.need("recorded")
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"Precertification request faxed to {payer} Prior Authorization at {work.notes['fax_number']} "
                  f"on {work.notes['fax_completed']} (fax job {work.notes['fax_job']}, delivered): Keystone Mutual "
                  f"policy {work.notes['policy']} accepts {work.notes['code']} by fax only, not online. Attached: "
                  f"the completed Keystone Mutual Precertification Request Fax Form and the {doc_title} "
                  f"({work.notes['chart_file']}). "
                  f"Patient identified by DOB {work.patient['dob']} and member id {member}. Authorization recorded "
                  f"as Submitted - Pending; await the payer's determination by fax.")
        ehr_steps.set_work_item(work, "Submitted - Pending")
    work.finish(f"Faxed the precertification request for {work.notes.get('code', 'the service')} to {payer}'s "
                f"prior-authorization line {work.notes.get('fax_number', '')} (the policy accepts it by fax only); "
                f"the request is Submitted - Pending on order {work.notes.get('order_id', '')}.")
