"""Payer portal B: pages, search, eligibility, claims, login/CSRF, audit, timeout dialog, determinism."""
from __future__ import annotations

import io

import pytest
from markupsafe import escape
from pypdf import PdfReader
from sqlalchemy import select

from admindesk.envs.payer_portal_b import SPEC, create_app
from admindesk.envs.payer_portal_b.models import Claim, ExplanationOfBenefits, Subscriber
from admindesk.envs.payer_portal_b.session_timeout import WARNING_AFTER_PAGE_VIEWS

from .conftest import FormClient, build_app, endpoint_audit_rows as audit_rows, query


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def active_subscriber(app) -> Subscriber:
    return query(app, select(Subscriber).where(Subscriber.termination.is_(None)).order_by(Subscriber.subscriber_id))[0]


def test_login_required_everywhere(app):
    client = FormClient(app)
    client.reset()
    for url in ("/", "/eligibility", "/policies", "/precertification/new", "/claims", "/appeals", "/dme",
                "/contacts", "/policies/KM-SLP-301/fax-form.pdf", "/policies/KM-SLP-301/fax-form"):
        response = client.get(url)
        assert response.status_code == 302 and "/login" in response.location, url


def test_login_page_and_bad_password(app):
    client = FormClient(app)
    client.reset()
    page = client.get("/login").get_data(as_text=True)
    assert "Provider Sign In" in page and "Keystone Mutual" in page
    response = client.login(password="wrong")
    assert response.status_code == 401 and escape(SPEC.messages["login_incorrect"]) in response.get_data(as_text=True)


def test_csrf_enforced(client):
    before = client.snapshot()["eligibility_inquiries"]
    response = client.client.post("/eligibility", data={"subscriber_id": "KMH0000000", "dob": "01-Jan-1980"})
    assert response.status_code == 400 and SPEC.messages["form_expired_title"] in response.get_data(as_text=True)
    assert client.snapshot()["eligibility_inquiries"] == before


def test_home_shows_announcements_and_fax_numbers(client):
    page = client.get("/").get_data(as_text=True)
    assert "Announcements" in page and "Sleep studies and insulin pumps are accepted by fax only" in page
    payer = client.snapshot()["payer_profiles"][0]
    fax = payer["precert_fax"]
    assert f"{fax[:3]}.{fax[3:6]}.{fax[6:]}" in page
    assert '<nav class="sidebar" aria-label="Portal menu">' in page and "<main" in page
    assert audit_rows(client, "home.index")[-1]["tab"] == "announcements"


def test_contacts_lists_both_fax_numbers_and_fax_only_services(client):
    payer = client.snapshot()["payer_profiles"][0]
    assert payer["name"] == "Keystone Mutual Health"
    page = client.get("/contacts").get_data(as_text=True)
    for number in (payer["precert_fax"], payer["appeals_fax"]):
        assert f"{number[:3]}.{number[3:6]}.{number[6:]}" in page
    assert "KM-SLP-301" in page and "KM-DME-403" in page and "KM-RAD-101" not in page
    assert audit_rows(client, "home.contacts")[-1]["record_id"] == payer["payer_id"]


def test_dates_shown_dd_mmm_yyyy(client):
    assert "Today: 16-Nov-2026" in client.get("/").get_data(as_text=True)


# ---- eligibility -------------------------------------------------------------------------
def test_eligibility_active_subscriber(app, client):
    subscriber = active_subscriber(app)
    response = client.post("/eligibility", {"subscriber_id": subscriber.subscriber_id.lower(),
                                            "dob": subscriber.dob.strftime("%d-%b-%Y").upper()})
    assert response.status_code == 302
    inquiry = client.snapshot()["eligibility_inquiries"][-1]
    assert inquiry["inquiry_id"] == "ELG-0000001" and inquiry["result"] == "Active"
    assert inquiry["service_date"] == "2026-11-16" and inquiry["subscriber_id"] == subscriber.subscriber_id
    page = client.get(response.location).get_data(as_text=True)
    assert subscriber.full_name in page and "Benefit Summary" in page and "Active" in page
    assert audit_rows(client, "eligibility.result")[-1]["record_id"] == subscriber.subscriber_id


def test_eligibility_terminated_coverage_is_inactive(app, client):
    ended = query(app, select(Subscriber).where(Subscriber.termination.is_not(None))
                  .order_by(Subscriber.subscriber_id))
    if not ended:
        pytest.skip("the world has no terminated coverage for this payer")
    subscriber = ended[0]
    after = subscriber.termination.replace(year=subscriber.termination.year + 1)
    client.post("/eligibility", {"subscriber_id": subscriber.subscriber_id,
                                 "dob": subscriber.dob.strftime("%d-%b-%Y"), "service_date": after.strftime("%d-%b-%Y")})
    assert client.snapshot()["eligibility_inquiries"][-1]["result"] == "Inactive"


@pytest.mark.parametrize("form, message", [
    ({"subscriber_id": "", "dob": "01-Jan-1980"}, "Enter the Subscriber ID"),
    ({"subscriber_id": "KMH1", "dob": "01-Jan-1980"}, "5 to 20 letters and digits"),
    ({"subscriber_id": "KMH0000001", "dob": ""}, "Enter the date of birth."),
    ({"subscriber_id": "KMH0000001", "dob": "1980-01-01"}, "DD-MMM-YYYY"),
    ({"subscriber_id": "KMH0000001", "dob": "31-Feb-1980"}, "DD-MMM-YYYY"),
    ({"subscriber_id": "KMH0000001", "dob": "01-Jan-1980"}, "No subscriber matches"),
])
def test_eligibility_bad_input_changes_nothing(client, form, message):
    response = client.post("/eligibility", form)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert client.snapshot()["eligibility_inquiries"] == []


def test_eligibility_wrong_dob_does_not_reveal_subscriber(app, client):
    subscriber = active_subscriber(app)
    response = client.post("/eligibility", {"subscriber_id": subscriber.subscriber_id, "dob": "01-Jan-1901"})
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "No subscriber matches" in page and subscriber.last_name not in page


def test_eligibility_unknown_inquiry_is_404(client):
    assert client.get("/eligibility/ELG-9999999").status_code == 404


# ---- policy library ----------------------------------------------------------------------
def test_policy_library_lists_and_paginates(client):
    page = client.get("/policies").get_data(as_text=True)
    assert "KM-RAD-101" in page and "Page 1 / 2" in page and "FAX ONLY" in page
    assert "KM-SUR-601" in client.get("/policies?page=2").get_data(as_text=True)


@pytest.mark.parametrize("args, present, absent", [
    ("q=95810", "KM-SLP-301", "KM-RAD-101"),
    ("q=lumbar", "KM-RAD-101", "KM-SLP-301"),
    ("submission=Fax+only", "KM-RX-503", "KM-RAD-101"),
    ("category=Specialty+Drugs", "KM-RX-501", "KM-DME-401"),
    ("sort=title&dir=desc", "KM-PAIN-701", "no-such-text"),
])
def test_policy_library_search(client, args, present, absent):
    page = client.get(f"/policies?{args}").get_data(as_text=True)
    assert present in page and absent not in page


def test_policy_search_audited(client):
    client.get("/policies?q=sleep")
    assert audit_rows(client, "policies.library")[-1]["detail"]["query"] == "sleep"


def test_policy_detail_shows_criteria_and_codes(client):
    page = client.get("/policies/KM-RAD-101").get_data(as_text=True)
    assert "72148" in page and "6 weeks" in page and "01-Jan-2026" in page and "Fax submission required" not in page
    assert audit_rows(client, "policies.detail")[-1]["record_id"] == "KM-RAD-101"
    dme = client.get("/policies/KM-DME-401").get_data(as_text=True)
    assert "Apnea-Hypopnea Index (AHI) &gt;= 15" in dme


def test_a_drug_policy_gives_each_code_its_limit_in_billing_units(client):
    page = client.get("/policies/KM-RX-501").get_data(as_text=True)
    row = page.split("<td>J1745</td>", 1)[1].split("</tr>", 1)[0]
    assert "<td>10 mg</td><td>100</td>" in row  # infliximab up to 1,000 mg, not the policy's 12 services
    assert "By code, in billing units" in page
    assert "Max Billing Units" not in client.get("/policies/KM-RAD-101").get_data(as_text=True)


def test_fax_only_policy_offers_fax_form(client):
    page = client.get("/policies/KM-SLP-301").get_data(as_text=True)
    assert "Fax submission required" in page and "Download Blank Precertification Request Fax Form" in page


def test_fax_form_pdf_is_stable_and_names_the_service(client):
    first = client.get("/policies/KM-SLP-301/fax-form.pdf")
    second = client.get("/policies/KM-SLP-301/fax-form.pdf")
    assert first.status_code == 200 and first.mimetype == "application/pdf"
    assert first.data == second.data and first.data.startswith(b"%PDF-")
    assert "KM-SLP-301" in first.headers["Content-Disposition"]
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(first.data)).pages)
    assert "Diagnostic Sleep Studies" in text and "95810" in text and "Precertification Request Fax Form" in text
    fax = client.snapshot()["payer_profiles"][0]["precert_fax"]
    assert f"{fax[:3]}.{fax[3:6]}.{fax[6:]}" in text
    row = audit_rows(client, "policies.fax_form")[-1]
    assert row["action"] == "download_fax_form" and row["record_id"] == "KM-SLP-301"


def test_fax_form_only_for_fax_only_policies(client):
    assert client.get("/policies/KM-RAD-101/fax-form.pdf").status_code == 404
    assert client.get("/policies/KM-NOPE/fax-form.pdf").status_code == 404
    assert client.get("/policies/KM-NOPE").status_code == 404


# ---- claims -------------------------------------------------------------------------------
def denied_claim(app) -> Claim:
    return query(app, select(Claim).where(Claim.status == "Denied").order_by(Claim.claim_number))[0]


def test_claim_search_by_number_and_subscriber(app, client):
    claim = denied_claim(app)
    page = client.get(f"/claims?claim_number={claim.claim_number}").get_data(as_text=True)
    assert claim.claim_number in page and "Showing records 1 to 1 of 1" in page
    page = client.get(f"/claims?subscriber_id={claim.subscriber_id.lower()}").get_data(as_text=True)
    assert claim.claim_number in page
    dos = claim.service_date.strftime("%d-%b-%Y")
    page = client.get(f"/claims?service_from={dos}&service_to={dos}").get_data(as_text=True)
    assert claim.claim_number in page


@pytest.mark.parametrize("args, message", [
    ("service_from=2026-01-01", "DD-MMM-YYYY"),
    ("service_from=10-Nov-2026&service_to=01-Nov-2026", "cannot be before its start"),
])
def test_claim_search_bad_dates(client, args, message):
    response = client.get(f"/claims?{args}")
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and message in page and "No claims match" in page


def test_claim_detail_tabs_and_eob(app, client):
    claim = denied_claim(app)
    eob = query(app, select(ExplanationOfBenefits).where(ExplanationOfBenefits.claim_number == claim.claim_number))[0]
    summary = client.get(f"/claims/{claim.claim_number}").get_data(as_text=True)
    assert "Service Lines" in summary and claim.patient_name in summary
    page = client.get(f"/claims/{claim.claim_number}?tab=eob").get_data(as_text=True)
    assert eob.appeal_deadline.strftime("%d-%b-%Y") in page and eob.check_number in page
    adjustments = [a for a in client.snapshot()["claim_adjustments"] if a["claim_number"] == claim.claim_number]
    assert adjustments and f"{adjustments[0]['group_code']}-{adjustments[0]['carc']}" in page
    carc = next(c for c in client.snapshot()["adjustment_codes"]
                if c["code_set"] == "CARC" and c["code"] == adjustments[0]["carc"])
    assert carc["description"][:30].replace("'", "&#39;") in page
    rows = audit_rows(client, "claims.detail")
    assert [r["tab"] for r in rows[-2:]] == ["summary", "eob"] and rows[-1]["record_id"] == claim.claim_number
    assert "No appeals on file" in client.get(f"/claims/{claim.claim_number}?tab=appeals").get_data(as_text=True)


def test_claim_unknown_is_404(client):
    assert client.get("/claims/CLM00-0000000").status_code == 404


# ---- session timeout dialog ---------------------------------------------------------------
def test_timeout_dialog_after_page_views_until_stay_signed_in(client):
    for _ in range(WARNING_AFTER_PAGE_VIEWS - 1):
        assert "Session timeout warning" not in client.get("/policies").get_data(as_text=True)
    client.get("/policies/KM-SLP-301/fax-form.pdf")  # downloads do not count
    page = client.get("/policies").get_data(as_text=True)
    assert '<dialog id="session-timeout"' in page and "showModal()" in page
    assert 'aria-labelledby="session-timeout-title"' in page and "Stay signed in" in page
    assert "Session timeout warning" in client.get("/claims").get_data(as_text=True)
    response = client.post("/session/keep-alive", {"next": "/claims"})
    assert response.status_code == 302 and response.location.endswith("/claims")
    row = client.snapshot()["session_activity"][0]
    assert row == {"username": "coordinator", "page_views_since_ack": 0, "warnings_acknowledged": 1,
                   "last_acknowledged_at": "2026-11-16T09:00:00"}
    assert "Session timeout warning" not in client.get("/claims").get_data(as_text=True)
    assert audit_rows(client, "session.keep_alive")[-1]["action"] == "stay_signed_in"


def test_keep_alive_never_redirects_off_site(client):
    response = client.post("/session/keep-alive", {"next": "//evil.example/x"})
    assert response.location.endswith("/")
    assert "evil" not in response.location


# ---- bench -------------------------------------------------------------------------------
def raw_snapshot(client) -> bytes:
    return client.client.get("/_bench/snapshot", headers={"X-Bench-Token": "test-bench-token"}).data


def test_snapshot_is_deterministic(app):
    client = FormClient(app)
    client.reset()
    first = raw_snapshot(client)
    client.reset()
    assert raw_snapshot(client) == first


def test_same_actions_give_the_same_snapshot(app):
    subscriber = active_subscriber(app)
    snapshots = []
    for _ in range(2):
        client = FormClient(app)
        client.reset()
        client.login()
        client.post("/eligibility", {"subscriber_id": subscriber.subscriber_id, "dob": subscriber.dob.strftime("%d-%b-%Y")})
        client.get("/policies/KM-SLP-301/fax-form.pdf")
        client.post("/session/keep-alive", {"next": "/"})
        snapshots.append(raw_snapshot(client))
    assert snapshots[0] == snapshots[1] and b"ELG-0000001" in snapshots[0]


def test_seeded_tables(app):
    client = FormClient(app)
    client.reset()
    snapshot = client.snapshot()
    assert snapshot["_meta"]["app"] == "payer_portal_b"
    assert len(snapshot["medical_policies"]) == 25 and snapshot["subscribers"] and snapshot["claims"]
    assert {r["status"] for r in snapshot["precert_requests"]} <= {"Approved", "Pended", "Denied", "Cancelled"}
