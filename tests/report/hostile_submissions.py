"""A corpus of hostile leaderboard submissions, each with the reason the leaderboard must
give for refusing it.

Every hostile submission starts as an honest one of its own (its own agent, so its own
records) and is then tampered with: paths that reach another submission (`victim`) or
the maintainers' disk, symbolic links, a gzip bomb, NaN and Infinity, JSON nested past
what a parser can follow, wrong types, a named pipe, and a copy of the victim's records.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tests.report.conftest import write_submission

SECRET = "maintainers-only: do not publish"
EPISODE = "pa-medium-01-t0"


@dataclass(frozen=True)
class Hostile:
    """One hostile submission: its folder's name, and a part of the problem it must be refused with."""

    name: str
    reason: str


def write_gzip_bomb(path: Path, size: int) -> Path:
    """A gzip file that decompresses to `size` zero bytes (a multiple of 16 MiB), written as
    one member repeated, so neither the zeros nor the file are ever held in memory."""
    chunk = 16 * 2**20
    member = gzip.compress(bytes(chunk), 9, mtime=0)
    with open(path, "wb") as out:
        for _ in range(size // chunk):
            out.write(member)
    return path


def nested(depth: int) -> str:
    """A JSON array nested `depth` levels deep."""
    return "[" * depth + "]" * depth


def _edit_run(folder: Path, change: Callable[[dict], None]) -> None:
    run = json.loads((folder / "run.json").read_text())
    change(run)
    (folder / "run.json").write_text(json.dumps(run))


def _edit_trajectory_line(folder: Path, number: int, text: str) -> None:
    path = folder / EPISODE / "trajectory.jsonl"
    lines = path.read_text().splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n")


def _take_victims_episode(folder: Path, victim: Path, pointer: str) -> None:
    """The forger drops its own first episode and points run.json at `pointer` (the victim's)."""
    shutil.rmtree(folder / EPISODE)
    _edit_run(folder, lambda run: run["episodes"][0].update(folder=pointer))


def folder_traversal(folder: Path, victim: Path) -> str:
    _take_victims_episode(folder, victim, f"../{victim.name}/{EPISODE}")
    return f"run.json: episodes[0].folder: '../{victim.name}/{EPISODE}' is not a folder name in the run folder"


def folder_absolute(folder: Path, victim: Path) -> str:
    _take_victims_episode(folder, victim, str(victim / EPISODE))
    return "episodes[0].folder: '/"


def folder_symlink(folder: Path, victim: Path) -> str:
    shutil.rmtree(folder / EPISODE)
    (folder / EPISODE).symlink_to(victim / EPISODE, target_is_directory=True)
    return f"{EPISODE} is a symbolic link"


def record_symlink(folder: Path, victim: Path) -> str:
    for name in ("record.json.gz", "scores.json"):
        (folder / EPISODE / name).unlink()
        (folder / EPISODE / name).symlink_to(victim / EPISODE / name)
    return f"{EPISODE}/record.json.gz is a symbolic link"


def screenshot_traversal(folder: Path, victim: Path) -> str:
    (folder.parent / "secret.txt").write_text(SECRET)  # where ../../ from an episode folder leads
    entry = json.loads((folder / EPISODE / "trajectory.jsonl").read_text().splitlines()[1])
    _edit_trajectory_line(folder, 2, json.dumps({**entry, "screenshot": "../../secret.txt"}))
    return f"{EPISODE}/trajectory.jsonl:2: screenshot: '../../secret.txt' is not a file name in the episode folder"


def deep_nesting(folder: Path, victim: Path) -> str:
    (folder / EPISODE / "scores.json").write_text(nested(100_000))
    return f"{EPISODE}: scores.json: not JSON this reader accepts (nested too deeply)"


def step_not_an_object(folder: Path, victim: Path) -> str:
    _edit_trajectory_line(folder, 3, json.dumps("click the search box"))
    return f"{EPISODE}/trajectory.jsonl:3: (top level): Input should be a valid dictionary"


def score_text(folder: Path, victim: Path) -> str:
    _edit_run(folder, lambda run: run["episodes"][0].update(subtask_pass_rate="abc"))
    return "run.json: episodes[0].subtask_pass_rate: Input should be a valid number"


def score_list(folder: Path, victim: Path) -> str:
    _edit_run(folder, lambda run: run["episodes"][0].update(subtask_pass_rate=[1]))
    return "run.json: episodes[0].subtask_pass_rate: Input should be a valid number"


def nan_rate(folder: Path, victim: Path) -> str:
    _edit_run(folder, lambda run: run["episodes"][1].update(subtask_pass_rate=float("nan")))
    return "run.json: not JSON this reader accepts (NaN is not a number JSON allows)"


def infinite_score(folder: Path, victim: Path) -> str:
    scores = folder / EPISODE / "scores.json"
    text = scores.read_text()
    assert '"subtask_pass_rate": 1.0' in text
    scores.write_text(text.replace('"subtask_pass_rate": 1.0', '"subtask_pass_rate": 1e999', 1))
    return f"{EPISODE}: scores.json: not JSON this reader accepts (1e999 is not a finite number)"


def named_pipe(folder: Path, victim: Path) -> str:
    (folder / EPISODE / "scores.json").unlink()
    os.mkfifo(folder / EPISODE / "scores.json")
    return f"{EPISODE}/scores.json is not a regular file (a named pipe, socket or device)"


def gzip_bomb(folder: Path, victim: Path) -> str:
    write_gzip_bomb(folder / EPISODE / "record.json.gz", 272 * 2**20)
    return f"{EPISODE}: record.json.gz: decompresses to more than 256 MiB"


HOSTILE = {"folder-traversal": folder_traversal, "folder-absolute": folder_absolute,
           "folder-symlink": folder_symlink, "record-symlink": record_symlink,
           "screenshot-traversal": screenshot_traversal, "deep-nesting": deep_nesting,
           "step-not-an-object": step_not_an_object, "score-text": score_text, "score-list": score_list,
           "nan-rate": nan_rate, "infinite-score": infinite_score, "named-pipe": named_pipe,
           "gzip-bomb": gzip_bomb}


def write_corpus(subs: Path, tasks_dir: Path, victim: Path) -> list[Hostile]:
    """Every hostile submission into `subs` beside `victim` (an honest submission there);
    returns each with the reason it must be refused with. Besides HOSTILE's: `mirror`, a
    symbolic link to the victim's folder, and `copycat`, a copy of the victim under another
    name (refused with the victim, each naming the other)."""
    corpus = []
    for name, tamper in HOSTILE.items():
        folder = write_submission(subs / name, tasks_dir, agent=name, observation="both",
                                  passes=lambda task_id, trial: True)
        corpus.append(Hostile(name, tamper(folder, victim)))
    (subs / "mirror").symlink_to(victim, target_is_directory=True)
    corpus.append(Hostile("mirror", "the submission folder is a symbolic link"))
    shutil.copytree(victim, subs / "copycat")
    corpus.append(Hostile("copycat", f"4 record(s) are the same as submission {victim.name}'s"))
    corpus.append(Hostile(victim.name, "4 record(s) are the same as submission copycat's"))
    return corpus
