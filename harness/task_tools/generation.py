"""Task files from templates and case tables: `admindesk tasks generate`.

A workflow folder under tasks/templates/ holds templates (`<name>.yaml.j2`: a task's
goal, guidance, subtasks, checks and guards as Jinja2 text written against the case) and
case tables (`*.cases.yml`: one row per task: id, template, difficulty, challenge,
feasible, `vars` for the template, the `skills` the case adds to its template's, and the
`case`). Rendering a row gives the committed task file tasks/<workflow>/<id>.yaml: the
row's header, the rendered template, then the case. The committed files are the source of
truth that every loader reads; `--check` proves they still equal what the templates and
tables give.

Template and table names do not end in `.yaml`, so the loaders (which read every
`*.yaml` under tasks/) never take them for task files.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from admindesk.schema.case_model import Case
from admindesk.schema.skills import SkillList
from admindesk.schema.task_model import TASKS_ROOT, Challenge, Task, describe_errors, parse_task_text

TEMPLATES_DIR = "templates"
TEMPLATE_SUFFIX = ".yaml.j2"
TABLE_SUFFIX = ".cases.yml"
WORKFLOW_FOLDERS = {"prior_auth": "prior_auth", "appeals": "appeals", "dme": "dme"}


class GenerationError(ValueError):
    """A template or case table that cannot be rendered; the message names file and row."""


class CaseRow(BaseModel):
    """One row of a case table: which template, the task's header, its vars and its case."""

    model_config = ConfigDict(extra="forbid")

    # A generated split's ids say the split: `pa-hard-07@heldout-3` (a second draw: `...@heldout-3.2`).
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*(@[a-z0-9][a-z0-9-]*(\.[0-9]+)?)?$")
    template: str = Field(min_length=1)
    difficulty: str
    challenge: Challenge = "none"
    feasible: bool = True
    revision: int = Field(default=1, ge=1)
    now: str = "2026-11-16T09:00:00"
    note: str | None = Field(default=None, description="why this case exists; written as the file's comment")
    vars: dict[str, Any] = Field(default_factory=dict)
    skills: SkillList = Field(default_factory=list,
                              description="skills the case exercises beyond its template's (schema/skills.py)")
    case: dict[str, Any]


@dataclass(frozen=True)
class RenderedTask:
    """A task file's path (relative to the tasks folder) and text."""

    path: Path
    text: str


def _read_yaml(path: Path) -> Any:
    try:
        return parse_task_text(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise GenerationError(f"{path}: cannot read ({exc})") from exc


def read_table(path: Path) -> list[CaseRow]:
    """The rows of one case table (`rows:` list); errors name the file and the row."""
    data = _read_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise GenerationError(f"{path}: a case table is a mapping with a `rows:` list")
    rows = []
    for index, raw in enumerate(data["rows"]):
        try:
            rows.append(CaseRow.model_validate(raw))
        except ValidationError as exc:
            name = raw.get("id", index) if isinstance(raw, dict) else index
            raise GenerationError(f"{path}: row {name}: {describe_errors(exc)}") from exc
    return rows


def _yaml_block(key: str, value: Any) -> str:
    """`key:` and the value dumped as block YAML with short leaf collections inline."""
    body = yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None)
    return f"{key}:\n" + "".join(f"  {line}\n" for line in body.rstrip("\n").split("\n"))


def yaml_scalar(text: str) -> str:
    """Text as one YAML scalar on one line (quoted when it needs to be): the `yaml` filter."""
    return yaml.safe_dump(str(text), width=10_000).strip().removesuffix("...").strip()


class Generator:
    """Renders every case table row of every workflow under `tasks_dir`."""

    def __init__(self, tasks_dir: Path | None = None):
        self.tasks_dir = Path(tasks_dir) if tasks_dir is not None else TASKS_ROOT
        self.templates_dir = self.tasks_dir / TEMPLATES_DIR
        self.env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(self.templates_dir)),
                                      undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                      trim_blocks=True, lstrip_blocks=True, autoescape=False)
        self.env.filters["yaml"] = yaml_scalar

    def tables(self) -> list[tuple[str, Path]]:
        """(workflow, table path) for every case table, in name order."""
        found = []
        for workflow, folder in WORKFLOW_FOLDERS.items():
            found += [(workflow, path) for path in sorted((self.templates_dir / folder).glob(f"*{TABLE_SUFFIX}"))]
        return found

    def render_all(self) -> list[RenderedTask]:
        """Every task file the tables describe; a task id used twice is an error."""
        rendered: dict[str, RenderedTask] = {}
        for workflow, table in self.tables():
            for row in read_table(table):
                if row.id in rendered:
                    raise GenerationError(f"{table}: task id {row.id} is used by another row")
                rendered[row.id] = self.render(workflow, table, row)
        return [rendered[key] for key in sorted(rendered)]

    def render(self, workflow: str, table: Path, row: CaseRow, provenance: list[str] | None = None) -> RenderedTask:
        """One row as a task file; the result must load as a Task or this raises. The file
        opens with `provenance` comment lines (default: the template and row it comes from)."""
        where = f"{table.relative_to(self.tasks_dir)} row {row.id}"
        try:
            case = Case.model_validate(row.case).model_dump(mode="json", exclude_defaults=True)
        except ValidationError as exc:
            raise GenerationError(f"{where}: {describe_errors(exc, 'case')}") from exc
        template_name = f"{WORKFLOW_FOLDERS[workflow]}/{row.template}{TEMPLATE_SUFFIX}"
        try:
            body = self.env.get_template(template_name).render(row=row, vars=row.vars, case=row.case)
        except jinja2.TemplateError as exc:
            raise GenerationError(f"{where}: template {template_name}: {exc}") from exc
        source = f"{TEMPLATES_DIR}/{template_name}"
        lines = [f"# {line}" for line in provenance] if provenance is not None else [
            f"# Generated by `admindesk tasks generate` from {source}",
            f"# and row {row.id} of {table.relative_to(self.tasks_dir)}: edit those, then regenerate."]
        if row.note:
            lines += [f"# {part}" for part in row.note.strip().split("\n")]
        header = [f"id: {row.id}", f"workflow: {workflow}", f"difficulty: {row.difficulty}",
                  f"challenge: {row.challenge}", f"feasible: {'true' if row.feasible else 'false'}",
                  f"revision: {row.revision}", f"template: {WORKFLOW_FOLDERS[workflow]}/{row.template}",
                  f"now: {row.now}"]
        text = "\n".join(lines + header) + "\n" + body.rstrip("\n") + "\n" + _yaml_block("case", case)
        path = Path(WORKFLOW_FOLDERS[workflow]) / f"{row.id}.yaml"
        try:
            Task.model_validate(parse_task_text(text))
        except (yaml.YAMLError, ValidationError) as exc:
            detail = describe_errors(exc) if isinstance(exc, ValidationError) else str(exc)
            raise GenerationError(f"{where}: the rendered task does not load: {detail}") from exc
        return RenderedTask(path=path, text=text)

    def differences(self) -> list[str]:
        """Task files that differ from what generation gives (missing, changed or stray)."""
        problems = []
        expected = {item.path: item.text for item in self.render_all()}
        for path, text in expected.items():
            target = self.tasks_dir / path
            if not target.exists():
                problems.append(f"{path}: missing (run `admindesk tasks generate`)")
            elif target.read_text(encoding="utf-8") != text:
                problems.append(f"{path}: differs from its template and case row")
        for folder in WORKFLOW_FOLDERS.values():
            for target in sorted((self.tasks_dir / folder).glob("*.yaml")):
                if target.relative_to(self.tasks_dir) not in expected:
                    problems.append(f"{target.relative_to(self.tasks_dir)}: no case row generates it")
        return problems

    def write(self) -> list[Path]:
        """Write every generated task file; returns the paths whose text changed."""
        changed = []
        for item in self.render_all():
            target = self.tasks_dir / item.path
            if not target.exists() or target.read_text(encoding="utf-8") != item.text:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(item.text, encoding="utf-8")
                changed.append(item.path)
        return changed


__all__ = ["CaseRow", "GenerationError", "Generator", "RenderedTask", "read_table", "yaml_scalar"]
