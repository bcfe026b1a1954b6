"""What the committed task files say about the suite's size, so that tests derive counts
from them instead of hard-coding how many tasks there are."""
from __future__ import annotations

import re
from collections import defaultdict

from admindesk.schema.task_model import TASKS_ROOT


def task_file_ids(workflow: str) -> set[str]:
    """The ids the task files of `workflow` (tasks/<workflow>/*.yaml) are named by."""
    return {path.stem for path in (TASKS_ROOT / workflow).glob("*.yaml")}


def gaps_in_numbering(ids: set[str], prefix: str) -> dict[str, list[int]]:
    """Per difficulty, the numbers missing from `<prefix>-<difficulty>-NN` ids counted from 01
    (an id of another shape is listed under its own name); {} when each level is 01..n."""
    numbers: dict[str, list[int]] = defaultdict(list)
    gaps: dict[str, list[int]] = {}
    for task_id in ids:
        match = re.fullmatch(rf"{re.escape(prefix)}-(easy|medium|hard)-(\d\d)", task_id)
        if match is None:
            gaps[task_id] = []
            continue
        numbers[match.group(1)].append(int(match.group(2)))
    for level, found in numbers.items():
        missing = sorted(set(range(1, max(found) + 1)) - set(found))
        if missing:
            gaps[level] = missing
    return gaps
