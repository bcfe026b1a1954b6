"""Filing a received fax is indexing it: the coordinator files it to the patient its pages name
(name with date of birth or MRN), optionally with a case, claim or authorization reference and a
document type, and a note; the fax then shows its index, the inbox finds it by it, and the
snapshot holds it. Bad input is refused with a message beside the field, and nothing is lost."""
from __future__ import annotations

import html

import pytest

from admindesk.envs.fax import create_app

from .conftest import build_app
from .test_fax_support import audit_rows, text


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def newest(snapshot: dict) -> dict:
    return max(snapshot["inbound_faxes"], key=lambda f: (f["received_at"], f["id"]))


def row_of(snapshot: dict, fax_id: str) -> dict:
    return next(f for f in snapshot["inbound_faxes"] if f["id"] == fax_id)


INDEX = {"file-patient_name": "Achebe-Carter, Rosalind", "file-dob": "04/27/1961", "file-mrn": "",
         "file-reference": "CX-20260720-0518", "file-document_type": "Claim acknowledgment",
         "file-note": "Proof of timely filing; attached to the appeal."}


def test_filing_indexes_the_fax_to_a_patient_and_records_who_filed_it(client):
    fax = newest(client.snapshot())
    response = client.post(f"/inbox/{fax['id']}/file", INDEX)
    assert response.status_code == 302
    snapshot = client.snapshot()
    row = row_of(snapshot, fax["id"])
    assert (row["is_filed"], row["filed_by"], row["filed_at"], row["status"]) == \
        (True, "coordinator", "2026-11-16T09:00:00", "Read")
    assert (row["index_patient_name"], row["index_dob"], row["index_mrn"], row["index_reference"],
            row["index_document_type"]) == ("Achebe-Carter, Rosalind", "1961-04-27", None, "CX-20260720-0518",
                                            "Claim acknowledgment")
    event = snapshot["inbound_fax_events"][-1]
    assert (event["action"], event["sha256"]) == ("Filed", fax["sha256"])
    assert event["note"] == ("Patient Achebe-Carter, Rosalind, DOB 04/27/1961, Ref CX-20260720-0518, "
                             "Claim acknowledgment. Proof of timely filing; attached to the appeal.")
    assert audit_rows(snapshot, record_id=fax["id"], action="file_fax")
    details = text(client.get(f"/inbox/{fax['id']}?tab=details"))
    assert "Filed to <strong>Achebe-Carter, Rosalind</strong> (DOB 04/27/1961)" in details
    assert "CX-20260720-0518" in details and "Claim acknowledgment" in details
    again = client.post(f"/inbox/{fax['id']}/file", {**INDEX, "file-note": "twice"})
    assert again.status_code == 409 and "already filed" in text(again)
    assert row_of(client.snapshot(), fax["id"])["index_reference"] == "CX-20260720-0518"


def test_the_inbox_finds_filed_faxes_by_their_index(client):
    fax = newest(client.snapshot())
    client.post(f"/inbox/{fax['id']}/file", INDEX)
    other = next(f for f in client.snapshot()["inbound_faxes"] if not f["is_filed"])
    for query in ("Achebe-Carter", "rosalind achebe-carter", "cx-20260720"):
        page = text(client.get("/inbox", query_string={"q": query}))
        assert f'>{fax["id"]}<' in page and f'>{other["id"]}<' not in page, query
    typed = text(client.get("/inbox", query_string={"type": "Claim acknowledgment"}))
    assert f'>{fax["id"]}<' in typed and f'>{other["id"]}<' not in typed
    assert "Inbox <small>&mdash; Claim acknowledgment" in typed
    filed = text(client.get("/inbox?view=filed")).split("<tbody>")[1]
    assert f'>{fax["id"]}<' in filed and "Achebe-Carter, Rosalind" in filed and "CX-20260720-0518" in filed
    assert audit_rows(client.snapshot(), endpoint="inbox.index")[-2]["detail"]["document_type"] == \
        "Claim acknowledgment"


def test_filing_by_mrn_alone_is_enough(client):
    fax = newest(client.snapshot())
    response = client.post(f"/inbox/{fax['id']}/file", {"file-patient_name": "Holloway-Pike, Evander",
                                                        "file-mrn": "mrn-00412", "file-note": "To chart."})
    assert response.status_code == 302
    row = row_of(client.snapshot(), fax["id"])
    assert (row["index_mrn"], row["index_dob"], row["index_reference"], row["index_document_type"]) == \
        ("MRN-00412", None, None, None)


@pytest.mark.parametrize("changes, field, message", [
    ({"file-patient_name": "  "}, "patient_name", "Enter the patient's name as the fax gives it"),
    ({"file-patient_name": "12345"}, "patient_name", "Enter the patient's name as the fax gives it"),
    ({"file-dob": "1961-13-40"}, "dob", "Enter the date of birth as MM/DD/YYYY"),
    ({"file-dob": "04/27/2031"}, "dob", "The date of birth must be a past date"),
    ({"file-dob": "", "file-mrn": ""}, "dob", "Enter the date of birth or the MRN"),
    ({"file-mrn": "MRN 00412!"}, "mrn", "An MRN is 3 to 20 letters, digits or hyphens"),
    ({"file-reference": "R" * 41}, "reference", "Reference must be 40 characters or fewer."),
    ({"file-document_type": "Love letter"}, "document_type", "Not a valid choice"),
    ({"file-note": " "}, "note", "Say where the fax was filed"),
])
def test_bad_index_is_refused_beside_its_field_and_keeps_what_was_typed(client, changes, field, message):
    fax = newest(client.snapshot())
    before = client.snapshot()["inbound_faxes"]
    response = client.post(f"/inbox/{fax['id']}/file", {**INDEX, **changes})
    page = html.unescape(text(response))
    assert response.status_code == 422 and message in page and "data-autoopen" in page
    assert f'id="file-{field}-error"' in page
    assert 'value="CX-20260720-0518"' in page or field == "reference"  # nothing typed is lost
    assert client.snapshot()["inbound_faxes"] == before
