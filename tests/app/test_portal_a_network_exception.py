"""Portal A's network access screens (template prior_auth/network_gap_exception): the Provider Network's
facility search by service around a member's ZIP (network status with the chosen payer, straight-line
miles, next available appointment, whether an in-network site meets the access standard; its validation
messages), the manual's Network access and exceptions chapter, and the request's network exception:
required for an out-of-network servicing facility on an HMO/EPO plan, refused for an in-network one,
recorded on the case."""
from __future__ import annotations

import html
import re

import pytest

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import case_clients
from .test_portal_a_support import pdf_file, start_draft

EXCEPTION_TASK, REDIRECT_TASK = "pa-medium-01", "pa-medium-02"
ADAMS, HANOVER = "1648739203", "1729463814"  # pa-medium-01's ordered site (out of network) and in-network site
WAIT = "No in-network appointment within 14 calendar days"


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.id in (EXCEPTION_TASK, REDIRECT_TASK)}


@pytest.fixture(scope="module")
def portal(app_data_dir):
    return case_clients(app_data_dir / "network-exception", ("payer_portal_a",))["payer_portal_a"]


def _rows(page: str) -> list[list[str]]:
    body = page.split("<caption>Facilities found</caption>")[1].split("</table>")[0]
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr><td>.*?</tr>", body, re.S)]


def _search(portal, **args) -> str:
    query = {"payer_id": "PYR-NWH", "service": "PET/CT", "zip": "17325", "radius": "60", **args}
    return portal.get("/network/facilities", query_string=query).get_data(as_text=True)


def test_the_facility_search_lists_each_site_nearest_first_with_its_status_miles_and_opening(portal):
    portal.start_task(EXCEPTION_TASK)
    rows = _rows(_search(portal))
    assert [(r[0], r[4], r[6]) for r in rows] == [
        ("Adams County PET Imaging", "Out of network", "No"),
        ("Hanover Regional Imaging Center", "In network", "No"),  # 13 miles, but booked five weeks out
        ("Susquehanna Valley Hospital Outpatient Imaging", "In network", "No")]  # open soon, 38 miles away
    miles = [float(r[3]) for r in rows]
    assert miles == sorted(miles) and 12 < miles[1] < 15 and 30 < miles[2] < 40
    assert rows[1][5] == "12/21/2026"
    # Within the standard's 30 miles the hospital's site does not show; Cascade Summit has Adams in network.
    assert [r[0] for r in _rows(_search(portal, radius="30"))] == ["Adams County PET Imaging",
                                                                   "Hanover Regional Imaging Center"]
    assert _rows(_search(portal, payer_id="PYR-CSH"))[0][4] == "In network"
    audit = portal.snapshot()["audit_events"]
    assert {e["record_id"] for e in audit if e["record_type"] == "network_participation"} >= {ADAMS, HANOVER}


def test_an_in_network_site_within_the_standard_is_flagged(portal):
    portal.start_task(REDIRECT_TASK)
    rows = _rows(_search(portal, payer_id="PYR-CSH", service="Nuclear cardiology", zip="17603"))
    assert [(r[0], r[4], r[6]) for r in rows] == [
        ("Lancaster Heart & Vascular Imaging", "In network", "Yes"),  # the ordered group's sister site
        ("Conestoga Heart Institute - Reading", "Out of network", "No"),
        ("Susquehanna Valley Hospital Outpatient Imaging", "In network", "No")]
    assert float(rows[0][3]) < 8
    # Within 30 miles the ordered site does not show; searched by its name it does, at its distance.
    assert "Conestoga" not in _search(portal, payer_id="PYR-CSH", service="Nuclear cardiology", zip="17603", radius="30")
    by_name = _search(portal, payer_id="PYR-CSH", service="Nuclear cardiology", zip="17603", radius="10", name="conestoga")
    [ordered] = _rows(by_name)
    assert ordered[4] == "Out of network" and float(ordered[3]) > 30
    # The heading says what was searched: a name at any distance, not the radius the name search ignores.
    heading = html.unescape(re.search(r'<h2 id="results-heading">(.*?)</h2>', by_name, re.S).group(1))
    assert 'named like "conestoga" (any distance from 17603)' in heading and "within 10 miles" not in heading


@pytest.mark.parametrize("args, message", [
    ({"zip": ""}, "Enter the member&#39;s 5-digit home ZIP code."),
    ({"zip": "99501"}, "ZIP code 99501 is outside the directory&#39;s service area."),
    ({"service": ""}, "Select the service the facility performs."),
    ({"payer_id": ""}, "Select the payer whose network to search."),
])
def test_the_facility_search_explains_what_is_missing(portal, args, message):
    portal.start_task(EXCEPTION_TASK)
    page = _search(portal, **args)
    assert message in page and "Facilities found" not in page


def test_the_manual_states_the_access_standard_and_the_exception(portal):
    portal.start_task(EXCEPTION_TASK)
    page = portal.get("/payers/PYR-NWH?tab=manual").get_data(as_text=True)
    assert "Network access and exceptions" in page and "within 30 miles of the member&#39;s home" in page
    assert "within 14 calendar days of the request" in page and "a group&#39;s other locations" in page


def _draft_for(portal, tasks, servicing_npi: str) -> int:
    """A complete draft for the case's HMO member, with `servicing_npi` as the servicing provider."""
    member_id = case_values(tasks[EXCEPTION_TASK])["ids"]["coverages"]["primary"]["payer_member_id"]
    member = next(m for m in portal.snapshot()["members"] if m["member_id"] == member_id)
    request_id = start_draft(portal, member)
    base = f"/authorizations/requests/{request_id}"
    oncologist = next(p["npi"] for p in portal.snapshot()["providers"] if p["entity_type"] == "Individual")
    assert portal.post(f"{base}/providers", {"requesting_npi": oncologist, "servicing_npi": servicing_npi}).status_code == 302
    assert portal.post(f"{base}/services/add", {"code": "78815", "units": "1", "diagnosis_codes": "C34.11",
                                                "from_date": "11/24/2026", "to_date": "12/23/2026",
                                                "place_of_service": "22"}).status_code == 302
    assert portal.post(f"{base}/services").status_code == 302
    assert portal.post(f"{base}/questionnaire", {"clinical_summary": "Staging PET/CT for new lung adenocarcinoma."}
                       ).status_code == 302
    stream, name = pdf_file()
    assert portal.post(f"{base}/attachments/add", {"document_type": "Clinical notes", "file": (stream, name)},
                       content_type="multipart/form-data").status_code == 302
    return request_id


@pytest.mark.parametrize("fields, message", [
    ({}, "Out-of-network services are covered only with an approved network exception"),
    ({"network_exception": WAIT}, "A network exception lists the in-network providers checked"),
])
def test_an_out_of_network_facility_needs_the_exception_and_what_was_checked(portal, tasks, fields, message):
    portal.start_task(EXCEPTION_TASK)
    request_id = _draft_for(portal, tasks, ADAMS)
    review = portal.get(f"/authorizations/requests/{request_id}/review").get_data(as_text=True)
    assert 'name="network_exception"' in review and "is not in this plan's network" in html.unescape(review)
    response = portal.post(f"/authorizations/requests/{request_id}/submit", {"attest": "y", **fields})
    assert response.status_code == 422 and message in response.get_data(as_text=True).replace("&#39;", "'")


def test_the_payer_records_the_exception_on_the_case(portal, tasks):
    portal.start_task(EXCEPTION_TASK)
    request_id = _draft_for(portal, tasks, ADAMS)
    checked = "Hanover Regional Imaging Center: 13 miles, next available 12/21/2026; SV Outpatient Imaging: 38 miles"
    response = portal.post(f"/authorizations/requests/{request_id}/submit",
                           {"attest": "y", "network_exception": WAIT, "in_network_checked": f" {checked} "})
    assert response.status_code == 302, response.get_data(as_text=True)
    case = next(r for r in portal.snapshot()["pa_requests"] if r["id"] == request_id)
    assert (case["network_exception"], case["in_network_checked"], case["servicing_npi"]) == (WAIT, checked, ADAMS)
    page = portal.get(response.location).get_data(as_text=True)
    assert "Network exception" in page and "Hanover Regional Imaging Center: 13 miles" in page


def test_an_in_network_facility_takes_no_exception(portal, tasks):
    portal.start_task(EXCEPTION_TASK)
    request_id = _draft_for(portal, tasks, HANOVER)
    review = portal.get(f"/authorizations/requests/{request_id}/review").get_data(as_text=True)
    assert 'name="network_exception"' not in review
    response = portal.post(f"/authorizations/requests/{request_id}/submit",
                           {"attest": "y", "network_exception": WAIT, "in_network_checked": "none"})
    assert response.status_code == 422
    assert "only for a servicing provider outside the plan" in response.get_data(as_text=True).replace("&#39;", "'")
