"""A bad case or raw seed is a clear error at reset, naming the task file and the field,
and leaves no template behind (the next reset still works)."""
from __future__ import annotations

import re
import shutil

import pytest
import yaml

from admindesk.envs import ehr_web
from admindesk.envs.common.factory import AppConfig
from tests.cases.examples import TASKS_DIR

from .conftest import TOKEN, FormClient, build_app

HEADERS = {"X-Bench-Token": TOKEN}


@pytest.fixture(scope="module")
def world_template(app_data_dir):
    return build_app(ehr_web.create_app, app_data_dir / "case-errors").extensions["admindesk"].template


def task_with(edit) -> dict:
    data = yaml.safe_load((TASKS_DIR / "pa-shortfall.yaml").read_text())
    data["id"] = "case-bad"
    edit(data)
    return data


@pytest.mark.parametrize("edit,message", [
    (lambda d: d["case"]["coverages"][0].update(payer="PYR-ZZZ"), "case.coverages.0.payer: unknown payer 'PYR-ZZZ'"),
    (lambda d: d["case"]["orders"][0].update(code="00000"), "case.orders.0.code: service code '00000' is not in"),
    (lambda d: d["case"]["documents"][0]["facts"].update(conservative_therapy_weeks="six"),
     "case.documents.0.facts.conservative_therapy_weeks: Input should be a valid integer"),
    (lambda d: d["case"]["orders"][0].update(ordered_on="2026-02-30"), "case.orders.0.ordered_on: Input should be"),
    (lambda d: d.update(seed={"ehr_web": {"patients": [{"mrn": "E1000449", "first_name": "Dup"}]}}),
     "case-bad .*UNIQUE constraint failed|case-bad .*NOT NULL constraint failed"),
])
def test_a_bad_case_is_a_400_naming_the_file_and_field_and_builds_nothing(tmp_path, world_template, edit, message):
    tasks, cache = tmp_path / "tasks", tmp_path / "cache"
    tasks.mkdir()
    cache.mkdir()
    shutil.copy(world_template, cache / world_template.name)  # the world template, already built
    path = tasks / "bad.yaml"
    data = task_with(edit)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    client = FormClient(ehr_web.create_app(AppConfig(data_dir=tmp_path / "data", token=TOKEN, testing=True,
                                                     cache_dir=cache, tasks_dir=tasks)))
    response = client.client.post("/_bench/reset", json={"task": "case-bad"}, headers=HEADERS)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert str(path) in error
    assert re.search(message, error), error
    assert sorted(p.name for p in cache.iterdir()) == [world_template.name]  # nothing half-built
    assert client.client.post("/_bench/reset", json={}, headers=HEADERS).status_code == 200
