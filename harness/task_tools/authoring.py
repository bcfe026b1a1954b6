"""`admindesk tasks new --template NAME --id ID`: a new task drafted from a template.

The task files are generated from case tables (harness/task_tools/generation.py), so a new task
is a new case table row: it goes into `templates/<workflow>/authored.cases.yml`, starting
from a copy of an existing row of the same template (a case that already works, to edit
into the new scenario), and its task file is rendered at once. Edit the row, then
`admindesk tasks generate`, `tasks validate`, `tasks check ID` (see docs/authoring.md).
"""
from __future__ import annotations

from pathlib import Path

import yaml

from admindesk.harness.task_tools.generation import (
    TABLE_SUFFIX,
    TEMPLATE_SUFFIX,
    WORKFLOW_FOLDERS,
    CaseRow,
    GenerationError,
    Generator,
    read_table,
)

AUTHORED_TABLE = "authored" + TABLE_SUFFIX
DRAFT_NOTE = "Drafted with `admindesk tasks new` from {source}: edit the case into the new scenario."


def new_task(tasks_dir: Path, template: str, task_id: str) -> tuple[Path, Path]:
    """Add a row for `task_id` using `template` ("<workflow>/<name>") and write its task file.

    Returns (case table, task file). Raises GenerationError, writing nothing, when the
    template does not exist, the id is malformed or taken, or no row uses the template yet.
    """
    generator = Generator(tasks_dir)
    workflow, _, name = template.partition("/")
    if workflow not in WORKFLOW_FOLDERS or not name:
        raise GenerationError(f"a template is named <workflow>/<name> with workflow one of "
                              f"{sorted(WORKFLOW_FOLDERS)}, not {template!r}")
    folder = generator.templates_dir / WORKFLOW_FOLDERS[workflow]
    if not (folder / f"{name}{TEMPLATE_SUFFIX}").is_file():
        known = sorted(p.name.removesuffix(TEMPLATE_SUFFIX) for p in folder.glob(f"*{TEMPLATE_SUFFIX}"))
        raise GenerationError(f"no template {template!r}; {workflow} has {known}")
    rows = {row.id: (table, row) for _, table in generator.tables() for row in read_table(table)}
    if task_id in rows:
        raise GenerationError(f"task id {task_id!r} is taken (row in {rows[task_id][0].name})")
    examples = [(table, row) for table, row in rows.values() if row.template == name
                and table.parent == folder]
    if not examples:
        raise GenerationError(f"no case row uses template {template!r} yet: write the first row by hand")
    source_table, source = examples[0]
    try:
        row = CaseRow.model_validate({**source.model_dump(exclude_defaults=True), "id": task_id,
                                      "note": DRAFT_NOTE.format(source=f"row {source.id} of {source_table.name}")})
    except ValueError as exc:
        raise GenerationError(f"task id {task_id!r}: lowercase letters, digits and dashes only") from exc
    table = folder / AUTHORED_TABLE
    rendered = generator.render(workflow, table, row)  # raises before anything is written
    entry = yaml.safe_dump([row.model_dump(mode="json", exclude_defaults=True)], sort_keys=False,
                           allow_unicode=True, width=100)
    if table.exists():
        table.write_text(table.read_text(encoding="utf-8").rstrip("\n") + "\n" + entry, encoding="utf-8")
    else:
        table.write_text(f"# Case rows written by `admindesk tasks new` (edit them freely).\nrows:\n{entry}",
                         encoding="utf-8")
    task_file = generator.tasks_dir / rendered.path
    task_file.parent.mkdir(parents=True, exist_ok=True)
    task_file.write_text(rendered.text, encoding="utf-8")
    return table, task_file


__all__ = ["AUTHORED_TABLE", "new_task"]
