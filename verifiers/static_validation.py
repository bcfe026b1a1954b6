"""Static validation of a task's checks, without any app running.

Loading a task already proves its shape (unknown keys and kinds, `depends_on` that does
not resolve, cycles). This adds what needs the apps' snapshot schema and the case:
every JMESPath query compiles and names only tables and fields that app's snapshot has;
every table and field a check or guard names exists; every `{case: ...}` reference
resolves; every file check's source is a document the case provides (`file_source_problems`);
no expected value retypes a value the case already states; and the goal and
guidance, which the agent reads, name neither the task's challenge nor a value its checks
expect (see `hint_problems`).
"""
from __future__ import annotations

import re
from datetime import date
from typing import Any

from pydantic import ValidationError

from admindesk.schema.case_ids import case_values
from admindesk.schema.check_base import AppQuery, CheckBase
from admindesk.schema.checks_state import FileCheck, StateDiffCheck
from admindesk.schema.checks_text import AuditCheck
from admindesk.schema.guards import CollateralGuard, RecipientGuard, RowsGuard
from admindesk.schema.task_model import Task, describe_errors
from admindesk.schema.values import CaseRef, CaseReferenceError, resolve
from admindesk.verifiers.episode import QueryError, compile_query, fill_params
from admindesk.verifiers.snapshot_schema import SnapshotSchema, load_schema
from admindesk.verifiers.values import normalise_text

META_FIELDS = {"_meta", "app", "now", "schema_version"}
# A case value shorter than this (a unit count, "F") may match a literal by chance.
RETYPE_MIN_LENGTH = 4


def _field_names(node: dict, json_columns: set[str]) -> list[str]:
    """Field names a parsed query reads, leaving out names inside JSON columns."""
    if node.get("type") == "field":
        return [node["value"]]
    names: list[str] = []
    for child in node.get("children", []):
        if not isinstance(child, dict):
            continue
        names += _field_names(child, json_columns)
        # What follows a JSON column (`detail.claim`, `lines[?code=='99213'].modifiers`) is
        # inside its value, not the schema.
        if node.get("type") in ("subexpression", "projection", "value_projection", "filter_projection") \
                and _yields_json_column(child, json_columns):
            break
    return names


def _yields_json_column(node: dict, json_columns: set[str]) -> bool:
    """Whether `node` evaluates to a JSON column's value (`lines`, `[-1].lines`)."""
    if node.get("type") == "field":
        return node["value"] in json_columns
    return node.get("type") == "subexpression" and _yields_json_column(node["children"][-1], json_columns)


def check_query(query: AppQuery, case: dict | None, schema: SnapshotSchema) -> list[str]:
    """Problems of one query: case params, compilation, names unknown to the app's snapshot."""
    tables = schema.get(query.app, {})
    try:
        values = {name: resolve(spec, case) for name, spec in query.params.items()}
        parsed = compile_query(fill_params(query.query, values)).parsed
    except (QueryError, CaseReferenceError) as exc:
        return [str(exc)]
    json_columns = {c for table in tables.values() for c in table.json_columns}
    names = _field_names(parsed, json_columns)
    used = [name for name in names if name in tables]
    if not used:
        return [f"{query.app} query {query.query!r} reads no table of {query.app}"]
    columns = {column for name in used for column in tables[name].columns}
    unknown = sorted({name for name in names if name not in tables and name not in columns
                      and name not in META_FIELDS})
    if unknown:
        return [f"{query.app} query {query.query!r}: {', '.join(unknown)} is not a field of "
                f"{', '.join(sorted(set(used)))}"]
    return []


def _table_fields(app: str, table: str, fields: list[str], schema: SnapshotSchema, what: str) -> list[str]:
    known = schema.get(app, {}).get(table)
    if known is None:
        return [f"{what}: {app} has no table {table}"]
    unknown = sorted(set(fields) - set(known.columns))
    return [f"{what}: {app} {table} has no field {', '.join(unknown)}"] if unknown else []


def _named_tables(item: CheckBase, schema: SnapshotSchema, what: str) -> list[str]:
    problems: list[str] = []
    if isinstance(item, (StateDiffCheck, CollateralGuard)):
        for table, row_filter in item.allowed.items():
            problems += _table_fields(item.app, table, list(row_filter or {}), schema, what)
    if isinstance(item, RowsGuard):
        extra = [item.field] if isinstance(item, RecipientGuard) else []
        problems += _table_fields(item.app, item.table, list(item.where) + extra, schema, what)
    return problems


def _case_strings(value: Any, path: str = "") -> dict[str, str]:
    """normalised text -> case path, for the case's text and date values worth retyping."""
    found: dict[str, str] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            found.update(_case_strings(item, f"{path}.{key}" if path else key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.update(_case_strings(item, f"{path}.{index}"))
    elif isinstance(value, str) and len(value) >= RETYPE_MIN_LENGTH:
        found.setdefault(normalise_text(value), path)
    return found


def _specs_problems(item: CheckBase, case: dict | None, case_texts: dict[str, str], what: str) -> list[str]:
    problems = []
    for spec in item.expected_specs():
        if isinstance(spec, CaseRef):
            try:
                resolve(spec, case)
            except CaseReferenceError as exc:
                problems.append(f"{what}: {exc}")
        elif isinstance(spec, str) and normalise_text(spec) in case_texts:
            path = case_texts[normalise_text(spec)]
            problems.append(f"{what}: expected value {spec!r} retypes the case's {path}; "
                            f"write {{case: {path}}}")
    return problems


# Where a file a task sends comes from: a chart document the case adds to the EHR or a fax
# the case puts in the inbox, (app, table) -> the kind of case record and its name.
FILE_SOURCES = {("ehr_web", "documents"): ("documents", "chart document"),
                ("fax", "inbound_faxes"): ("faxes", "received fax")}


def file_source_problems(check: FileCheck, case: dict | None) -> list[str]:
    """Problems of a file check's source: it must select, by the id the case gives it
    (`{case: ids.documents.<key>}` or `{case: ids.faxes.<key>}`), a document or fax the
    case provides; a task that asks for a file the case never provides cannot be done."""
    source = check.source
    table = re.match(r"\s*([A-Za-z_]\w*)", source.query)
    found = FILE_SOURCES.get((source.app, table.group(1) if table else ""))
    if found is None:
        return [f"file source {source.app} {source.query!r} is not a case document (ehr_web documents) "
                f"or a received fax (fax inbound_faxes)"]
    kind, noun = found
    prefix = f"ids.{kind}."
    keys = [spec.case.removeprefix(prefix) for spec in source.params.values()
            if isinstance(spec, CaseRef) and spec.case.startswith(prefix)]
    if not keys:
        return [f"file source {source.query!r} names no {noun} of the case (a param {{case: {prefix}<key>}})"]
    provided = sorted(((case or {}).get("ids") or {}).get(kind, {}))
    return [f"file source names {noun} {key!r}, which the case does not provide (the case's {kind}: "
            f"{', '.join(provided) or 'none'})" for key in keys if key not in provided]


# Words that name each challenge. A task's goal and guidance must not use its own
# challenge's words: they would tell the agent which trap the case sets. Matched as whole
# words, case folded.
CHALLENGE_WORDS: dict[str, tuple[str, ...]] = {
    "no_auth_required": (r"no auth\w* (is )?required", r"not required", r"needs? no auth\w*"),
    "duplicate_on_file": (r"duplicat\w*", r"already (on file|decided|submitted|filed|paid)", r"second request"),
    "coverage_termed": (r"term(ed|inated)", r"ended", r"no longer active", r"inactive"),
    "fax_only_payer": (r"fax[- ]only", r"only (by|on) fax", r"paper"),
    "pended_for_info": (r"pend(ed|ing)?", r"(more|additional) information", r"request for information",
                        r"missing"),
    "deadline_passed": (r"deadline (has )?passed", r"past (the |its )?deadline", r"too late", r"expired"),
    "wrong_code_on_order": (r"wrong code", r"(code|order) (is )?(wrong|incorrect)", r"mismatch\w*",
                            r"does not match"),
    "lookalike_patient": (r"same name", r"look-?alike\w*", r"another patient"),
    "conflicting_documents": (r"addend(um|a)", r"disagree\w*", r"conflict\w*"),
    "secondary_payer": (r"secondary", r"next coverage", r"as if (it were )?primary"),
    "criteria_not_met": (r"criteria (are |is )?not met", r"not (meet|qualify)"),
    "non_contracted_supplier": (r"non-?contracted", r"(no|not) contract\w*", r"out[- ]of[- ]network",
                                r"does not accept"),
    "member_cost_share": (r"deductible", r"coinsurance", r"co-?pay\w*", r"cost[- ]share", r"patient responsibility"),
}
# Shorter expected values (unit counts, a frequency code "7", "Sent") occur in ordinary
# procedure text by chance; they are too common to count as a hint.
HINT_MIN_LENGTH = 5
# Case values the goal carries to say which work item it is: the patient, the coverage's
# payer and member id, record ids, the claim's date of service.
IDENTIFYING_CASE_PATHS = re.compile(
    r"^(patient\.|ids\.|coverages\.\d+\.(payer|plan|member_id)$|claims\.\d+\.service_date$)")


def _words(phrase: str) -> re.Pattern:
    return re.compile(rf"(?<![\w-]){phrase}(?![\w-])", re.IGNORECASE)


def _hint_values(task: Task, case: dict | None) -> dict[str, str]:
    """normalised text -> the value as the checks give it, for every value the task's checks
    expect that would give an answer away if the goal or guidance said it. Audit checks are
    left out (their values, actions, record types and record ids, say what is opened, which a
    procedure may name), and so are regex patterns, which are no text to say."""
    found: dict[str, str] = {}
    for check in task.checks():
        if isinstance(check, AuditCheck) or getattr(check, "op", None) == "regex":
            continue
        for spec in check.expected_specs():
            if isinstance(spec, CaseRef):
                if IDENTIFYING_CASE_PATHS.match(spec.case):
                    continue
                try:
                    spec = resolve(spec, case)
                except CaseReferenceError:
                    continue  # reported by the case-reference check
            for value in spec if isinstance(spec, list) else [spec]:
                if isinstance(value, bool) or not isinstance(value, (str, int, float, date)):
                    continue
                text = normalise_text(value)
                if len(text) >= HINT_MIN_LENGTH:
                    found.setdefault(text, str(value))
    return found


def hint_problems(task: Task, case: dict | None = None) -> list[str]:
    """Goal and guidance lines that give the answer away: a line that uses a word naming the
    task's challenge (CHALLENGE_WORDS) or says a value one of its checks expects (resolved
    case references included; values shorter than HINT_MIN_LENGTH, audit values and the
    case values that identify the work item are not hints). `case` is the task's case
    values when the caller has them already."""
    values = _hint_values(task, case if case is not None else case_values(task))
    challenge_words = [_words(phrase) for phrase in CHALLENGE_WORDS.get(task.challenge, ())]
    lines = [("goal", task.goal)] + [(f"guidance line {n}", line) for n, line in enumerate(task.guidance, 1)]
    problems: list[str] = []
    for where, line in lines:
        for pattern in challenge_words:
            match = pattern.search(line)
            if match:
                problems.append(f"{task.id} {where}: {match.group(0)!r} names the task's challenge "
                                f"{task.challenge} ({line!r})")
        normalised = normalise_text(line)
        for text, value in values.items():
            if _words(re.escape(text)).search(normalised):
                problems.append(f"{task.id} {where}: {value!r} is a value the task's checks expect ({line!r})")
    return problems


def validate_task(task: Task, schema: SnapshotSchema | None = None) -> list[str]:
    """Every problem of the task's checks and guards, as `check-id: message` lines, and of its
    goal and guidance (`hint_problems`); none: valid."""
    schema = schema if schema is not None else load_schema()
    case = case_values(task)
    case_texts = _case_strings(case) if case is not None else {}
    problems: list[str] = []
    for item in [*task.checks(), *task.guards]:
        what = f"{task.id} {item.id}"
        for query in item.app_queries():
            problems += [f"{what}: {problem}" for problem in check_query(query, case, schema)]
            for spec in query.params.values():
                if isinstance(spec, str) and normalise_text(spec) in case_texts:
                    problems.append(f"{what}: query param {spec!r} retypes the case's "
                                    f"{case_texts[normalise_text(spec)]}")
        problems += _named_tables(item, schema, what)
        if isinstance(item, FileCheck):
            problems += [f"{what}: {problem}" for problem in file_source_problems(item, case)]
        problems += _specs_problems(item, case, case_texts, what)
    return problems + hint_problems(task, case)


def validate_task_data(data: dict, source: str = "task") -> list[str]:
    """Problems of a raw task mapping: its shape first, then `validate_task`."""
    try:
        task = Task.model_validate(data)
    except ValidationError as exc:
        return [f"{source}: {describe_errors(exc)}"]
    return validate_task(task)
