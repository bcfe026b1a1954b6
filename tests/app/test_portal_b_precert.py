"""Payer portal B: the long precertification form, its rules engine outcomes and bad input."""
from __future__ import annotations

import io
from datetime import date

import pytest
from sqlalchemy import select

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.models import PrecertRequest, Provider, Subscriber

from .conftest import build_app

TODAY = date(2026, 11, 16)
NOTE_PDF = render_pdf("Progress note", [("Patient", "Test")], "Eight weeks of physical therapy failed.")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def people(app):
    return requesters(app)


def requesters(app) -> dict:
    """A subscriber with nothing on file, a terminated one, a provider NPI, and an on-file approval."""
    with app.extensions["admindesk"].db.new_session() as session:
        busy = set(session.scalars(select(PrecertRequest.subscriber_id)))
        active = [s for s in session.scalars(select(Subscriber).order_by(Subscriber.subscriber_id))
                  if s.termination is None and s.subscriber_id not in busy]
        ended = session.scalars(select(Subscriber).where(Subscriber.termination.is_not(None))
                                .order_by(Subscriber.subscriber_id)).first()
        npi = session.scalars(select(Provider.npi).where(Provider.kind == "Individual").order_by(Provider.npi)).first()
        # An approval on file for an imaging code the online form accepts.
        on_file = session.scalars(select(PrecertRequest).where(PrecertRequest.status == "Approved",
                                                               PrecertRequest.end_date >= TODAY,
                                                               PrecertRequest.service_code.in_(("72148", "70553")))
                                  .order_by(PrecertRequest.reference_number)).first()
        on_file_subscriber = session.get(Subscriber, on_file.subscriber_id)
        session.expunge_all()
    return {"subscriber": active[0], "other": active[1], "ended": ended, "npi": npi, "on_file": on_file,
            "on_file_subscriber": on_file_subscriber}


def pdf(content: bytes = NOTE_PDF, name: str = "progress-note.pdf"):
    return (io.BytesIO(content), name)


def request_form(people, **changes) -> dict:
    subscriber = people["subscriber"]
    form = {"subscriber_id": subscriber.subscriber_id, "subscriber_dob": subscriber.dob.strftime("%d-%b-%Y"),
            "rendering_npi": people["npi"], "referring_npi": "", "place_of_service": "22", "urgency": "Standard",
            "service_code": "72148", "units": "1", "diagnosis_codes": "M54.16, M51.26",
            "start_date": "01-Dec-2026", "end_date": "31-Dec-2026", "conservative_therapy_weeks": "8",
            "red_flag_symptoms": "No", "prior_imaging": "", "ahi": "", "spo2_rest": "",
            "clinical_summary": "Low back pain with left L5 radiculopathy after eight weeks of PT.",
            "contact_name": "Jordan Ellis", "contact_phone": "717-555-0100",
            "document_type_1": "Clinical notes", "attachment_1": pdf(),
            "document_type_2": "Other", "document_type_3": "Other"}
    form.update(changes)
    return form


def submit(client, people, **changes):
    return client.post("/precertification/new", request_form(people, **changes), content_type="multipart/form-data")


def portal_requests(client):
    return [r for r in client.snapshot()["precert_requests"] if r["source"] == "Portal"]


def test_form_renders_as_one_long_form(client):
    page = client.get("/precertification/new?subscriber_id=KMH123").get_data(as_text=True)
    for legend in ("1. Subscriber", "2. Providers", "3. Service", "4. Clinical Information", "5. Attachments", "6. Contact"):
        assert legend in page
    assert "Rendering Provider NPI" in page and "Date of Service From (DD-MMM-YYYY)" in page
    assert 'value="KMH123"' in page
    audit = [r for r in client.snapshot()["audit_events"] if r["endpoint"] == "precert.new"][-1]
    assert audit["tab"] == "request_form"


def test_approved_request(client, people):
    response = submit(client, people)
    assert response.status_code == 302, response.get_data(as_text=True)
    [item] = portal_requests(client)
    assert item["reference_number"] == "KM-P-26-000001" and item["status"] == "Approved"
    assert item["authorization_number"] == "KMH26900001" and item["approved_units"] == 1
    assert item["approved_start"] == "2026-12-01" and item["approved_end"] == "2026-12-31"
    assert item["diagnosis_codes"] == ["M54.16", "M51.26"] and item["policy_number"] == "KM-RAD-101"
    assert item["contact_phone"] == "7175550100" and item["submitted_at"] == "2026-11-16T09:00:00"
    [attachment] = client.snapshot()["attachments"]
    assert attachment["owner_id"] == "KM-P-26-000001" and attachment["content"].startswith("sha256:")
    assert attachment["document_type"] == "Clinical notes" and attachment["file_name"] == "progress-note.pdf"
    page = client.get(response.location).get_data(as_text=True)
    assert "KMH26900001" in page and "01-Dec-2026" in page and "Approved" in page
    audit = [r for r in client.snapshot()["audit_events"] if r["endpoint"] == "precert.new"][-1]
    assert audit["action"] == "submit_precert" and audit["record_id"] == "KM-P-26-000001"
    download = client.get(f"/precertification/KM-P-26-000001/attachments/{attachment['id']}")
    assert download.data == NOTE_PDF
    assert client.get(f"/precertification/{people['on_file'].reference_number}/attachments/{attachment['id']}").status_code == 404


def test_approval_caps_units_and_span(client, people):
    submit(client, people, units="3", end_date="30-Jun-2027")
    [item] = portal_requests(client)
    assert item["approved_units"] == 1 and item["approved_end"] == "2027-01-29"  # 60 days from 01-Dec


def test_red_flags_meet_criteria_without_therapy(client, people):
    submit(client, people, conservative_therapy_weeks="1", red_flag_symptoms="Yes")
    assert portal_requests(client)[0]["status"] == "Approved"


def test_pended_for_missing_clinical_answer_then_approved_after_information(client, people):
    submit(client, people, conservative_therapy_weeks="", red_flag_symptoms="")
    [item] = portal_requests(client)
    assert item["status"] == "Pended" and "6 or more weeks of conservative therapy" in item["decision_reason"]
    assert item["authorization_number"] is None
    page = client.get("/precertification/KM-P-26-000001").get_data(as_text=True)
    assert "Submit Additional Information" in page
    response = client.post("/precertification/KM-P-26-000001/additional-information",
                           {"document_type": "Clinical notes", "attachment": pdf(name="pt notes.pdf"),
                            "conservative_therapy_weeks": "7", "red_flag_symptoms": "", "prior_imaging": "",
                            "ahi": "", "spo2_rest": ""}, content_type="multipart/form-data")
    assert response.status_code == 302
    [item] = portal_requests(client)
    assert item["status"] == "Approved" and item["authorization_number"] == "KMH26900001"
    assert item["clinical"]["conservative_therapy_weeks"] == 7
    assert [a["file_name"] for a in client.snapshot()["attachments"]] == ["progress-note.pdf", "pt_notes.pdf"]


def test_pended_for_missing_document(client, people):
    submit(client, people, attachment_1=(io.BytesIO(b""), ""))
    [item] = portal_requests(client)
    assert item["status"] == "Pended" and "Upload: Clinical notes" in item["decision_reason"]


def test_additional_information_bad_input_changes_nothing(client, people):
    submit(client, people, attachment_1=(io.BytesIO(b""), ""))
    before = client.snapshot()
    for files, message in (({}, "Choose a PDF document"), ({"attachment": (io.BytesIO(b"hello"), "a.pdf")}, "is not a PDF")):
        response = client.post("/precertification/KM-P-26-000001/additional-information",
                               {"document_type": "Clinical notes", **files}, content_type="multipart/form-data")
        assert response.status_code == 422 and message in response.get_data(as_text=True)
    after = client.snapshot()
    assert after["precert_requests"] == before["precert_requests"] and after["attachments"] == before["attachments"]


def test_additional_information_only_for_pended(client, people):
    submit(client, people)
    response = client.post("/precertification/KM-P-26-000001/additional-information",
                           {"document_type": "Clinical notes", "attachment": pdf()}, content_type="multipart/form-data")
    assert response.status_code == 404


@pytest.mark.parametrize("changes, reason", [
    ({"conservative_therapy_weeks": "2", "red_flag_symptoms": "No"}, "6 or more weeks of conservative therapy or documented red-flag"),
    ({"diagnosis_codes": "I10"}, "not covered indications"),
])
def test_denied(client, people, changes, reason):
    submit(client, people, **changes)
    [item] = portal_requests(client)
    assert item["status"] == "Denied" and reason in item["decision_reason"] and item["authorization_number"] is None


def test_denied_when_coverage_ended(client, people):
    ended = people["ended"]
    if ended is None:
        pytest.skip("no terminated coverage for this payer")
    day = ended.termination.replace(year=ended.termination.year + 1).strftime("%d-%b-%Y")
    submit(client, people, subscriber_id=ended.subscriber_id, subscriber_dob=ended.dob.strftime("%d-%b-%Y"),
           start_date=day, end_date=day)
    [item] = portal_requests(client)
    assert item["status"] == "Denied" and "not active" in item["decision_reason"]


def test_duplicate_of_own_request(client, people):
    submit(client, people)
    response = submit(client, people, start_date="15-Dec-2026", end_date="20-Dec-2026")
    first, second = portal_requests(client)
    assert second["status"] == "Duplicate" and second["duplicate_of"] == first["reference_number"]
    assert second["authorization_number"] is None
    assert "is already on file" in client.get(response.location).get_data(as_text=True)


def test_duplicate_of_request_on_file(client, people):
    on_file, subscriber = people["on_file"], people["on_file_subscriber"]
    first_day = max(on_file.start_date, TODAY).strftime("%d-%b-%Y")  # a past date would be a retro request
    submit(client, people, subscriber_id=subscriber.subscriber_id, subscriber_dob=subscriber.dob.strftime("%d-%b-%Y"),
           service_code=on_file.service_code, start_date=first_day, end_date=first_day)
    [item] = portal_requests(client)
    assert item["status"] == "Duplicate" and item["duplicate_of"] == on_file.reference_number


def test_not_required_code(client, people):
    submit(client, people, service_code="99213", diagnosis_codes="I10")
    [item] = portal_requests(client)
    assert item["status"] == "Not Required" and item["policy_number"] is None


def test_fax_only_service_refused_with_fax_form(client, people):
    before = client.snapshot()
    response = submit(client, people, service_code="95810", diagnosis_codes="G47.33")
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "Fax submission required" in page
    assert "95810 must be requested by fax (policy KM-SLP-301)" in page
    assert "/policies/KM-SLP-301/fax-form.pdf" in page
    fax = before["payer_profiles"][0]
    for number in (fax["precert_fax"], fax["appeals_fax"]):
        assert f"{number[:3]}.{number[3:6]}.{number[6:]}" in page
    after = client.snapshot()
    assert after["precert_requests"] == before["precert_requests"] and after["attachments"] == []
    assert after["audit_events"][-1]["detail"]["fax_only"] is True


def test_requirement_lookup(client):
    page = client.get("/precertification/requirements?code=95806").get_data(as_text=True)
    assert "Precertification required" in page and "Fax submission required" in page
    page = client.get("/precertification/requirements?code=72148").get_data(as_text=True)
    assert "Start a Precertification Request" in page and "Fax submission required" not in page
    assert "not required" in client.get("/precertification/requirements?code=99213").get_data(as_text=True)
    response = client.get("/precertification/requirements?code=ZZZZZ")
    assert response.status_code == 422 and "does not recognize" in response.get_data(as_text=True)
    assert client.get("/precertification/requirements?code=1").status_code == 422
    audit = [r for r in client.snapshot()["audit_events"] if r["endpoint"] == "precert.requirements"]
    assert audit[0]["record_id"] == "95806" and audit[0]["detail"]["fax_only"] is True


BIG_PDF = NOTE_PDF + b"%" * (10 * 1024 * 1024)


@pytest.mark.parametrize("changes, message", [
    ({"subscriber_id": ""}, "Enter the Subscriber ID"),
    ({"subscriber_dob": "12/01/1960"}, "Enter the date as DD-MMM-YYYY"),
    ({"subscriber_dob": "01-Jan-1901"}, "No subscriber matches"),
    ({"rendering_npi": "1234567890"}, "Enter a valid 10-digit NPI."),
    ({"rendering_npi": "1234567893"}, "is not in the Keystone Mutual provider file"),
    ({"referring_npi": "12345"}, "Enter a valid 10-digit NPI."),
    ({"service_code": "7214"}, "5 letters or digits"),
    ({"service_code": "00000"}, "not a CPT/HCPCS code Keystone Mutual recognizes"),
    ({"service_code": "E0601", "diagnosis_codes": "G47.33"}, "use New DME Request"),
    ({"diagnosis_codes": ""}, "Enter at least one ICD-10-CM diagnosis code."),
    ({"diagnosis_codes": "M54.16, 123"}, "123 is not an ICD-10-CM code"),
    ({"diagnosis_codes": "Z99.999"}, "Unknown ICD-10-CM code(s): Z99.999"),
    ({"units": "0"}, "Units must be between 1 and 999."),
    ({"start_date": ""}, "Enter the first date of service."),
    ({"start_date": "32-Dec-2026"}, "Enter the date as DD-MMM-YYYY"),
    ({"end_date": "30-Nov-2026"}, "cannot be before the first"),
    ({"end_date": "31-Dec-2027"}, "at most one year"),
    ({"conservative_therapy_weeks": "-1"}, "Enter weeks between 0 and 520."),
    ({"clinical_summary": "short"}, "20 to 4000 characters"),
    ({"clinical_summary": "x" * 4001}, "20 to 4000 characters"),
    ({"contact_phone": "555"}, "Enter a 10-digit phone number."),
    ({"attachment_1": (io.BytesIO(b"GIF89a not a pdf"), "scan.pdf")}, "is not a PDF document"),
    ({"attachment_1": (io.BytesIO(b"%PDF-1.4 broken"), "broken.pdf")}, "could not be read as a PDF"),
    ({"attachment_1": (io.BytesIO(BIG_PDF), "huge.pdf")}, "larger than the 10 MB limit"),
])
def test_bad_input_changes_nothing(client, people, changes, message):
    before = client.snapshot()
    response = submit(client, people, **changes)
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and message in page.replace("&#39;", "'")
    assert 'role="alert"' in page
    after = client.snapshot()
    for table in ("precert_requests", "attachments", "number_sequences"):
        assert after[table] == before[table], table


def test_request_over_the_upload_limit_is_refused(client, people):
    response = submit(client, people, attachment_1=(io.BytesIO(b"%PDF-" + b"0" * (11 * 1024 * 1024)), "x.pdf"))
    assert response.status_code == 413 and "10 MB" in response.get_data(as_text=True)
    assert portal_requests(client) == []


def test_status_list_search_and_filter(client, people):
    submit(client, people)
    submit(client, people, subscriber_id=people["other"].subscriber_id,
           subscriber_dob=people["other"].dob.strftime("%d-%b-%Y"), diagnosis_codes="I10")
    page = client.get("/precertification").get_data(as_text=True).split("<tbody>")[1]
    assert page.index("KM-P-26-000002") < page.index("KM-P-26-000001")  # newest first
    page = client.get("/precertification?status=Denied").get_data(as_text=True)
    assert "KM-P-26-000002" in page and "KM-P-26-000001" not in page
    page = client.get(f"/precertification?q={people['subscriber'].subscriber_id}").get_data(as_text=True)
    assert "KM-P-26-000001" in page and "KM-P-26-000002" not in page
    page = client.get("/precertification?sort=reference&dir=asc").get_data(as_text=True)
    assert "Page 1 / " in page
    audit = [r for r in client.snapshot()["audit_events"] if r["endpoint"] == "precert.status_list"][-1]
    assert audit["tab"] == "status_list"


def test_on_file_request_detail(client, people):
    on_file = people["on_file"]
    page = client.get(f"/precertification/{on_file.reference_number}").get_data(as_text=True)
    assert on_file.authorization_number in page and "On file" in page
    audit = [r for r in client.snapshot()["audit_events"] if r["endpoint"] == "precert.detail"][-1]
    assert audit["record_id"] == on_file.reference_number
    assert client.get("/precertification/KM-P-00-000000").status_code == 404
