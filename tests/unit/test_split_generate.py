"""`admindesk tasks generate --split`: valid, reproducible, and disjoint splits."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.task_tools.splits.manifest import read_split, seed_digest
from admindesk.schema.case_ids import case_record_ids
from admindesk.schema.task_model import load_tasks

pytestmark = pytest.mark.slow


def generate(*args: str):
    return CliRunner().invoke(main, ["tasks", "generate", *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def splits(tmp_path_factory):
    """Seeds 1 and 2, one task per template, and seed 1 again."""
    root = tmp_path_factory.mktemp("splits")
    for name, seed in (("a", 1), ("b", 2), ("again", 1)):
        done = generate("--split", "heldout-1" if seed == 1 else "heldout-2", "--seed", str(seed),
                        "--per-template", "1", "--out", str(root / name))
        assert done.exit_code == 0, done.output
    return root


def files(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def case_keys(task) -> set[tuple]:
    """What identifies a case: its patient and its record ids."""
    case = task.case.model_dump(mode="json")
    ids = case_record_ids(task.id, case)
    return {("patient", case["patient"]["first_name"], case["patient"]["last_name"], case["patient"]["dob"]),
            ("mrn", ids["mrn"]), *{("order", o) for o in ids["orders"].values()},
            *{("claim", c) for c in ids["claims"].values()}}


def drawn_anew(task, public) -> bool:
    """The case's dates or measured facts differ from its public row's (beyond the patient)."""
    mine, theirs = task.case.model_dump(mode="json"), public.case.model_dump(mode="json")
    for case in (mine, theirs):
        case.pop("slot", None), case.pop("patient"), case.pop("lookalikes"), case.pop("faxes")
    return mine != theirs


def test_the_same_seed_gives_identical_files(splits):
    assert files(splits / "a") == files(splits / "again")


def test_every_generated_task_validates_and_names_its_split(splits):
    tasks = load_tasks(splits / "a")
    templates = {task.template for task in load_tasks() if task.case is not None}
    assert len(tasks) == len(templates) and {task.template for task in tasks} == templates
    assert all(task.id.endswith("@heldout-1") for task in tasks)
    info = read_split(splits / "a")
    assert info.split == "heldout-1" and info.seed == 1 and info.seed_sha256 == seed_digest(1)
    assert sorted(info.tasks) == sorted(task.id for task in tasks)


def test_splits_of_different_seeds_share_no_case(splits):
    public = [task for task in load_tasks() if task.case is not None]
    first, second = load_tasks(splits / "a"), load_tasks(splits / "b")
    keys = {name: set().union(*map(case_keys, group)) for name, group in
            (("public", public), ("a", first), ("b", second))}
    assert not keys["a"] & keys["b"]
    assert not keys["a"] & keys["public"] and not keys["b"] & keys["public"]


def test_timelines_and_facts_are_drawn_too(splits):
    public = {task.id: task for task in load_tasks()}
    tasks = load_tasks(splits / "a") + load_tasks(splits / "b")
    changed = sum(drawn_anew(task, public[task.id.split("@")[0]]) for task in tasks)
    assert changed >= len(tasks) // 3, f"only {changed} of {len(tasks)} cases got a new timeline or facts"


def test_a_private_seed_stays_out_of_the_manifest(tmp_path):
    done = generate("--split", "private", "--seed", "123456789", "--per-template", "1", "--private-seed",
                    "--out", str(tmp_path / "p"))
    assert done.exit_code == 0, done.output
    manifest = (tmp_path / "p" / "split.json").read_text()
    assert "123456789" not in manifest
    assert read_split(tmp_path / "p").seed_sha256 == seed_digest(123456789)


@pytest.mark.parametrize("args, message", [
    (["--seed", "3"], "only with --split"),
    (["--split", "x", "--out", "OUT"], "needs --seed N and --out DIR"),
    (["--split", "public", "--seed", "1", "--out", "OUT"], "public suite"),
    (["--split", "Bad_Name", "--seed", "1", "--out", "OUT"], "lower-case"),
])
def test_bad_options_are_refused_clearly(tmp_path, args, message):
    args = [str(tmp_path / "out") if arg == "OUT" else arg for arg in args]
    done = CliRunner().invoke(main, ["tasks", "generate", *args])
    assert done.exit_code != 0 and message in done.output
    assert not (tmp_path / "out").exists()


def test_a_folder_that_is_not_a_split_is_never_overwritten(tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    done = CliRunner().invoke(main, ["tasks", "generate", "--split", "s", "--seed", "1", "--out", str(tmp_path)])
    assert done.exit_code != 0 and "not empty and not a split folder" in done.output
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_a_tampered_manifest_is_refused(splits, tmp_path):
    manifest = json.loads((splits / "a" / "split.json").read_text())
    manifest["tasks"][next(iter(manifest["tasks"]))] = "0" * 64
    (tmp_path / "split.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="tasks_sha256 does not match"):
        read_split(tmp_path)
