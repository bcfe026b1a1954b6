"""DME suppliers' replies to order packets (confirmation, missing items, plan not accepted),
supplier networks, and received faxes stored with their PDF and sha256."""
from __future__ import annotations

import pytest

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.fax import create_app
from admindesk.envs.world import build_world

from .conftest import build_app
from .test_fax_support import new_draft, post_draft, sha, text, upload


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def world():
    return build_world()


def ehr_document(kind: str, title: str) -> bytes:
    """A PDF laid out like an EHR chart document download (its "Type" line names the kind)."""
    return render_pdf(title, [("Patient", "Doe, Jane"), ("MRN", "E1000001"), ("Type", kind),
                              ("Date", "11/10/2026")], "CPAP device, HCPCS E0601, quantity 1.",
                      letterhead="Susquehanna Valley Health\nHealth Information Management")


ORDER = ehr_document("Written Order", "Standard written order - E0601")
NOTE = ehr_document("Face-to-Face Evaluation", "Face-to-face evaluation for CPAP device")


def supplier(snapshot: dict, ref: str) -> dict:
    return next(c for c in snapshot["directory_contacts"] if c["external_ref"] == ref
                and c["contact_type"] == "DME Supplier" and c["line_status"] == "Active")


def networks(snapshot: dict, ref: str) -> set[str]:
    return {n["payer_name"] for n in snapshot["supplier_networks"] if n["supplier_ref"] == ref}


def payer_names(snapshot: dict) -> set[str]:
    return {c["organization"] for c in snapshot["directory_contacts"] if c["contact_type"].startswith("Payer")}


def send_packet(client, to_number: str, files: list[bytes], comments: str) -> int:
    """Send one fax with the given attachments, then open the inbox; returns the job id."""
    draft_id = new_draft(client)
    for index, content in enumerate(files[:-1]):
        post_draft(client, draft_id, "upload", to_number=to_number, comments=comments,
                   attachment=upload(content, f"doc{index}.pdf"))
    extra = {"attachment": upload(files[-1], "last.pdf")} if files else {}
    response = post_draft(client, draft_id, "send", to_number=to_number, comments=comments,
                          cover_re="CPAP order for Jane Doe", **extra)
    assert response.status_code == 302, text(response)
    assert client.get("/inbox").status_code == 200
    return client.snapshot()["outbound_faxes"][-1]["id"]


def reply_of(client, job_id: int) -> tuple[dict, dict]:
    snapshot = client.snapshot()
    reply = next(r for r in snapshot["supplier_replies"] if r["outbound_fax_id"] == job_id)
    return reply, next(f for f in snapshot["inbound_faxes"] if f["id"] == reply["inbound_fax_id"])


def page_text(snapshot: dict, fax_id: str) -> str:
    """What a received fax's pages say (the server shows no subject: a person reads the pages)."""
    return "\n".join(p["text"] for p in snapshot["inbound_fax_pages"] if p["fax_id"] == fax_id)


def test_every_payer_has_an_in_network_supplier_for_every_category(client, world):
    snapshot = client.snapshot()
    for payer in world.payers:
        for category in {c for s in world.suppliers for c in s.categories}:
            assert any(payer.name in networks(snapshot, s.id) for s in world.suppliers if category in s.categories), \
                (payer.name, category)
    out_of_network = [(s.id, p.name) for s in world.suppliers for p in world.payers
                      if p.name not in networks(snapshot, s.id)]
    assert out_of_network  # the rule leaves real gaps a coordinator can trip over


def test_complete_packet_gets_an_order_confirmation(client):
    snapshot = client.snapshot()
    contact = supplier(snapshot, "SUP-BRH")
    plan = sorted(networks(snapshot, "SUP-BRH"))[0]
    job_id = send_packet(client, contact["fax_number"], [ORDER, NOTE], f"Insurance: {plan}, member ID X123.")
    reply, fax = reply_of(client, job_id)
    job = next(j for j in client.snapshot()["outbound_faxes"] if j["id"] == job_id)
    assert (reply["kind"], reply["payer_name"], reply["missing_items"]) == ("Order Confirmation", plan, "")
    assert reply["supplier_order_number"] == "SO-BRH-480001" and reply["supplier_ref"] == "SUP-BRH"
    assert (fax["from_number"], fax["to_number"], fax["status"]) == (contact["fax_number"], job["from_number"], "Unread")
    assert fax["received_at"] > job["completed_at"] and fax["csid"] == "BREATHERIGHT HOME ME"
    assert "SO-BRH-480001" in page_text(client.snapshot(), fax["id"])
    assert fax["content"] == f"sha256:{fax['sha256']}" and fax["pages"] == 1
    page = text(client.get("/inbox"))
    assert fax["id"] in page
    job_page = text(client.get(f"/outbox/{job_id}"))
    assert "Supplier reply" in job_page and "SO-BRH-480001" in job_page


def test_packet_without_plan_or_notes_gets_a_request_for_the_missing_items(client):
    contact = supplier(client.snapshot(), "SUP-SDS")
    job_id = send_packet(client, contact["fax_number"], [ORDER], "Please deliver this week.")
    reply, fax = reply_of(client, job_id)
    assert (reply["kind"], reply["missing_items"], reply["supplier_order_number"]) == \
        ("Missing Items", "insurance,clinical_notes", None)
    page = text(client.get(f"/inbox/{fax['id']}"))
    assert f"Fax {fax['id']} from" in page and fax["csid"] in page
    assert f"Re: your fax job {job_id} of" in page_text(client.snapshot(), fax["id"])
    assert "Supporting clinical notes" in text(client.get(f"/outbox/{job_id}"))


def test_cover_sheet_only_misses_everything(client):
    snapshot = client.snapshot()
    contact = supplier(snapshot, "SUP-VMS")
    plan = sorted(networks(snapshot, "SUP-VMS"))[0]
    job_id = send_packet(client, contact["fax_number"], [], f"Patient's plan: {plan}. Order to follow.")
    reply, _ = reply_of(client, job_id)
    assert (reply["kind"], reply["missing_items"]) == ("Missing Items", "written_order,clinical_notes")


def test_out_of_network_plan_is_not_accepted(client):
    snapshot = client.snapshot()
    contact = supplier(snapshot, "SUP-BRH")
    outside = sorted(payer_names(snapshot) - networks(snapshot, "SUP-BRH"))[0]
    job_id = send_packet(client, contact["fax_number"], [ORDER, NOTE], f"Insurance: {outside.upper()}")
    reply, fax = reply_of(client, job_id)
    assert (reply["kind"], reply["payer_name"], reply["missing_items"]) == ("Plan Not Accepted", outside, "")
    assert reply["supplier_order_number"] is None and "not contracted" in page_text(client.snapshot(), fax["id"])


def test_no_reply_from_non_suppliers_or_failed_lines_and_only_one_per_job(client):
    snapshot = client.snapshot()
    payer_line = next(c for c in snapshot["directory_contacts"] if c["contact_type"] == "Payer - Appeals")
    old_line = next(c for c in snapshot["directory_contacts"] if c["contact_type"] == "DME Supplier"
                    and c["line_status"] == "Disconnected")
    inbox_before = len(snapshot["inbound_faxes"])
    send_packet(client, payer_line["fax_number"], [ORDER, NOTE], "Appeal")
    failed = send_packet(client, old_line["fax_number"], [ORDER, NOTE], "Northwind Health Plan")
    client.get("/inbox")
    client.get("/outbox")
    after = client.snapshot()
    assert next(j for j in after["outbound_faxes"] if j["id"] == failed)["status"] == "Failed"
    assert after["supplier_replies"] == [] and len(after["inbound_faxes"]) == inbox_before


def test_directory_lists_the_plans_a_supplier_accepts(client):
    snapshot = client.snapshot()
    contact = supplier(snapshot, "SUP-GLS")
    page = text(client.get(f"/directory/{contact['id']}"))
    assert "Plans accepted (in network)" in page
    assert all(name in page for name in networks(snapshot, "SUP-GLS"))


def test_received_faxes_keep_their_pdf_and_hash(client):
    faxes = client.snapshot()["inbound_faxes"]
    fax = faxes[0]
    pdf = client.get(f"/inbox/{fax['id']}/download").data
    assert pdf.startswith(b"%PDF-") and sha(pdf) == fax["sha256"] and fax["content"] == f"sha256:{sha(pdf)}"
    assert (fax["file_name"], fax["size_bytes"]) == (f"fax-{fax['id']}.pdf", len(pdf))
    assert all(f["pages"] >= 1 and len(f["sha256"]) == 64 for f in faxes)
    assert len({f["sha256"] for f in faxes}) == len(faxes)
    client.post(f"/inbox/{fax['id']}/file", {"file-patient_name": "Gonzalez, Ronald", "file-dob": "11/14/2000",
                                             "file-note": "Uploaded to the chart of E1000001 as Payer Letter."})
    filed = [e for e in client.snapshot()["inbound_fax_events"] if e["action"] == "Filed"][-1]
    assert (filed["fax_id"], filed["sha256"]) == (fax["id"], fax["sha256"])
    # The hash is for checks, not for people: no page of the fax shows it.
    assert all(fax["sha256"] not in text(client.get(f"/inbox/{fax['id']}?tab={tab}"))
               for tab in ("pages", "details", "history"))
    client.reset()
    assert client.snapshot()["inbound_faxes"][0]["sha256"] == fax["sha256"]
