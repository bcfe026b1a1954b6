"""Portal A prior-auth wizard: steps, bad input, attachments and the rules engine outcomes."""
from __future__ import annotations

import io

import pytest

from admindesk.envs.payer_portal_a import create_app
from admindesk.envs.payer_portal_a.organizations import tax_id

from .conftest import build_app
from .test_portal_a_support import (
    LUMBAR_MET,
    LUMBAR_NOT_MET,
    active_member,
    approved_lumbar_case,
    build_draft,
    draft_id,
    header,
    lines_of,
    organization,
    pdf_file,
    providers,
    request_by_id,
    start_draft,
    submit,
    terminated_member,
    us,
)


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def _drafts(snapshot):
    return [r for r in snapshot["pa_requests"] if r["status"] == "Draft"]


# ---- step 1: member --------------------------------------------------------------------
def test_member_step_creates_a_draft_and_audits_it(client, snap):
    member = active_member(snap)
    request_id = start_draft(client, member)
    after = client.snapshot()
    draft = request_by_id(after, request_id)
    assert (draft["status"], draft["member_id"], draft["coverage_id"]) == ("Draft", member["member_id"],
                                                                          member["coverage_id"])
    rows = [a for a in after["audit_events"] if a["action"] == "create_pa_draft"]
    assert rows[-1]["record_id"] == str(request_id) and rows[-1]["tab"] == "pa_wizard"


@pytest.mark.parametrize("change, message", [
    ({"member_id": "ZZ0000000"}, "No member with this ID was found"),
    ({"dob": "01/01/1900"}, "date of birth does not match"),
    ({"dob": "13/45/2020"}, "Enter a valid date as MM/DD/YYYY."),
    ({"member_id": ""}, "Enter the member ID, or the patient&#39;s last and first name."),
    ({"member_id": "", "last_name": "Nobody", "first_name": "Here"}, "No member with this name and date of birth"),
    ({"member_id": "ABC-123"}, "letters and digits only"),
    ({"payer_id": ""}, "Select a payer."),
    ({"payer_id": "PYR-KMH"}, "Select a payer."),  # a portal B payer is not served here
    ({"organization_npi": ""}, "Select a registered organization."),
    ({"organization_npi": "1234567893"}, "Select a registered organization."),
    ({"tin": "99-0000000"}, "Select the organization&#39;s tax ID."),
    ({"request_type": "Urgent"}, "Not a valid choice"),
    ({"service_type": ""}, "Select a service type."),
    ({"place_of_service": ""}, "Select a place of service."),
])
def test_member_step_bad_input_changes_nothing(client, snap, change, message):
    member = active_member(snap)
    response = client.post("/authorizations/new", header(snap, member, **change))
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert _drafts(client.snapshot()) == []


def test_a_tin_of_another_organization_is_refused(client, snap):
    member = active_member(snap)
    others = [p for p in snap["providers"] if p["entity_type"] == "Organization" and p["npi"] != organization(snap)["npi"]]
    response = client.post("/authorizations/new", header(snap, member, tin=tax_id(others[0]["npi"])))
    assert response.status_code == 422
    assert "This tax ID is not registered for the selected organization." in response.get_data(as_text=True)
    assert _drafts(client.snapshot()) == []


def test_header_is_stored_and_patient_found_by_name_and_dob(client, snap):
    member = active_member(snap)
    org = organization(snap)
    response = client.post("/authorizations/new", header(snap, member, member_id="", request_type="Referral",
                                                         last_name=member["last_name"].upper(),
                                                         first_name=member["first_name"]))
    assert response.status_code == 302, response.get_data(as_text=True)
    draft = request_by_id(client.snapshot(), draft_id(response))
    assert (draft["member_id"], draft["organization_npi"], draft["organization_name"], draft["tin"]) == (
        member["member_id"], org["npi"], org["name"], tax_id(org["npi"]))
    assert (draft["request_type"], draft["service_type"], draft["place_of_service"]) == (
        "Referral", "Diagnostic imaging", "22")
    page = client.get(response.location).get_data(as_text=True)
    assert org["name"] in page and "Referral" in page


def test_start_page_prefills_from_eligibility_link(client, snap):
    member = active_member(snap)
    page = client.get(f"/authorizations/new?payer_id={member['payer_id']}&member_id={member['member_id']}")
    assert page.status_code == 200 and f'value="{member["member_id"]}"' in page.get_data(as_text=True)


# ---- step 2: providers ------------------------------------------------------------------
@pytest.mark.parametrize("npi, message", [
    ("123456789", "Select a registered requesting provider."),
    ("1234567893", "Select a registered requesting provider."),  # a valid NPI not registered on the account
    ("", "Select a registered requesting provider."),
])
def test_provider_step_takes_registered_providers_only(client, snap, npi, message):
    request_id = start_draft(client, active_member(snap))
    _, facility = providers(snap)
    response = client.post(f"/authorizations/requests/{request_id}/providers",
                           {"requesting_npi": npi, "servicing_npi": facility})
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert request_by_id(client.snapshot(), request_id)["requesting_npi"] is None


def test_a_facility_cannot_be_the_requesting_provider(client, snap):
    request_id = start_draft(client, active_member(snap))
    _, facility = providers(snap)
    response = client.post(f"/authorizations/requests/{request_id}/providers",
                           {"requesting_npi": facility, "servicing_npi": facility})
    assert response.status_code == 422
    assert "Select a registered requesting provider." in response.get_data(as_text=True)


def test_provider_step_stores_names_from_directory_and_back_keeps_them(client, snap):
    request_id = start_draft(client, active_member(snap))
    requesting, facility = providers(snap)
    response = client.post(f"/authorizations/requests/{request_id}/providers",
                           {"requesting_npi": requesting, "servicing_npi": facility, "contact_phone": "(717) 555-0100"})
    assert response.status_code == 302 and response.location.endswith("/services")
    draft = request_by_id(client.snapshot(), request_id)
    name = next(p["name"] for p in snap["providers"] if p["npi"] == requesting)
    assert (draft["requesting_name"], draft["contact_phone"]) == (name, "7175550100")
    back = client.get(f"/authorizations/requests/{request_id}/providers").get_data(as_text=True)
    assert f'value="{requesting}"' in back and name in back


def test_later_step_redirects_to_first_incomplete_step(client, snap):
    request_id = start_draft(client, active_member(snap))
    response = client.get(f"/authorizations/requests/{request_id}/review")
    assert response.status_code == 302 and response.location.endswith(f"/requests/{request_id}/providers")
    assert client.get(f"/authorizations/requests/{request_id}/nonsense").status_code == 404
    assert client.get("/authorizations/requests/99999/member").status_code == 404


# ---- step 3: service lines ---------------------------------------------------------------
@pytest.mark.parametrize("change, message", [
    ({"code": "7214"}, "A CPT/HCPCS code is 5 characters"),
    ({"code": "99999"}, "not in the code set"),
    ({"units": "0"}, "Units must be between 1 and 9999."),
    ({"units": "abc"}, "Not a valid integer value."),
    ({"diagnosis_codes": "M54.16, XYZ.1"}, "Not a valid ICD-10-CM code: XYZ.1"),
    ({"diagnosis_codes": "M5416"}, "Not a valid ICD-10-CM code: M5416"),
    ({"diagnosis_codes": ""}, "Enter at least one diagnosis code."),
    ({"to_date": "11/01/2026"}, "The to date must be on or after the from date."),
    ({"from_date": "2026-12-01"}, "Enter a valid date as MM/DD/YYYY."),
    ({"place_of_service": ""}, "Select a place of service."),
])
def test_service_line_bad_input_changes_nothing(client, snap, change, message):
    request_id = start_draft(client, active_member(snap))
    requesting, facility = providers(snap)
    client.post(f"/authorizations/requests/{request_id}/providers", {"requesting_npi": requesting, "servicing_npi": facility})
    data = {"code": "72148", "units": "1", "diagnosis_codes": "M54.16", "from_date": "12/01/2026",
            "to_date": "12/31/2026", "place_of_service": "22", **change}
    response = client.post(f"/authorizations/requests/{request_id}/services/add", data)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert lines_of(client.snapshot(), request_id) == []


def test_service_lines_add_remove_and_next_requires_a_line(client, snap):
    request_id = start_draft(client, active_member(snap))
    requesting, facility = providers(snap)
    base = f"/authorizations/requests/{request_id}"
    client.post(f"{base}/providers", {"requesting_npi": requesting, "servicing_npi": facility})
    response = client.post(f"{base}/services")
    assert response.status_code == 422 and "Add at least one service line." in response.get_data(as_text=True)
    for code in ("72148", "72100"):
        client.post(f"{base}/services/add", {"code": code, "units": "1", "diagnosis_codes": "m54.16 M51.26",
                                             "from_date": "12/01/2026", "to_date": "12/31/2026", "place_of_service": "22"})
    lines = lines_of(client.snapshot(), request_id)
    assert [(line["line_no"], line["code"]) for line in lines] == [(1, "72148"), (2, "72100")]
    assert lines[0]["diagnosis_codes"] == ["M54.16", "M51.26"]
    page = client.get(f"{base}/services").get_data(as_text=True)
    assert "MRI of the lower spine without contrast" in page
    client.post(f"{base}/services/{lines[0]['id']}/remove")
    lines = lines_of(client.snapshot(), request_id)
    assert [(line["line_no"], line["code"]) for line in lines] == [(1, "72100")]


# ---- step 4: questionnaire ---------------------------------------------------------------
def test_questionnaire_depends_on_the_service(client, snap):
    member = active_member(snap)
    cpap = build_draft(client, snap, member, code="E0601", dx="G47.33", pos="12", documents=(),
                       answers={"ahi": "22.5", "sleep_study_date": "10/01/2026", "qualifying_symptoms": "Yes",
                                "compliance_agreement": "Yes"})
    draft = request_by_id(client.snapshot(), cpap)
    assert draft["questionnaire"] == "cpap" and draft["answers"]["ahi"] == 22.5
    assert draft["answers"]["sleep_study_date"] == "2026-10-01"
    oxygen = start_draft(client, member, typed_member_id=member["member_id"].lower())
    requesting, facility = providers(snap)
    base = f"/authorizations/requests/{oxygen}"
    client.post(f"{base}/providers", {"requesting_npi": requesting, "servicing_npi": facility})
    client.post(f"{base}/services/add", {"code": "E1390", "units": "1", "diagnosis_codes": "J44.9",
                                         "from_date": "12/01/2026", "to_date": "12/31/2026", "place_of_service": "12"})
    page = client.get(f"{base}/questionnaire").get_data(as_text=True)
    assert "Oxygen saturation (SpO2 %) on room air at rest" in page and "Weeks of conservative" not in page


@pytest.mark.parametrize("change, message", [
    ({"conservative_therapy_weeks": ""}, "Answer this question."),
    ({"conservative_therapy_weeks": "500"}, "Enter a number from 0 to 104."),
    ({"red_flag_symptoms": "Headache"}, "Not a valid choice"),
    ({"prior_imaging_date": "31/31/2026"}, "Enter a valid date as MM/DD/YYYY."),
])
def test_questionnaire_bad_answers_change_nothing(client, snap, change, message):
    request_id = build_draft(client, snap, active_member(snap), documents=())
    before = request_by_id(client.snapshot(), request_id)["answers"]
    response = client.post(f"/authorizations/requests/{request_id}/questionnaire", {**LUMBAR_MET, **change})
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert request_by_id(client.snapshot(), request_id)["answers"] == before


# ---- step 5: attachments -----------------------------------------------------------------
@pytest.mark.parametrize("upload, document_type, message", [
    ((io.BytesIO(b"hello, not a pdf"), "note.pdf"), "Clinical notes", "is not a PDF document"),
    ((io.BytesIO(b"%PDF-1.4\n" + b"0" * (10 * 1024 * 1024)), "big.pdf"), "Clinical notes", "larger than the 10 MB limit"),
    ((io.BytesIO(b""), ""), "Clinical notes", "Choose a file to upload."),
    (None, "", "Select a document type."),
])
def test_bad_uploads_are_refused(client, snap, upload, document_type, message):
    request_id = build_draft(client, snap, active_member(snap), documents=())
    data = {"document_type": document_type}
    if upload is not None:
        data["file"] = upload
    else:
        data["file"] = pdf_file()
    response = client.post(f"/authorizations/requests/{request_id}/attachments/add", data,
                           content_type="multipart/form-data")
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert [a for a in client.snapshot()["pa_attachments"] if a["request_id"] == request_id] == []


def test_upload_stores_blob_with_safe_name_and_can_be_removed(client, snap):
    request_id = build_draft(client, snap, active_member(snap), documents=())
    stream, _ = pdf_file()
    content = stream.getvalue()
    client.post(f"/authorizations/requests/{request_id}/attachments/add",
                {"document_type": "Imaging report", "file": (stream, "../../etc/x ray report.pdf")},
                content_type="multipart/form-data")
    rows = [a for a in client.snapshot()["pa_attachments"] if a["request_id"] == request_id]
    assert len(rows) == 1 and rows[0]["file_name"] == "etc_x_ray_report.pdf"
    assert rows[0]["content"].startswith("sha256:") and rows[0]["pages"] == 1
    download = client.get(f"/authorizations/requests/{request_id}/attachments/{rows[0]['id']}")
    assert download.status_code == 200 and download.data == content
    client.post(f"/authorizations/requests/{request_id}/attachments/{rows[0]['id']}/remove")
    assert [a for a in client.snapshot()["pa_attachments"] if a["request_id"] == request_id] == []


# ---- step 6: review and the rules engine ---------------------------------------------------
def test_review_requires_attestation(client, snap):
    request_id = build_draft(client, snap, active_member(snap))
    review = client.get(f"/authorizations/requests/{request_id}/review")
    assert review.status_code == 200 and "Submit request" in review.get_data(as_text=True)
    response = client.post(f"/authorizations/requests/{request_id}/submit", {})
    assert response.status_code == 422 and "Confirm the attestation to submit." in response.get_data(as_text=True)
    assert request_by_id(client.snapshot(), request_id)["status"] == "Draft"


def test_criteria_met_is_approved_with_auth_number_and_letter(client, snap):
    request_id = build_draft(client, snap, active_member(snap))
    response = submit(client, request_id)
    assert response.status_code == 302
    after = client.snapshot()
    case = request_by_id(after, request_id)
    assert case["status"] == "Approved" and case["case_number"] == "PL-2026-3000001"
    assert case["auth_number"].endswith("26P00001") and case["approved_units"] == 1
    assert (case["approved_start"], case["approved_end"]) == ("2026-12-01", "2026-12-31")
    assert any(letter["case_number"] == case["case_number"] and letter["category"] == "Authorization Approval"
               for letter in after["letters"])
    page = client.get(response.location).get_data(as_text=True)
    assert case["case_number"] in page and case["auth_number"] in page


def test_missing_required_document_is_pended_then_approved_after_upload(client, snap):
    request_id = build_draft(client, snap, active_member(snap), documents=())
    submit(client, request_id)
    after = client.snapshot()
    case = request_by_id(after, request_id)
    assert case["status"] == "Pended" and case["missing_items"] == ["Clinical notes"]
    assert any(letter["case_number"] == case["case_number"] and letter["category"] == "Request for Additional Information"
               for letter in after["letters"])
    stream, name = pdf_file()
    response = client.post(f"/authorizations/cases/{case['case_number']}/documents",
                           {"document_type": "Clinical notes", "file": (stream, name)}, content_type="multipart/form-data")
    assert response.status_code == 302
    case = request_by_id(client.snapshot(), request_id)
    assert case["status"] == "Approved" and case["auth_number"]


def test_pended_case_refuses_a_bad_document(client, snap):
    request_id = build_draft(client, snap, active_member(snap), documents=())
    submit(client, request_id)
    case_number = request_by_id(client.snapshot(), request_id)["case_number"]
    response = client.post(f"/authorizations/cases/{case_number}/documents",
                           {"document_type": "Clinical notes", "file": (io.BytesIO(b"GIF89a"), "scan.gif")},
                           content_type="multipart/form-data")
    assert response.status_code == 422 and "is not a PDF document" in response.get_data(as_text=True)
    assert request_by_id(client.snapshot(), request_id)["status"] == "Pended"


def test_criteria_not_met_is_denied_with_reason(client, snap):
    request_id = build_draft(client, snap, active_member(snap), answers=LUMBAR_NOT_MET)
    submit(client, request_id)
    case = request_by_id(client.snapshot(), request_id)
    assert case["status"] == "Denied" and "6 weeks" in case["decision_reason"] and case["auth_number"] is None


def test_uncovered_diagnosis_and_inactive_coverage_are_denied(client, snap):
    uncovered = build_draft(client, snap, active_member(snap), dx="I10")
    submit(client, uncovered)
    assert "not covered indications" in request_by_id(client.snapshot(), uncovered)["decision_reason"]
    member = terminated_member(snap)
    inactive = build_draft(client, snap, member)
    submit(client, inactive)
    case = request_by_id(client.snapshot(), inactive)
    assert case["status"] == "Denied" and "not active" in case["decision_reason"]


def test_code_without_auth_requirement_is_closed_not_required(client, snap):
    request_id = build_draft(client, snap, active_member(snap, "PPO"), code="95806", dx="G47.33", pos="12",
                             answers={"snoring_witnessed_apneas": "Yes", "daytime_sleepiness": "Yes",
                                      "epworth_score": "12", "stop_bang_score": "5",
                                      "cardiopulmonary_comorbidity": "None"})
    review = client.get(f"/authorizations/requests/{request_id}/review").get_data(as_text=True)
    assert "Prior authorization is not required for 95806" in review
    submit(client, request_id)
    assert request_by_id(client.snapshot(), request_id)["status"] == "Not Required"


def test_duplicate_is_shown_before_submit_and_recorded_as_duplicate(client, snap):
    on_file, line = approved_lumbar_case(snap)
    member = next(m for m in snap["members"] if m["coverage_id"] == on_file["coverage_id"])
    request_id = build_draft(client, snap, member, dx=line["diagnosis_codes"][0],
                             start=us(line["from_date"]), end=us(line["to_date"]))
    review = client.get(f"/authorizations/requests/{request_id}/review").get_data(as_text=True)
    assert "already on file" in review and on_file["case_number"] in review
    submit(client, request_id)
    after = client.snapshot()
    case = request_by_id(after, request_id)
    assert case["status"] == "Duplicate" and case["duplicate_of"] == on_file["case_number"]
    assert case["auth_number"] is None
    assert len([r for r in after["pa_requests"] if r["status"] == "Approved"]) == \
        len([r for r in snap["pa_requests"] if r["status"] == "Approved"])


def test_second_portal_submission_is_a_duplicate(client, snap):
    member = active_member(snap)
    first = build_draft(client, snap, member)
    submit(client, first)
    second = build_draft(client, snap, member, start="12/15/2026", end="01/15/2027",
                         typed_member_id=member["member_id"].lower())
    submit(client, second)
    after = client.snapshot()
    assert request_by_id(after, first)["status"] == "Approved"
    duplicate = request_by_id(after, second)
    assert duplicate["status"] == "Duplicate" and duplicate["duplicate_of"] == request_by_id(after, first)["case_number"]


def test_submitted_request_cannot_be_edited_or_resubmitted(client, snap):
    request_id = build_draft(client, snap, active_member(snap))
    submit(client, request_id)
    assert client.get(f"/authorizations/requests/{request_id}/services").status_code == 404
    # A changed form, so the kit's double-submit guard does not answer it: the view refuses.
    resubmission = client.post(f"/authorizations/requests/{request_id}/submit", {"attest": "y", "urgency": "Expedited"})
    assert resubmission.status_code == 404


def test_drafts_list_resume_and_delete(client, snap):
    request_id = build_draft(client, snap, active_member(snap))
    page = client.get("/authorizations/drafts").get_data(as_text=True)
    assert f"Resume draft {request_id}" in page and "<dialog" in page
    assert client.post(f"/authorizations/requests/{request_id}/delete").status_code == 302
    after = client.snapshot()
    assert _drafts(after) == [] and lines_of(after, request_id) == []
    assert not [a for a in after["pa_attachments"] if a["request_id"] == request_id]
