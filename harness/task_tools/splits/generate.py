"""`admindesk tasks generate --split NAME --seed N`: a folder of fresh tasks of the public templates.

Each chosen public row gets a new case (sampler.py) and is rendered by the same template,
so the new task has the same subtasks and checks, instantiated for the new case. Task ids
say the split (`pa-hard-07@heldout-3`). The same seed gives byte-identical files.

Id slots: every case of a split gets its own slot from the slots no public task uses,
taken as a window of one fixed shuffle of them, placed by the seed: splits of the same
size whose seeds are close (|a - b| * size < the number of free slots, so seeds 1 to 70
for a full split) share no record id.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from admindesk.envs.world import build_world
from admindesk.harness.task_tools.folders import file_hashes
from admindesk.harness.task_tools.generation import CaseRow, GenerationError, Generator, RenderedTask, read_table
from admindesk.harness.task_tools.splits.manifest import PUBLIC_SPLIT, SPLIT_FILE, SplitInfo, seed_digest, tasks_digest
from admindesk.harness.task_tools.splits.sampler import draw_row
from admindesk.schema.case_ids import SLOTS, case_slot
from admindesk.schema.task_model import TASKS_ROOT

DIFFICULTY_ORDER = ("easy", "medium", "hard")


@dataclass(frozen=True)
class PublicRow:
    workflow: str
    table: Path
    row: CaseRow

    @property
    def template(self) -> str:
        return f"{self.workflow}/{self.row.template}"


def public_rows(generator: Generator) -> list[PublicRow]:
    """Every case table row of the public suite, in table order."""
    return [PublicRow(workflow, table, row) for workflow, table in generator.tables() for row in read_table(table)]


def choose_rows(rows: list[PublicRow], seed: int, per_template: int | None) -> list[tuple[PublicRow, int]]:
    """(row, draw number) pairs: every row once, or `per_template` per template, taken in
    turn from each difficulty of the template (seeded order, seeded first difficulty),
    rows reused when the template has fewer."""
    if per_template is None:
        return [(row, 0) for row in rows]
    chosen = []
    for template in sorted({row.template for row in rows}):
        rng = random.Random(f"admindesk split seed {seed} template {template}")
        by_difficulty = []
        for difficulty in DIFFICULTY_ORDER:
            group = [row for row in rows if row.template == template and row.row.difficulty == difficulty]
            rng.shuffle(group)
            if group:
                by_difficulty.append(group)
        turn = rng.randrange(len(by_difficulty))  # which difficulty a one-task template gets
        by_difficulty = by_difficulty[turn:] + by_difficulty[:turn]
        in_turn = [group[i] for i in range(max(map(len, by_difficulty))) for group in by_difficulty if i < len(group)]
        chosen += [(in_turn[n % len(in_turn)], n // len(in_turn)) for n in range(per_template)]
    return chosen


def split_slots(public: list[PublicRow], seed: int, count: int) -> list[int]:
    """`count` distinct id slots no public task uses (see the module docstring)."""
    taken = {case_slot(row.row.id) for row in public}
    free = [slot for slot in range(SLOTS) if slot not in taken]
    random.Random("admindesk split slots").shuffle(free)
    if count > len(free):
        raise GenerationError(f"a split holds at most {len(free)} tasks, not {count}")
    start = seed * count % len(free)
    return [free[(start + n) % len(free)] for n in range(count)]


def _task_id(row: CaseRow, split: str, draw: int) -> str:
    return f"{row.id}@{split}" + (f".{draw + 1}" if draw else "")


def render_split(split: str, seed: int, per_template: int | None = None,
                 tasks_dir: Path = TASKS_ROOT) -> list[RenderedTask]:
    """The split's task files (paths relative to the split folder), in id order."""
    if split == PUBLIC_SPLIT:
        raise GenerationError(f"{PUBLIC_SPLIT!r} names the public suite; choose another split name")
    generator = Generator(tasks_dir)
    rows = public_rows(generator)
    chosen = choose_rows(rows, seed, per_template)
    world = build_world()
    avoid = {row.row.case["patient"]["last_name"] for row in rows}
    rendered = []
    for (public, draw), slot in zip(chosen, split_slots(rows, seed, len(chosen))):
        task_id = _task_id(public.row, split, draw)
        row = draw_row(public.row, world, seed=seed, task_id=task_id, slot=slot, avoid_names=avoid)
        avoid.add(row.case["patient"]["last_name"])
        provenance = [f"Drawn by `admindesk tasks generate --split {split}` from row {public.row.id} of",
                      f"{public.table.relative_to(generator.tasks_dir)} (template {public.template}): a new case, "
                      "the same subtasks and checks."]
        rendered.append(generator.render(public.workflow, public.table, row, provenance))
    return sorted(rendered, key=lambda item: str(item.path))


def write_split(out_dir: Path, split: str, seed: int, per_template: int | None = None, *,
                private_seed: bool = False, tasks_dir: Path = TASKS_ROOT) -> SplitInfo:
    """Generate the split into `out_dir` (new, empty, or a split folder it replaces)."""
    out_dir = Path(out_dir)
    if out_dir.resolve() == Path(tasks_dir).resolve() or Path(tasks_dir).resolve() in out_dir.resolve().parents:
        raise GenerationError(f"{out_dir}: a split is written outside the public tasks folder")
    if out_dir.exists() and any(out_dir.iterdir()) and not (out_dir / SPLIT_FILE).is_file():
        raise GenerationError(f"{out_dir}: not empty and not a split folder; choose a new folder")
    rendered = render_split(split, seed, per_template, tasks_dir)  # before touching the folder
    if (out_dir / SPLIT_FILE).is_file():
        for old in out_dir.rglob("*.yaml"):
            old.unlink()
    for item in rendered:
        target = out_dir / item.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(item.text, encoding="utf-8")
    hashes = file_hashes(out_dir)  # the same digest a run verifies the folder with
    info = SplitInfo(split=split, seed=None if private_seed else seed, seed_sha256=seed_digest(seed),
                     per_template=per_template, tasks=hashes, tasks_sha256=tasks_digest(hashes),
                     generator=f"admindesk {metadata.version('admindesk')}")
    (out_dir / SPLIT_FILE).write_text(json.dumps(info.model_dump(exclude_defaults=True), indent=1, sort_keys=True) + "\n",
                                      encoding="utf-8")
    return info
