"""Interruptions are off by default and on exactly in the episodes of a task that turns them on."""
from __future__ import annotations

import pytest
import yaml
from flask import Flask

from admindesk.envs import fax
from admindesk.envs.common import interruptions
from admindesk.envs.common.factory import AppConfig

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient

HEADERS = {"X-Bench-Token": TOKEN}


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Flask:
    tasks = tmp_path_factory.mktemp("interruption-tasks")
    for task_id, turned_on in (("busy-line", {"fax": ["line_busy"]}), ("quiet", {}),
                               ("other-app", {"ehr_web": ["best_practice_alert"]})):
        (tasks / f"{task_id}.yaml").write_text(yaml.safe_dump({"id": task_id, "interruptions": turned_on}))
    (tasks / "typo.yaml").write_text(yaml.safe_dump({"id": "typo", "interruptions": {"fax": ["line_bussy"]}}))
    return fax.create_app(AppConfig(data_dir=tmp_path_factory.mktemp("interruption-data"), token=TOKEN,
                                    testing=True, cache_dir=TEMPLATE_CACHE, tasks_dir=tasks))


def enabled_after_reset(app: Flask, body: dict) -> bool:
    client = FormClient(app)
    assert client.client.post("/_bench/reset", json=body, headers=HEADERS).status_code == 200
    with app.test_request_context("/"):
        return interruptions.enabled("line_busy")


@pytest.mark.parametrize("body,expected", [({"task": "busy-line"}, True), ({}, False),
                                           ({"task": "quiet"}, False), ({"task": "other-app"}, False)])
def test_an_interruption_is_on_only_for_the_task_that_turns_it_on(app, body, expected):
    assert enabled_after_reset(app, body) is expected


def test_the_task_after_an_interrupted_one_is_quiet_again(app):
    assert enabled_after_reset(app, {"task": "busy-line"}) is True
    assert enabled_after_reset(app, {"task": "quiet"}) is False


def test_an_unknown_interruption_is_a_400_naming_it(app):
    response = FormClient(app).client.post("/_bench/reset", json={"task": "typo"}, headers=HEADERS)
    assert response.status_code == 400
    assert "fax has no interruption line_bussy" in response.get_json()["error"]
