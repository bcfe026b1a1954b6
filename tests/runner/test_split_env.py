"""An Env over a hand-made split folder resets a split task by id like a public one: every
app builds the task's case from that folder."""
from __future__ import annotations

import json

import pytest

from admindesk.harness.env.environment import Env
from admindesk.schema.case_ids import case_values
from tests.runner.split_folders import write_public_copy_split

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TASK_ID = "pa-easy-17@t-1"


def test_env_over_a_split_folder_resets_the_split_task_with_its_case(tmp_path):
    split_dir = write_public_copy_split(tmp_path / "split")
    with Env("screenshot", tasks_dir=split_dir) as env:
        _obs, info = env.reset(TASK_ID)
        assert info["task_id"] == TASK_ID and env.task.goal.startswith("Work the Prior Auth queue item")
        ids = case_values(env.task)["ids"]
        patients = [p for p in env.initial_snapshots["ehr_web"]["patients"] if p["mrn"] == ids["mrn"]]
        assert [(p["first_name"], p["last_name"], p["dob"]) for p in patients] == [("Yolanda", "Brzezinski", "1958-04-22")]
        # The payer knows the member too: the case reached the other apps from the same folder.
        member_id = ids["coverages"]["primary"]["payer_member_id"]
        portal = env.initial_snapshots["payer_portal_a"]
        assert any(member_id in json.dumps(rows) for table, rows in portal.items() if table != "_meta")
        with pytest.raises(KeyError, match="no task with id 'pa-easy-17' under"):
            env.reset("pa-easy-17")  # a public id is not in the split's folder
