"""Reference solution of template dme/portal_b_request: a DME request on Keystone Mutual's
portal (B) with the written order (and the sleep study for a PAP device) attached, the
approval recorded on the order, and (hard rows) the order packet faxed to the supplier and
its confirmation recorded on the DME work item."""
from __future__ import annotations

import re
from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps, fax_steps, portal_b
from admindesk.harness.agents.reference.dme import steps as dme_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"
# The chart document types the request carries, by the portal's document type names.
ATTACHMENT_SOURCES = {"Sleep study report": "sleep_study", "Clinical notes": "face_to_face"}
# A narrative's oxygen-on-exertion result ("... on 2 L/min oxygen the SpO2 rose to 93%").
FOLLOW_UP_DAYS = 7
ON_OXYGEN = re.compile(r"oxygen the SpO2 rose to (\d+)%")


def _doc_key(work: Work, doc_type: str) -> str | None:
    return next((d["key"] for d in work.case["documents"] if d["type"] == doc_type), None)


def _facts(work: Work, doc_type: str) -> dict:
    """The facts a chart document states (the case's document, as its PDF prints them)."""
    return next((d for d in work.case["documents"] if d["type"] == doc_type), {})


def review(work: Work, *, with_fax: bool) -> None:
    """Open the face-to-face note (download it too when it goes out in the packet), download
    the written order and any sleep study; read the member id off the order."""
    work.notes["documents"] = dme_steps.order_documents(work)
    ehr_steps.open_document(work, _doc_key(work, "face_to_face"))
    files = {"written_order": dme_steps.download_from_order(work, _doc_key(work, "written_order"))}
    if with_fax:  # the face-to-face evaluation goes out in the supplier's packet
        files["face_to_face"] = dme_steps.download_from_order(work, _doc_key(work, "face_to_face"))
    study = _doc_key(work, "sleep_study")
    if study:
        files["sleep_study"] = dme_steps.download_from_order(work, study)
    work.notes.update({f"file:{kind}": name for kind, name in files.items()})
    member = re.search(r"Member ID (\S+)", work.notes["coverage"])
    if member is None:
        raise ScriptFailed(f"the order's billing coverage shows no member id: {work.notes['coverage']!r}")
    work.notes["member"] = member.group(1)


def read_policy(work: Work) -> None:
    """The item's medical policy (linked from the DME request page's requirements table):
    its approval period and the document types to attach."""
    actor = work.actor
    actor.click("nav a[href='/dme/new']")
    actor.click(f"xpath=//table//tr[td[1][normalize-space()='{work.need('code')}']]//a")
    work.notes["policy"] = actor.fact("Policy Number")
    work.notes["approval_days"] = re.search(r"\d+", actor.fact("Approval Period")).group(0)
    attach_as = re.search(r"Attach as: (.+)", actor.text("main"))
    work.notes["attach_as"] = attach_as.group(1).strip().rstrip(".") if attach_as else "Detailed written order"


def choose_supplier(work: Work, suppliers: dict[str, dict]) -> None:
    """The supplier on the written order when Keystone Mutual contracts with it; otherwise
    the first contracted supplier that fills this kind of equipment."""
    actor = work.actor
    networks = actor.read("select[name=supplier_npi]").evaluate(
        "s => Array.from(s.options).filter(o => o.value).map(o => o.text.trim())")
    contracted = {label.split(" (NPI")[0] for label in networks if label.endswith("- Contracted")}
    ordered = suppliers[work.case["orders"][0]["supplier"]]["name"]
    category = dme_steps.EQUIPMENT_CATEGORY[work.need("code")]
    if ordered in contracted:
        work.notes.update(supplier=ordered, supplier_why=f"{ordered}, the supplier on the written order, is "
                                                         "contracted with Keystone Mutual")
        return
    chosen = next((s["name"] for s in suppliers.values() if s["name"] in contracted and category in s["categories"]),
                  None)
    if chosen is None:
        raise ScriptFailed(f"no supplier contracted with Keystone Mutual fills {category} equipment")
    work.notes.update(supplier=chosen, supplier_why=(
        f"{ordered}, the supplier on the written order, is not contracted with Keystone Mutual (the portal lists "
        f"it as non-contracted; out of network on this plan), so the request names {chosen}, a contracted "
        f"{category} supplier"))


def fill_member_and_order(work: Work, supplier: str, face_to_face: date, order_date: date) -> None:
    """The DME request form's member, item, ordering provider, supplier and visit/order dates."""
    actor, notes = work.actor, work.notes
    actor.fill("input[name=subscriber_id]", notes["member"])
    actor.fill("input[name=subscriber_dob]", portal_b.portal_b_date(date.fromisoformat(work.patient["dob"])))
    actor.fill("input[name=hcpcs_code]", notes["code"])
    actor.fill("input[name=diagnosis_codes]", notes["diagnoses"])
    actor.fill("input[name=ordering_npi]", notes["provider_npi"])
    actor.select_containing("select[name=supplier_npi]", supplier + " (NPI")
    actor.fill("input[name=face_to_face_date]", portal_b.portal_b_date(face_to_face))
    actor.fill("input[name=order_date]", portal_b.portal_b_date(order_date))


def fill_request(work: Work) -> None:
    """The DME request's fields, typed from the chart."""
    actor, notes = work.actor, work.notes
    f2f = _facts(work, "face_to_face").get("facts", {})
    study = _facts(work, "sleep_study").get("facts", {})
    narrative = _facts(work, "face_to_face").get("narrative") or ""
    actor.fill("input[name=subscriber_id]", notes["member"])
    actor.fill("input[name=subscriber_dob]", portal_b.portal_b_date(date.fromisoformat(work.patient["dob"])))
    actor.fill("input[name=hcpcs_code]", notes["code"])
    if actor.read("input[name=quantity]").input_value() != notes["units"]:
        actor.fill("input[name=quantity]", notes["units"])
    actor.fill("input[name=diagnosis_codes]", notes["diagnoses"])
    actor.fill("input[name=ordering_npi]", notes["provider_npi"])
    actor.select_containing("select[name=supplier_npi]", notes["supplier"] + " (NPI")
    actor.fill("input[name=face_to_face_date]", portal_b.portal_b_date(dme_steps.document_date(work, _doc_key(work, "face_to_face"))))
    actor.fill("input[name=order_date]", portal_b.portal_b_date(dme_steps.document_date(work, _doc_key(work, "written_order"))))
    values = {"ahi": study.get("ahi"), "spo2_rest": f2f.get("spo2_rest"), "spo2_exertion": f2f.get("spo2_exertion")}
    on_oxygen = ON_OXYGEN.search(narrative)
    if on_oxygen and f2f.get("spo2_exertion") is not None:
        values["spo2_on_oxygen"] = on_oxygen.group(1)
    for field, value in values.items():
        if value is not None:
            actor.fill(f"input[name={field}]", str(value))
    if study.get("study_date"):
        actor.fill("input[name=sleep_test_date]", portal_b.portal_b_date(date.fromisoformat(study["study_date"])))
    work.notes["test_values"] = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in values.items() if v is not None)


def attach(work: Work) -> None:
    """The written order, and the second document type the policy asks for."""
    actor = work.actor
    actor.upload("input[name=written_order]", work.need("file:written_order"))
    for document_type in work.need("attach_as").split(", "):
        source = ATTACHMENT_SOURCES.get(document_type)
        if source and f"file:{source}" in work.notes:
            actor.select_option("select[name=document_type_2]", document_type)
            actor.upload("input[name=attachment_2]", work.notes[f"file:{source}"])
            return


def submit_approved(work: Work, what: str) -> dict[str, str]:
    """Submit the form; ScriptFailed unless Keystone approved `what`. The request id and the
    authorization number go to work.notes."""
    decision = submit(work)
    if decision["status"] != "Approved":
        raise ScriptFailed(f"Keystone Mutual did not approve {what}: {decision}")
    work.notes.update(request_id=decision["request_id"], auth_number=decision["auth_number"])
    return decision


def submit(work: Work) -> dict[str, str]:
    """Submit the form; the determination as the request page shows it."""
    actor = work.actor
    actor.click("main form button[type=submit]")
    heading = actor.text("main h1")
    if heading == "DME Request":  # the form came back with errors
        raise ScriptFailed(f"the DME request was refused: {actor.text('main')[:600]}")
    decision = {"request_id": heading.split()[-1], "status": actor.text("main section.panel h2 .status"),
                "reason": actor.text("main section.panel p")}
    number = re.search(r"Authorization Number: (\S+)", actor.text("main section.panel"))
    decision["auth_number"] = number.group(1) if number else ""
    return decision


def auth_span(work: Work) -> tuple[date, date]:
    """The authorization's dates: from the planned delivery for the policy's approval period."""
    start = parse_us_date(work.need("planned"))
    return start, start + timedelta(days=int(work.need("approval_days")) - 1)


def fax_packet(work: Work, decision: dict[str, str]) -> dict[str, str]:
    """The order packet to the supplier's active intake line; returns the delivered job."""
    supplier = work.need("supplier")
    fax_steps.compose_to_contact(work, supplier, "DME Supplier")
    kinds = [k for k in ("written_order", "face_to_face", "sleep_study") if f"file:{k}" in work.notes]
    enclosed = ", ".join({"written_order": "signed written order", "face_to_face": "face-to-face evaluation",
                          "sleep_study": "sleep study report"}[k] for k in kinds)
    fax_steps.fill_cover(
        work, attention="DME Order Intake",
        re_line=f"{work.patient_name} DOB {us_date(work.patient['dob'])} - {work.notes['code']} order",
        comments=(f"New DME order for {work.patient_name}, DOB {us_date(work.patient['dob'])}. Insurance: {KEYSTONE}, "
                  f"member ID {work.notes['member']}. Item: HCPCS {work.notes['code']} x{work.notes['units']}, "
                  f"diagnoses {work.notes['diagnoses']}, ordered by {work.notes['provider']} (NPI "
                  f"{work.notes['provider_npi']}). {KEYSTONE} authorization {decision.get('auth_number', '')} (DME "
                  f"request {decision.get('request_id', '')}). Enclosed: {enclosed}. Please confirm the order "
                  f"with your order number by return fax. Sent by the DME coordinator, Jordan Ellis."))
    for kind in kinds:
        fax_steps.attach(work, work.notes[f"file:{kind}"])
    return fax_steps.send(work)


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    actor = work.actor
    with_fax = "send_packet" in {s.id for s in work.task.subtasks}
    ehr_steps.open_chart(work)
    ehr_steps.open_order(work)
    equipment = actor.fact("Description").splitlines()[0]
    suppliers: dict[str, dict] = {}
    if work.doing("review_order"):
        review(work, with_fax=with_fax)
        dme_steps.open_dme_item(work)
        suppliers = dme_steps.read_suppliers(work)
    if work.doing("check_requirements"):
        portal_b.open_portal_b(work)
        read_policy(work)
        work.notes["eligibility"] = portal_b.check_eligibility(work, work.need("member"),
                                                               parse_us_date(work.need("planned")))
    decision: dict[str, str] = {}
    if work.doing("submit_request"):
        if not suppliers:
            work.need("suppliers")  # the review that reads them was skipped
        if "portal_b_tab" in work.notes:
            dme_steps.to_tab(work, int(work.notes["portal_b_tab"]))
        else:
            portal_b.open_portal_b(work)
        actor.click("nav a[href='/dme/new']")
        choose_supplier(work, suppliers)
        fill_request(work)
        if work.doing("attach_documents"):
            attach(work)
        decision = submit(work)
        if decision["status"] != "Approved":
            raise ScriptFailed(f"Keystone Mutual did not approve the DME request: {decision}")
        work.notes.update(request_id=decision["request_id"], auth_number=decision["auth_number"])
    terms = ""
    if work.doing("record_auth"):
        dme_steps.to_order(work)
        start, end = auth_span(work)
        ehr_steps.record_authorization(
            work, status="Approved", payer=KEYSTONE, auth_number=work.need("auth_number"),
            reference=work.need("request_id"), start=us_date(start), end=us_date(end))
        terms = (f"{decision['reason']} Authorization {decision['auth_number']}, valid {us_date(start)} to "
                 f"{us_date(end)} (the policy's {work.notes['approval_days']}-day approval period from the planned "
                 f"delivery {work.notes['planned']})")
    if with_fax:
        if work.doing("send_packet"):
            fax_steps.open_fax(work)
            job = fax_packet(work, decision)
            work.notes.update(job=job["job_id"], sent=job["completed"], supplier_fax=job["to_number"])
        if work.doing("supplier_reply"):
            work.need("job")
            dme_steps.read_supplier_reply(work)
    if work.doing("close_item"):
        dme_steps.back_to_item(work)
        follow_up = us_date(work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS))
        supplier = work.need("supplier")
        if with_fax:
            status, confirmation = "Supplier Confirmed", work.need("confirmation")
            done = (f"Order packet (fax job {work.notes['job']}, sent {work.notes['sent']}) faxed to {supplier}; "
                    f"the supplier confirmed the order, supplier order number {work.notes['confirmation']}. "
                    f"Next: {supplier} calls the patient to schedule delivery and set-up; I will follow up on "
                    f"{follow_up} to confirm delivery.")
        else:
            status, confirmation = "In Progress", ""
            done = (f"Next: send the supplier referral (order packet) to {supplier}, who will schedule delivery "
                    f"and set-up; I will follow up on {follow_up}.")
        dme_steps.update_dme_item(
            work, status, supplier=supplier, confirmation=confirmation,
            note=f"{KEYSTONE} approved DME request {work.need('request_id')} for the {work.notes['code']}: "
                  f"authorization {work.notes['auth_number']}. {terms or decision.get('reason', '')}. "
                  f"Patient {work.patient_name}, DOB {us_date(work.patient['dob'])}, member {work.notes['member']}. "
                  f"Policy {work.notes.get('policy', '')} met by the chart: face-to-face evaluation of "
                  f"{us_date(dme_steps.document_date(work, _doc_key(work, 'face_to_face')))}"
                  f"{', ' + work.notes['test_values'] if work.notes.get('test_values') else ''}. "
                  f"Supplier: {work.notes['supplier_why']}. {done}")
    work.finish(f"The {equipment} ({work.notes['code']}) was approved by Keystone Mutual: "
                f"authorization {work.notes.get('auth_number', '(none)')} (DME request "
                f"{work.notes.get('request_id', '(none)')}), supplier {work.notes.get('supplier', '(none)')}"
                + (f", supplier confirmation {work.notes.get('confirmation', '(none)')}." if with_fax else "."))
