"""Resets that land while requests are in flight: the new episode stays exactly the template.

Each round, signed-in clients load pages (every view writes an audit row) from several
threads; a reset lands at a random moment; the clients stop and the fresh episode's
snapshot must equal the template's byte for byte: a request that began before the reset
writes nothing into the new episode, no request errors, and no database file is left over.
"""
from __future__ import annotations

import importlib
import random
import threading
import time

import pytest

from .conftest import TOKEN, FormClient, build_app

APP_PACKAGES = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
LOADERS = 4
ROUNDS = 12
RACE_NOW = "2026-11-16T09:00:00"


@pytest.fixture(scope="module", params=APP_PACKAGES)
def app(request, app_data_dir):
    package = importlib.import_module(f"admindesk.envs.{request.param}")
    return build_app(package.create_app, app_data_dir)


def plain_pages(app) -> list[str]:
    """Every GET page without URL arguments (the app's menus, lists and home)."""
    return sorted(rule.rule for rule in app.url_map.iter_rules()
                  if "GET" in rule.methods and not rule.arguments
                  and not rule.rule.startswith(("/_bench", "/static", "/_common", "/favicon")))


def bench_snapshot_bytes(client: FormClient) -> bytes:
    response = client.client.get("/_bench/snapshot", headers={"X-Bench-Token": TOKEN})
    assert response.status_code == 200
    return response.data


def live_files(app) -> list[str]:
    kit = app.extensions["admindesk"]
    return sorted(p.name for p in kit.db.path.parent.glob(f"{kit._live_name}-*.sqlite"))


class Loader(threading.Thread):
    """Signs in, then loads random pages until told to stop; keeps every status code."""

    def __init__(self, app, pages: list[str], seed: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.client, self.pages, self.stop = FormClient(app), pages, stop
        self.random = random.Random(seed)
        self.statuses: list[tuple[str, int]] = []
        self.signed_in = threading.Event()

    def run(self) -> None:
        response = self.client.login()
        self.statuses.append(("/login", response.status_code))
        self.signed_in.set()
        while not self.stop.is_set():
            page = self.random.choice(self.pages)
            self.statuses.append((page, self.client.get(page).status_code))


@pytest.mark.slow
def test_requests_in_flight_at_reset_leave_the_new_episode_untouched(app):
    bench = FormClient(app)
    bench.reset(RACE_NOW)
    template = bench_snapshot_bytes(bench)
    pages = plain_pages(app)
    chance = random.Random(20261130)
    errors, stale_rounds = [], []
    for round_number in range(ROUNDS):
        stop = threading.Event()
        loaders = [Loader(app, pages, round_number * LOADERS + i, stop) for i in range(LOADERS)]
        for loader in loaders:
            loader.start()
        for loader in loaders:
            loader.signed_in.wait(10)
        time.sleep(chance.uniform(0.0, 0.03))
        bench.reset(RACE_NOW)
        stop.set()
        for loader in loaders:
            loader.join(10)
        errors += [(page, code) for loader in loaders for page, code in loader.statuses if code >= 500]
        if bench_snapshot_bytes(bench) != template:
            stale_rounds.append(round_number)
        assert len(live_files(app)) == 1, live_files(app)
    assert errors == []
    assert stale_rounds == [], f"rounds whose fresh episode held writes of the previous one: {stale_rounds}"
