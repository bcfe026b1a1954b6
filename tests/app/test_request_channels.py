"""A request on file reached its payer one way, and every app tells the same story: portal A
shows each request's channel (Portal, or Fax keyed in by the payer), Keystone lists its
faxed history as On file, and the fax app's outbox holds a prior-auth send only for a faxed
request: to that payer's intake line, on the morning the order was signed, gone through
before the payer logged the request received."""
from __future__ import annotations

from collections import Counter
from datetime import datetime

import pytest

from admindesk.envs.fax import create_app as create_fax
from admindesk.envs.payer_portal_a import create_app as create_portal_a
from admindesk.envs.payer_portal_b import create_app as create_portal_b
from admindesk.envs.world import build_world
from admindesk.envs.world.faxes import answered_authorization, faxed_request

from .conftest import FormClient, build_app

PA_REQUEST = "Prior authorization request"


@pytest.fixture(scope="module")
def snapshots(app_data_dir):
    return {name: FormClient(build_app(factory, app_data_dir / name)).snapshot()
            for name, factory in (("fax", create_fax), ("portal_a", create_portal_a), ("portal_b", create_portal_b))}


def _faxed_requests_on_file(snapshots) -> dict[str, list[datetime]]:
    """When each payer logged a request it received by fax, by the payer's id."""
    received: dict[str, list[datetime]] = {}
    for request in snapshots["portal_a"]["pa_requests"]:
        if request["source"] == "Fax":
            received.setdefault(request["payer_id"], []).append(datetime.fromisoformat(request["submitted_at"]))
    keystone = [r for r in snapshots["portal_b"]["precert_requests"] + snapshots["portal_b"]["dme_requests"]
                if r["source"] == "On file"]
    received["PYR-KMH"] = [datetime.fromisoformat(r["submitted_at"]) for r in keystone]
    return received


def test_portal_a_shows_requests_filed_by_portal_and_by_fax(snapshots):
    seeded = Counter(r["source"] for r in snapshots["portal_a"]["pa_requests"] if r["created_by"] == "payer")
    assert set(seeded) == {"Portal", "Fax"} and seeded["Portal"] > seeded["Fax"] > 0


def test_each_faxed_prior_auth_request_is_a_request_the_payer_logged_as_faxed(snapshots):
    world = build_world()
    payer_of_line = {payer.pa_fax: payer.id for payer in world.payers}
    received = _faxed_requests_on_file(snapshots)
    sends = [job for job in snapshots["fax"]["outbound_faxes"]
             if job["cover_re"] == PA_REQUEST and job["status"] == "Sent"]
    assert sends
    for job in sends:
        payer = payer_of_line[job["to_number"]]
        through = datetime.fromisoformat(job["completed_at"])
        logged = [at for at in received.get(payer, []) if at.date() == through.date() and at > through]
        assert logged, f"{job['id']} to {payer} on {through:%Y-%m-%d}: no request that payer logged as faxed"


def test_a_letter_about_a_request_filed_on_the_portal_answers_no_fax(snapshots):
    world = build_world()
    letters = [f for f in world.faxes if f.kind in ("determination_letter", "request_for_information")]
    channels = Counter(answered_authorization(world, f).channel for f in letters)
    assert channels["Portal"] and channels["Fax"]
    for letter in letters:
        faxed = faxed_request(world, letter) is not None
        assert faxed == (answered_authorization(world, letter).channel == "Fax"), letter.id
    sends = sum(job["cover_re"] == PA_REQUEST and job["status"] == "Sent" for job in snapshots["fax"]["outbound_faxes"])
    assert sends == sum(faxed_request(world, letter) is not None for letter in letters)
