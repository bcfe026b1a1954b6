"""Runs over a task folder outside tasks/ (a generated split): the folder reaches every
app process, run.json records the split, a rerun into another split's folder is refused,
and the CLIs refuse a missing or empty folder clearly. No browser here."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.env.attach import AttachSpec
from admindesk.harness.env.environment import Env
from admindesk.harness.env.services import ServiceError, Services
from admindesk.harness.running import local as runner_local
from admindesk.harness.running.pool import run_parallel
from admindesk.harness.running.worker import WorkerConfig
from admindesk.harness.task_tools import check as task_check
from admindesk.harness.task_tools.folders import PUBLIC_SPLIT_RECORD, TaskFolderError, load_task_folder, split_record
from admindesk.schema.case_ids import CaseIds
from tests.runner.split_folders import write_public_copy_split

TASK_ID = "pa-easy-17@t-1"


@pytest.fixture
def split_dir(tmp_path) -> Path:
    return write_public_copy_split(tmp_path / "split-t-1")


def test_the_split_record_of_the_public_suite_a_split_and_a_private_seed(split_dir, tmp_path):
    assert split_record(None) == PUBLIC_SPLIT_RECORD == {"name": "public", "seed": None, "seed_sha256": None,
                                                         "tasks_sha256": None}
    manifest = json.loads((split_dir / "split.json").read_text())
    assert split_record(split_dir) == {"name": "t-1", "seed": 7, "seed_sha256": manifest["seed_sha256"],
                                       "tasks_sha256": manifest["tasks_sha256"]}
    private = write_public_copy_split(tmp_path / "private", "h-9", private=True)
    record = split_record(private)
    assert record["name"] == "h-9" and record["seed"] is None and len(record["seed_sha256"]) == 64


def test_a_task_file_edited_after_generation_is_refused(split_dir):
    edited = split_dir / "prior_auth" / f"{TASK_ID}.yaml"
    edited.write_text(edited.read_text().replace("max_steps: 80", "max_steps: 81"))
    with pytest.raises(TaskFolderError, match=r"not the ones split.json lists \(edited: pa-easy-17@t-1\)"):
        split_record(split_dir)


def test_missing_and_empty_folders_are_clear_errors(tmp_path):
    with pytest.raises(TaskFolderError, match="does not exist"):
        load_task_folder(tmp_path / "nowhere")
    with pytest.raises(TaskFolderError, match="holds no task file"):
        load_task_folder(tmp_path)
    runner = CliRunner()
    for command in (["run", "--agent", "noop", "--out", str(tmp_path / "out"), "--tasks-dir", str(tmp_path)],
                    ["tasks", "check", "--tasks-dir", str(tmp_path / "nowhere")]):
        result = runner.invoke(main, command)
        assert result.exit_code == 1 and "Error: tasks folder" in result.output, result.output
    assert not (tmp_path / "out").exists()


def _finished_episode(out: Path, split_dir: Path) -> None:
    """A finished episode of the split's task in `out`, as a run leaves it."""
    folder = out / f"{TASK_ID}-t0"
    folder.mkdir(parents=True)
    for name in ("record.json", "scores.json"):
        (folder / name).write_text("{}")
    (folder / "summary.json").write_text(json.dumps({
        "task_id": TASK_ID, "trial": 0, "result": "fail", "subtask_pass_rate": 0.0, "first_failing_subtask": "x",
        "steps": 1, "wall_s": 1.0, "folder": folder.name}))


def test_run_json_records_the_split_and_a_rerun_from_another_split_is_refused(split_dir, tmp_path):
    out = tmp_path / "run"
    _finished_episode(out, split_dir)
    tasks = load_task_folder(split_dir)
    # Every episode is already finished: the run resumes, starts no worker, writes run.json.
    run_json = run_parallel(WorkerConfig(agent_name="noop", tasks_dir=split_dir), tasks, out)
    stored = json.loads((out / "run.json").read_text())
    assert stored["split"] == run_json["split"] == split_record(split_dir)
    assert stored["resumed_episodes"] == [f"{TASK_ID}-t0"] and stored["tasks"] == [TASK_ID]

    before = (out / "run.json").read_bytes()
    other = write_public_copy_split(tmp_path / "split-t-2", "t-2")
    with pytest.raises(TaskFolderError, match=r"holds a run of split t-1 \(tasks [0-9a-f]{12}\), not t-2"):
        run_parallel(WorkerConfig(agent_name="noop", tasks_dir=other), load_task_folder(other), out)
    with pytest.raises(TaskFolderError, match="holds a run of split t-1 .*, not public"):
        run_parallel(WorkerConfig(agent_name="noop"), [], out)
    assert (out / "run.json").read_bytes() == before  # refused before anything was written
    result = CliRunner().invoke(main, ["run", "--agent", "noop", "--out", str(out), "--tasks-dir", str(other)])
    assert result.exit_code == 1 and "a run folder keeps one split" in result.output, result.output


def test_a_run_folder_from_before_splits_counts_as_public(split_dir, tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    (out / "run.json").write_text(json.dumps({"agent": "noop", "episodes": []}))
    with pytest.raises(TaskFolderError, match="holds a run of split public, not t-1"):
        run_parallel(WorkerConfig(agent_name="noop", tasks_dir=split_dir), load_task_folder(split_dir), out)
    assert run_parallel(WorkerConfig(agent_name="noop"), [], out)["split"] == PUBLIC_SPLIT_RECORD


def test_check_workers_start_their_env_on_the_tasks_dir(monkeypatch, split_dir):
    started = []

    class RecordingEnv:
        def __init__(self, *args, **kwargs):
            started.append((args, kwargs))

        def close(self):
            pass

    monkeypatch.setattr(task_check, "Env", RecordingEnv)
    task_check._start_worker_env(split_dir, "none")
    assert started == [(("none",), {"tasks_dir": split_dir})]


@pytest.mark.slow  # real app processes, and the case's template is built
def test_services_start_every_app_on_the_tasks_dir(split_dir):
    """A real EHR process: the split's task resets with its case; without the folder it is unknown."""
    with Services(apps=["ehr_web"], tasks_dir=split_dir) as services:
        assert f"--tasks-dir={split_dir.resolve()}" in " ".join(services.processes["ehr_web"].process.args)
        services.reset_all(task=TASK_ID)
        patients = services.snapshot_all()["ehr_web"]["patients"]
        mrn = CaseIds(TASK_ID).mrn(0)
        assert [(p["first_name"], p["last_name"]) for p in patients if p["mrn"] == mrn] == [("Yolanda", "Brzezinski")]
    with Services(apps=["ehr_web"]) as public:
        with pytest.raises(ServiceError, match="unknown task"):
            public.reset_all(task=TASK_ID)


def test_the_serial_runner_records_the_split_of_its_env(split_dir, tmp_path):
    class UnstartableEnv:
        """An Env over the split whose apps cannot reset: the episode errors, the run is written."""

        tasks_dir = split_dir.resolve()
        record_dir = None
        observation_mode = "axtree"

        def reset(self, task):
            raise RuntimeError("no apps here")

    tasks = load_task_folder(split_dir)
    outcomes = runner_local.run("noop", tasks, tmp_path / "serial", env=UnstartableEnv())
    assert [o.summary.result for o in outcomes] == ["error"]
    run_json = json.loads((tmp_path / "serial" / "run.json").read_text())
    assert run_json["split"] == split_record(split_dir) and run_json["observation"] == "axtree"  # the Env's
    with pytest.raises(ValueError, match="the Env given reads tasks from"):
        runner_local.run("noop", tasks, tmp_path / "other", env=UnstartableEnv(), tasks_dir=tmp_path)


def test_an_env_cannot_take_a_tasks_dir_for_apps_it_does_not_start(split_dir):
    with pytest.raises(ValueError, match="tasks_dir starts the apps on that folder"):
        Env(tasks_dir=split_dir, attach=AttachSpec(token="t", ports={"ehr_web": 5100}, bench_ports={"ehr_web": 5101}))
