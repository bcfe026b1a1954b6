"""The held-out sampler: a drawn case keeps its template's trap, measured against the rules themselves."""
from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from admindesk.envs.world import build_world
from admindesk.harness.task_tools.generation import Generator
from admindesk.harness.task_tools.splits import facts, timeline
from admindesk.harness.task_tools.splits.generate import public_rows
from admindesk.harness.task_tools.splits.sampler import draw_row

SEEDS = (1, 2, 3, 4)


@pytest.fixture(scope="module")
def rows():
    return {row.row.id: row.row for row in public_rows(Generator())}


@pytest.fixture(scope="module")
def world():
    return build_world()


def drawn(rows, world, row_id: str, seed: int):
    return draw_row(rows[row_id], world, seed=seed, task_id=f"{row_id}@t-{seed}", slot=9000 + seed,
                    avoid_names=set())


def doc(case, key):
    return next(d for d in case["documents"] if d["key"] == key)


@pytest.mark.parametrize("seed", SEEDS)
def test_oxygen_traps_stay_on_their_side(rows, world, seed):
    # dme-hard-03: the supplier's walk test stays Group I on its face, the visit's resting value Group II.
    case = drawn(rows, world, "dme-hard-03", seed).case
    supplier_test, visit = doc(case, "oxi")["facts"], doc(case, "visit")["facts"]
    assert supplier_test["spo2_exertion"] <= 88 < supplier_test["spo2_on_oxygen"] and visit["spo2_rest"] == 89
    # dme-medium-04: the lower, older test stays more than 30 days before the written order, the lab's inside.
    case = drawn(rows, world, "dme-medium-04", seed).case
    order_day = date.fromisoformat(doc(case, "wo")["date"])
    assert order_day - date.fromisoformat(doc(case, "early")["facts"]["test_date"]) > timedelta(days=30)
    assert order_day - date.fromisoformat(doc(case, "oxi")["facts"]["test_date"]) <= timedelta(days=30)


@pytest.mark.parametrize("seed", SEEDS)
def test_terminated_coverage_stays_terminated_on_the_service_date(rows, world, seed):
    # pa-hard-11: both payers ended the coverages before the planned surgery.
    case = drawn(rows, world, "pa-hard-11", seed).case
    planned = date.fromisoformat(case["orders"][0]["planned_date"])
    ends = [date.fromisoformat(c["at_payer"]["termination"]) for c in case["coverages"]]
    assert len(ends) == 2 and all(end < planned for end in ends)


@pytest.mark.parametrize("seed", SEEDS)
def test_stale_face_to_face_stays_older_than_six_months(rows, world, seed):
    # dme-medium-05: the face-to-face visit is more than six months before the order.
    case = drawn(rows, world, "dme-medium-05", seed).case
    visit = min(date.fromisoformat(d["date"]) for d in case["documents"] if d["type"] == "face_to_face")
    assert date.fromisoformat(case["orders"][0]["ordered_on"]) - visit > timedelta(days=183)


@pytest.mark.parametrize("seed", SEEDS)
def test_closed_appeal_window_stays_closed(rows, world, seed):
    # A past-deadline row whose remittance states its appeal deadline: it passed before the task's day.
    closed = next(row_id for row_id, row in rows.items() if row.template == "past_deadline"
                  and "appeal_deadline" in row.case["claims"][0]["remittance"])
    row = drawn(rows, world, closed, seed)
    deadline = date.fromisoformat(row.case["claims"][0]["remittance"]["appeal_deadline"])
    assert deadline < date.fromisoformat(row.now[:10])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_drawn_injury_keeps_its_registration_and_the_closed_claim(rows, world, seed):
    # appeal-easy-16: the first report's injury is the one registration holds open, without its claim number;
    # the claim registration does show is an earlier, closed one.
    case = drawn(rows, world, "appeal-easy-16", seed).case
    report = doc(case, "froi")["facts"]
    [open_entry] = [a for a in case["accidents"] if a.get("status", "Open") == "Open"]
    [closed] = [a for a in case["accidents"] if a.get("status") == "Closed"]
    assert open_entry["injury_date"] == report["injury_date"] and "claim_number" not in open_entry
    assert closed["closed_on"] < report["injury_date"] and closed["claim_number"] != report["wc_claim_number"]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_new_patient_with_the_same_look_alike_trap(rows, world, seed):
    # appeal-hard-04: a "Jr" look-alike born later shares the patient's name.
    public = rows["appeal-hard-04"].case
    case = drawn(rows, world, "appeal-hard-04", seed).case
    assert case["patient"]["last_name"] != public["patient"]["last_name"]
    gap = date.fromisoformat(public["lookalikes"][0]["dob"]) - date.fromisoformat(public["patient"]["dob"])
    assert date.fromisoformat(case["lookalikes"][0]["dob"]) - date.fromisoformat(case["patient"]["dob"]) == gap
    fax_text = " ".join(page for fax in case["faxes"] for page in fax.get("pages", []))
    assert public["patient"]["last_name"] not in fax_text
    assert f"{case['patient']['first_name']} {case['patient']['last_name']}" in fax_text
    assert case["patient"]["dob"] in fax_text


def test_the_timeline_moves_but_the_plan_end_the_rubric_quotes_stays(rows, world):
    # dme-hard-05: Keystone ended the coverage on 08/31/2026; the rubric says so.
    public = rows["dme-hard-05"]
    moved = [row for row in (drawn(rows, world, "dme-hard-05", seed) for seed in SEEDS)
             if row.case["orders"][0]["ordered_on"] != public.case["orders"][0]["ordered_on"]]
    assert moved, "no seed moved dme-hard-05's timeline"
    for row in moved:
        assert [c.get("at_payer") for c in row.case["coverages"]] == [c.get("at_payer") for c in public.case["coverages"]]
        assert "08/31/2026" in row.vars["why"]


def test_a_shift_that_would_close_an_open_window_is_refused():
    today = date(2026, 11, 16)
    paid_on = date(2026, 8, 20)  # a Thursday; its 90-day window ends 2026-11-18, still open today
    assert timeline.shift_keeps_rules(1, [paid_on], [], today, {90})
    assert not timeline.shift_keeps_rules(-3, [paid_on], [], today, {90})  # would end 11-15: closed
    assert not timeline.shift_keeps_rules(2, [paid_on], [], today, set())  # a weekday becomes a Saturday
    assert not timeline.shift_keeps_rules(1, [paid_on], [date(2026, 8, 20)], today, set())  # leaves a plan's day


def test_text_dates_move_but_birthdays_and_plan_ends_stay():
    keep = {date(1970, 12, 30), date(2026, 6, 30)}
    text = "DOB: 1970-12-30. Seen 2026-09-02 and 09/14/2026. Plan ended 06/30/2026."
    moved = timeline.shift_text(text, timedelta(days=7), keep)
    assert moved == "DOB: 1970-12-30. Seen 2026-09-09 and 09/21/2026. Plan ended 06/30/2026."


def test_facts_keep_threshold_sides_and_quoted_values():
    case = {"documents": [
        {"key": "a", "facts": {"conservative_therapy_weeks": 5, "physical_therapy_weeks": 3}},
        {"key": "b", "facts": {"conservative_therapy_weeks": 8}},
        {"key": "c", "facts": {"ahi": 9.5}},
    ]}
    for seed in range(20):
        redrawn = facts.redraw_facts(case, ["the AHI of 9.5 is below 15"], random.Random(seed))
        weeks = [d["facts"]["conservative_therapy_weeks"] for d in redrawn["documents"][:2]]
        assert 4 < weeks[0] < 6 and 6 < weeks[1] < 12  # each stays between the same thresholds
        assert redrawn["documents"][0]["facts"]["physical_therapy_weeks"] < weeks[0]
        assert redrawn["documents"][2]["facts"]["ahi"] == 9.5  # quoted in the rubric: left alone
