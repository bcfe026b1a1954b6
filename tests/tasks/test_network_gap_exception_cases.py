"""The cases of template prior_auth/network_gap_exception hold together against the payer's access
standard (30 miles from the member's home, an appointment within 14 days of the task's day): the ordered
facility is outside the member's HMO/EPO network; the exception case has no in-network facility of the
service that meets the standard, though one is near (its trap), and the redirect case has exactly the
one its vars name; the checks credit either true exception reason and only those."""
from __future__ import annotations

import re

import pytest
import yaml

from admindesk.envs.common.network_access import meets_standard, miles_between, service_of
from admindesk.envs.world import build_world
from admindesk.envs.world.cases import CaseError, build_case
from admindesk.envs.world.org import FACILITY_SERVICES
from admindesk.schema.task_model import TASKS_ROOT, load_tasks
from tests.unit.test_credited_routes import check_passes, ids

TEMPLATE = "prior_auth/network_gap_exception"
EXCEPTION_CHECK = ("the request asks for a network exception because no in-network facility is near enough or can "
                   "schedule in time")


@pytest.fixture(scope="module")
def cases():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


@pytest.fixture(scope="module")
def row_vars():
    rows = yaml.safe_load((TASKS_ROOT / "templates/prior_auth/network_gap_exception.cases.yml").read_text())["rows"]
    return {row["id"]: row["vars"] for row in rows}


@pytest.fixture(scope="module")
def world():
    return build_world()


def _in_network_options(task, world) -> list[tuple[str, float | None, bool]]:
    """(name, miles, meets the standard) of each in-network facility performing the ordered service:
    the case's sites in the member's payer's network and the health system's own (in every network)."""
    [order] = task.case.orders
    payer, home, today = task.case.coverages[0].payer, task.case.patient.zip, task.now.date()
    service = service_of(order.code)
    options = []
    for site in task.case.sites:
        if payer in site.networks and service in site.services:
            miles = miles_between(home, site.zip)
            options.append((site.name, miles, meets_standard(miles, site.next_available, today)))
    for facility in world.facilities:
        if service in FACILITY_SERVICES.get(facility.id, ()):
            # Its default opening is at most 10 days out: only its distance can miss the standard.
            miles = miles_between(home, facility.zip)
            options.append((facility.name, miles, miles is not None and miles <= 30))
    return options


def test_the_template_holds_two_hmo_or_epo_cases_ordered_out_of_network(cases, world):
    assert set(cases) == {"pa-medium-01", "pa-medium-02"}
    plans = {p.id: p.product for p in world.plans}
    for task in cases.values():
        [order] = task.case.orders
        ordered = task.case.sites[0]
        assert order.facility == ordered.id and order.code not in ("72148", "73721", "70553", "72141")
        assert plans[task.case.coverages[0].plan] in ("HMO", "EPO") and "network_exception" in task.skills
        assert task.case.coverages[0].payer not in ordered.networks
        assert service_of(order.code) in ordered.services


def test_no_in_network_facility_meets_the_standard_in_the_exception_case(cases, world):
    options = _in_network_options(cases["pa-medium-01"], world)
    assert options and not any(meets for _, _, meets in options)
    # The trap: an in-network facility within the distance, booked past 14 days.
    assert any(miles is not None and miles <= 30 for _, miles, _ in options)


def test_the_redirect_case_names_the_one_in_network_facility_that_meets_it(cases, world, row_vars):
    task, chosen = cases["pa-medium-02"], row_vars["pa-medium-02"]
    meeting = [name for name, _, meets in _in_network_options(task, world) if meets]
    assert meeting == [chosen["redirect_to"]] and "redirect_to" not in row_vars["pa-medium-01"]
    ordered, sister = task.case.sites[0], task.case.sites[chosen["checked"]]
    assert sister.name == chosen["redirect_to"] and sister.npi != ordered.npi
    assert miles_between(task.case.patient.zip, sister.zip) <= 8


@pytest.mark.parametrize("reason, passes", [
    ("No in-network appointment within 14 calendar days", True),
    ("No in-network provider of the service within 30 miles", True),
    ("No in-network provider performs the service", False),
    (None, False),
])
def test_the_exception_reason_is_credited_when_true(reason, passes):
    member = ids("pa-medium-01")["coverages"]["primary"]["payer_member_id"]
    final = {"payer_portal_a": {"pa_requests": [{"id": 1, "member_id": member, "network_exception": reason}]}}
    assert check_passes("pa-medium-01", EXCEPTION_CHECK, final) is passes


def _with_site(task, **change):
    data = task.case.model_dump(mode="json")
    data["sites"][0].update(change)
    return type(task.case).model_validate(data)


@pytest.mark.parametrize("change, message", [
    ({"services": ["MRI"]}, "case.orders.0.facility: Adams County PET Imaging does not perform 78815"),
    ({"zip": "99501"}, "case.sites.0.zip: 99501 is outside the directory's service area"),
    ({"npi": "1648739204"}, "case.sites.0.npi: 1648739204 is not a valid NPI of its own"),
    ({"networks": ["PYR-ZZZ"]}, "case.sites.0.networks.0: unknown payer 'PYR-ZZZ'"),
    ({"services": ["Cardiology"]}, "case.sites.0.services.0: 'Cardiology' is not a directory service"),
])
def test_an_outside_site_that_does_not_fit_is_refused(cases, world, change, message):
    task = cases["pa-medium-01"]
    with pytest.raises(CaseError, match=re.escape(message)):
        build_case(world, task.id, _with_site(task, **change))


def test_an_outside_site_is_in_the_networks_it_names_only(cases, world):
    task = cases["pa-medium-01"]
    records = build_case(world, task.id, task.case)
    adams = task.case.sites[0]
    assert {f.id for f in records.payer.outside_sites} == {"EXT-ADM", "EXT-HNV"}
    assert {e.payer_id for e in records.payer.provider_enrollments if e.npi == adams.npi} == {"PYR-CSH"}
    assert records.chart.facility("EXT-ADM").services == ("PET/CT",)
