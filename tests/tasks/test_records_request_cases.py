"""The cases of template appeals/records_request hold together with their payer's letters: a CO-252
denial whose records request (in the fax inbox) lists a record by its date, how to send it and by
when, counted from the letter's own date; before that date exactly one chart document is the record
asked for (a note of the same title from another day is not), past it and the remittance's appeal
deadline nothing may be sent."""
from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml

from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/records_request"
ROWS = Path(TASKS_ROOT) / "templates" / "appeals" / "records_request.cases.yml"
RESPONSE_DAYS = 45  # what both letters give


def _us(text: str):
    return datetime.strptime(text, "%m/%d/%Y").date()


@pytest.fixture(scope="module")
def requests():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


@pytest.fixture(scope="module")
def rows():
    return {row["id"]: row for row in yaml.safe_load(ROWS.read_text())["rows"]}


def _letter(task) -> str:
    [fax] = task.case.faxes
    return " ".join(" ".join(fax.pages).split())


def test_the_template_holds_a_feasible_and_an_infeasible_records_request(requests):
    assert set(requests) == {"appeal-easy-03", "appeal-medium-17"}
    assert requests["appeal-easy-03"].feasible and not requests["appeal-medium-17"].feasible
    for task in requests.values():
        assert "records_request" in task.skills
        [claim] = task.case.claims
        assert [(a.group, a.carc) for a in claim.lines[0].adjustments] == [("CO", "252")]
        assert claim.lines[0].adjustments[0].rarc in {"M127", "N706"}


def test_the_response_date_is_the_letters_date_plus_its_days_and_decides_the_case(requests):
    for task in requests.values():
        letter, today = _letter(task), task.now.date()
        dated = _us(re.search(r"Letter date: (\S+)", letter).group(1))
        respond_by = _us(re.search(r"by (\d\d/\d\d/\d{4})", letter).group(1))
        assert respond_by == dated + timedelta(days=RESPONSE_DAYS)
        assert dated == task.case.claims[0].remittance.paid_on  # the letter comes with the denial
        assert (respond_by < today) is (not task.feasible)


def test_past_the_response_date_the_appeal_window_has_closed_too_though_the_fax_is_recent(requests):
    task = requests["appeal-medium-17"]
    today = task.now.date()
    assert task.case.claims[0].remittance.appeal_deadline < today
    assert task.case.faxes[0].received_at.date() > task.case.claims[0].remittance.appeal_deadline
    assert {g.table for g in task.guards if g.kind == "no_submission"} >= {"appeals", "outbound_faxes"}


def test_one_chart_document_has_the_date_the_letter_lists_and_it_is_the_one_sent(requests, rows):
    for task_id, task in requests.items():
        asked = re.search(r"Send:(.+?)(?:Send only|How to respond)", _letter(task)).group(1)
        days = {_us(day) for day in re.findall(r"\d\d/\d\d/\d{4}", asked)}
        matching = [d.key for d in task.case.documents if d.date in days]
        assert matching == [rows[task_id]["vars"]["send"]]


def test_the_trap_is_a_note_of_the_same_title_from_another_day_kept_off_the_appeal(requests, rows):
    task = requests["appeal-easy-03"]
    sent = rows["appeal-easy-03"]["vars"]["send"]
    by_key = {d.key: d for d in task.case.documents}
    [other] = [d for key, d in by_key.items() if key != sent]
    assert other.title == by_key[sent].title and other.date < by_key[sent].date
    [guard] = [g for g in task.guards if g.kind == "recipient" and g.table == "appeal_attachments"]
    assert guard.allowed_from.params["doc"].case == f"ids.documents.{sent}"


def test_portal_appeal_keeps_only_the_bases_its_rows_use():
    rows = [row for name in ("easy", "medium", "hard")
            for row in yaml.safe_load((ROWS.parent / f"{name}.cases.yml").read_text())["rows"]
            if row["template"] == "portal_appeal"]
    assert {row["id"] for row in rows} == {"appeal-hard-12", "appeal-medium-07"}
    assert {row["vars"]["basis"] for row in rows} == {"timely", "medical"}
    assert not any("immediate" in row["vars"] for row in rows)
