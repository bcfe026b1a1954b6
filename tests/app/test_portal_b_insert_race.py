"""Portal B under concurrent inserts: resets land while several signed-in clients post
precertification requests and appeals. No post errors, and the fresh episode holds no row
of the one before (its snapshot equals the template byte for byte, numbering included)."""
from __future__ import annotations

import itertools
import random
import threading
import time

import pytest

from admindesk.envs.payer_portal_b import create_app

from .conftest import FormClient, build_app
from .test_portal_b_appeal_levels import appeal_form, claim  # noqa: F401  (fixture reused)
from .test_portal_b_precert import people, request_form  # noqa: F401  (fixture reused)
from .test_reset_race import RACE_NOW, bench_snapshot_bytes, live_files

POSTERS = 4
ROUNDS = 10
INSERTED = ("precert_requests", "appeals", "attachments", "correspondence", "audit_events", "number_sequences")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


class Poster(threading.Thread):
    """Signs in, then files precertification requests and appeals (each marked with
    `marker`, so a row left behind names its episode) until told to stop."""

    def __init__(self, app, people, claim, marker: str, seed: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.client, self.people, self.claim, self.marker, self.stop = FormClient(app), people, claim, marker, stop
        self.random = random.Random(seed)
        self.statuses: list[tuple[str, int]] = []
        self.failures: list[BaseException] = []
        self.signed_in = threading.Event()

    def run(self) -> None:
        try:
            self.statuses.append(("/login", self.client.login().status_code))
            self.signed_in.set()
            for number in itertools.count():
                if self.stop.is_set():
                    return
                # Each post reads differently: an identical repeat is a double submit.
                text = f"{self.marker} filing {number}"
                if self.random.random() < 0.5:
                    path = "/precertification/new"
                    form = request_form(self.people, clinical_summary=f"Eight weeks of PT failed. {text}")
                else:
                    path = "/appeals/new"
                    form = appeal_form(self.claim, appellant_name=text)
                response = self.client.post(path, form, content_type="multipart/form-data")
                self.statuses.append((path, response.status_code))
        except BaseException as exc:  # a crash in a thread must fail the test, not vanish
            self.failures.append(exc)
        finally:
            self.signed_in.set()


@pytest.mark.slow
def test_inserts_in_flight_at_reset_leave_the_new_episode_untouched(app, people, claim):
    bench = FormClient(app)
    bench.reset(RACE_NOW)
    template = bench_snapshot_bytes(bench)
    chance = random.Random(20261202)
    errors, leaked, crashes = [], {}, []
    accepted = 0
    for round_number in range(ROUNDS):
        marker = f"race-round-{round_number}"
        stop = threading.Event()
        posters = [Poster(app, people, claim, marker, round_number * POSTERS + i, stop) for i in range(POSTERS)]
        for poster in posters:
            poster.start()
        for poster in posters:
            poster.signed_in.wait(10)
        time.sleep(chance.uniform(0.05, 0.4))  # a few posts in, some in flight
        bench.reset(RACE_NOW)
        stop.set()
        for poster in posters:
            poster.join(30)
        statuses = [(path, code) for poster in posters for path, code in poster.statuses]
        errors += [status for status in statuses if status[1] >= 500]
        crashes += [exc for poster in posters for exc in poster.failures]
        accepted += sum(1 for path, code in statuses if path != "/login" and code == 302)
        fresh = bench_snapshot_bytes(bench)
        if fresh != template:
            snapshot = bench.snapshot()
            leaked[round_number] = {table: len(snapshot[table]) for table in INSERTED}
        assert len(live_files(app)) == 1, live_files(app)
    assert crashes == [] and errors == []
    assert leaked == {}, f"rounds whose fresh episode held the previous episode's rows: {leaked}"
    assert accepted >= ROUNDS, f"only {accepted} posts were accepted: the race never wrote"
