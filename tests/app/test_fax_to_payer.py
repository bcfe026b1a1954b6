"""A fax to a payer's PA line reaches the payer (over the apps' fax line, real HTTP): the
payer's intake files the documents to the pended case the fax names by its case number
(or the member ID) and reviews it again, as an upload would; a fax naming no case, or
carrying nothing beyond its cover sheet, changes no case."""
from __future__ import annotations

import pytest

from admindesk.envs.common.clock import parse_now
from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.common.factory import AppConfig
from admindesk.envs.fax import create_app as create_fax
from admindesk.envs.payer_portal_a import create_app as create_portal_a

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient, build_app
from .test_fax_support import new_draft, post_draft, sha, upload

TASK, NOW, PATIENT = "pa-hard-20", "2026-11-16T09:00:00", "Kowalczyk"


@pytest.fixture(scope="module")
def portal(app_data_dir, serve_live):
    """Portal A serving pa-hard-20's world over HTTP: a pended case of the task's patient."""
    return serve_live(build_app(create_portal_a, app_data_dir / "payer_portal_a"))


@pytest.fixture
def desk(portal, tmp_path_factory):
    """(fax client signed in, portal A client), both freshly reset for the task."""
    portal.app.extensions["admindesk"].reset(parse_now(NOW), TASK)
    fax_app = create_fax(AppConfig(data_dir=tmp_path_factory.mktemp("fax-to-payer"), token=TOKEN, testing=True,
                                   cache_dir=TEMPLATE_CACHE, peers={"payer_portal_a": portal.url}))
    fax = FormClient(fax_app)
    fax.reset(NOW)
    fax.login()
    return fax, FormClient(portal.app)


def pended_case(snapshot: dict) -> dict:
    cases = [row for row in snapshot["pa_requests"] if row["status"] == "Pended" and PATIENT in row["member_name"]]
    assert len(cases) == 1, cases
    return cases[0]


def progress_note() -> bytes:
    """A chart progress note as the EHR prints it (its "Type:" line names the kind)."""
    return render_pdf("Neurology visit", [("Patient", f"{PATIENT}, Ambrose"), ("Type", "Progress Note"),
                                          ("Date", "11/09/2026")], "Headache for five months; no focal deficit.")


def fax_to_payer(fax: FormClient, portal_snapshot: dict, re: str, attachment: bytes | None) -> dict:
    """Send one fax to the pended case's payer PA line, then open the outbox; the job row."""
    case = pended_case(portal_snapshot)
    pa_fax = next(p["pa_fax"] for p in portal_snapshot["payers"] if p["id"] == case["payer_id"])
    files = {"attachment": upload(attachment, "scan0001.pdf")} if attachment else {}
    response = post_draft(fax, new_draft(fax), "send", to_number=pa_fax, recipient_name="Utilization Management",
                          cover_re=re, comments="Requested records attached.", **files)
    assert response.status_code == 302, response.get_data(as_text=True)
    fax.get("/outbox")
    return fax.snapshot()["outbound_faxes"][-1]


def test_a_fax_naming_the_case_answers_the_pend_like_an_upload(desk):
    fax, portal = desk
    case = pended_case(portal.snapshot())
    note = progress_note()
    job = fax_to_payer(fax, portal.snapshot(), f"Case {case['case_number']} - records", note)
    assert job["status"] == "Sent"
    after = portal.snapshot()
    decided = next(row for row in after["pa_requests"] if row["id"] == case["id"])
    assert decided["status"] in ("Approved", "Partially Approved", "Denied")
    filed = [a for a in after["pa_attachments"] if a["request_id"] == case["id"]
             and a["stage"] == "Additional information"]
    assert [(a["sha256"], a["document_type"], a["uploaded_by"]) for a in filed] == [
        (sha(note), "Clinical notes", "fax intake")]
    intake = after["fax_intake"][-1]
    assert (intake["case_number"], intake["outcome"], intake["caller_number"], intake["documents"]) == (
        case["case_number"], "Filed to case", job["from_number"], 1)
    history = [e for e in after["pa_status_events"] if e["request_id"] == case["id"]]
    assert "received by fax" in history[-2]["note"] and history[-1]["status"] == decided["status"]
    letters = [row for row in after["letters"] if row["case_number"] == case["case_number"]]
    assert len(letters) == 2  # the pend letter, then the decision


def test_a_fax_naming_the_member_id_answers_the_members_one_pended_case(desk):
    fax, portal = desk
    case = pended_case(portal.snapshot())
    fax_to_payer(fax, portal.snapshot(), f"Member ID {case['member_id']} - records", progress_note())
    after = portal.snapshot()
    assert next(row for row in after["pa_requests"] if row["id"] == case["id"])["status"] != "Pended"
    assert (after["fax_intake"][-1]["case_number"], after["fax_intake"][-1]["outcome"]) == (case["case_number"],
                                                                                            "Filed to case")


def test_a_fax_naming_only_the_patient_changes_no_case(desk):
    fax, portal = desk
    before = portal.snapshot()
    job = fax_to_payer(fax, before, f"Records for {PATIENT}", progress_note())
    assert job["status"] == "Sent"
    after = portal.snapshot()
    assert pended_case(after)["id"] == pended_case(before)["id"]  # still pended
    assert len(after["pa_attachments"]) == len(before["pa_attachments"])
    assert (after["fax_intake"][-1]["outcome"], after["fax_intake"][-1]["case_number"]) == ("No case identified",
                                                                                            None)


def test_a_cover_sheet_alone_leaves_the_case_pended(desk):
    fax, portal = desk
    before = portal.snapshot()
    case = pended_case(before)
    fax_to_payer(fax, before, f"Case {case['case_number']}", None)
    after = portal.snapshot()
    assert pended_case(after)["id"] == case["id"]
    assert (after["fax_intake"][-1]["outcome"], after["fax_intake"][-1]["documents"]) == ("No documents attached", 0)


def test_a_fax_to_a_number_no_app_owns_reaches_no_payer(desk):
    fax, portal = desk
    before = portal.snapshot()
    response = post_draft(fax, new_draft(fax), "send", attachment=upload(progress_note()))
    assert response.status_code == 302
    fax.get("/outbox")
    after = portal.snapshot()
    assert after["fax_intake"] == before["fax_intake"]
    assert after["pa_attachments"] == before["pa_attachments"]


def test_the_fax_line_is_closed_without_the_run_token_and_refuses_a_malformed_fax(portal):
    client = portal.app.test_client()
    delivery = {"to_number": "8005550100", "caller_number": "5705550100", "csid": "570 555 0100",
                "received_at": NOW, "documents": []}
    assert client.post("/_bench/fax-line", json=delivery).status_code == 404
    headers = {"X-Bench-Token": TOKEN}
    refused = client.post("/_bench/fax-line", json={**delivery, "documents": ["not base64!"]}, headers=headers)
    assert refused.status_code == 400 and "bad delivery" in refused.get_json()["error"]
    missing = client.post("/_bench/fax-line", json={"to_number": "8005550100"}, headers=headers)
    assert missing.status_code == 400 and "'caller_number' must be a string" in missing.get_json()["error"]


def test_an_app_with_no_fax_line_of_its_own_takes_no_fax(desk):
    fax, _portal = desk
    delivery = {"to_number": "8005550100", "caller_number": "5705550100", "csid": "570 555 0100",
                "received_at": NOW, "documents": []}
    reply = fax.client.post("/_bench/fax-line", json=delivery, headers={"X-Bench-Token": TOKEN})
    assert reply.status_code == 200 and reply.get_json() == {"ok": True, "accepted": False}


def test_a_peer_is_named_with_its_url(tmp_path, capsys):
    from admindesk.envs.common.serve import serve_main

    with pytest.raises(SystemExit):
        serve_main("fax", create_fax, ["--port", "5199", "--bench-port", "5198", "--data-dir", str(tmp_path), "--token", "t",
                                       "--peer", "payer_portal_a"])
    assert "--peer takes NAME=http://HOST:PORT" in capsys.readouterr().err
