"""What a submission folder may hold, and what no two submissions may share.

A submission comes from a stranger, so before anything in it is read:

- it is plain folders and regular files: a symbolic link could make another submission's
  records (or any file of the machine) pass as this one's, and a named pipe, socket or
  device would block the reader or be no file at all;
- its episode folders are named by plain names (run_files), so no `folder` in run.json
  reaches outside it.

And across the submissions of one build: no two hold the same record (the same content,
however compressed). Which of the two was copied cannot be told from the files, so both
are refused, each naming the other, until the maintainers settle it.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

# Problems beyond this many of one kind are counted, not listed.
LISTED_PROBLEMS = 10


class HasRecords(Protocol):
    """A checked submission: its name, its problems, and its records' digests by episode."""

    name: str
    problems: list[str]
    record_digests: dict[str, str]


def _listed(problems: list[str]) -> list[str]:
    extra = len(problems) - LISTED_PROBLEMS
    return problems[:LISTED_PROBLEMS] + ([f"... and {extra} more like these"] if extra > 0 else [])


def tree_problems(root: Path) -> list[str]:
    """Every entry under the submission folder `root` that is not a plain folder or a
    regular file, named by its path in the submission (the first LISTED_PROBLEMS)."""
    if root.is_symlink():
        return ["the submission folder is a symbolic link (a submission holds plain folders and files only)"]
    problems = []
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as exc:
            problems.append(f"{folder.relative_to(root).as_posix()}: cannot be listed ({exc.strerror})")
            continue
        for entry in entries:
            relative = Path(entry.path).relative_to(root).as_posix()
            if entry.is_symlink():
                problems.append(f"{relative} is a symbolic link (a submission holds plain folders and files only)")
            elif entry.is_dir(follow_symlinks=False):
                folders.append(Path(entry.path))
            elif not entry.is_file(follow_symlinks=False):
                problems.append(f"{relative} is not a regular file (a named pipe, socket or device)")
    return _listed(problems)


def refuse_duplicate_records(submissions: list[HasRecords]) -> None:
    """Add a problem to each submission that holds a record another one also holds,
    naming the other and the episodes (see the module docstring)."""
    holders: dict[str, list[tuple[HasRecords, str]]] = {}
    for submission in submissions:
        for episode, digest in sorted(submission.record_digests.items()):
            holders.setdefault(digest, []).append((submission, episode))
    shared: dict[tuple[int, str], list[str]] = {}
    for same_record in holders.values():
        for submission, episode in same_record:
            for other, other_episode in same_record:
                if other is not submission:
                    shared.setdefault((id(submission), other.name), []).append(
                        f"{episode} = {other.name}/{other_episode}")
    by_id = {id(submission): submission for submission in submissions}
    for (submission_id, other_name), pairs in sorted(shared.items(), key=lambda item: item[0][1]):
        listed = ", ".join(pairs[:3]) + (f" and {len(pairs) - 3} more" if len(pairs) > 3 else "")
        by_id[submission_id].problems.append(
            f"{len(pairs)} record(s) are the same as submission {other_name}'s ({listed}): one was copied "
            f"from the other, so neither is listed until the maintainers settle which")
