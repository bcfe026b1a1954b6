"""What every reference solution works with: a `ScriptedActor` on the Env, the task's case
values, and the subtask phases it may be told to skip (ablation).

A solution is a function `solve(work)`. It acts only through `work.actor` (public actions,
element boxes looked up to aim), reads what it needs off the pages, and wraps the actions
of each subtask in `if work.doing("<subtask id>"):` so an ablation can leave exactly that
subtask's actions out.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from admindesk.harness.agents.scripted import ScriptedActor, ScriptFailed
from admindesk.harness.env.environment import Env
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import Task


class SkippedPhase(ScriptFailed):
    """A later step needed what a skipped (ablated) phase would have produced."""


class ReadNotes(dict):
    """What an episode read off the pages, by name. Reading a name no phase wrote is
    SkippedPhase in an ablation (the skipped phase would have written it), a KeyError otherwise."""

    def __init__(self, skipped: list[str]) -> None:
        super().__init__()
        self.skipped = skipped

    def __missing__(self, key: str) -> str:
        if self.skipped:
            raise SkippedPhase(f"{key} was never read (phase {', '.join(self.skipped)} skipped)")
        raise KeyError(key)


class PageActor(ScriptedActor):
    """A ScriptedActor with the readers and gestures the apps' screens call for."""

    def fact(self, label: str, scope: str = "") -> str:
        """The value next to `label` in a definition list (every app's fact panels)."""
        return self.text(f"{scope} xpath=//dt[normalize-space()='{label}']/following-sibling::dd[1]".strip())

    def fill(self, selector: str, text: str) -> None:
        """Click a text field and type `text`; select what it held first only when it held something."""
        if self.read(selector).input_value():
            super().fill(selector, text)
            return
        self.click(selector)
        self.do({"type": "type", "text": text})

    def select_by_value(self, selector: str, value: str) -> None:
        """Choose the option whose value is `value`, by typing its visible label."""
        label = self.read(f"{selector} option[value='{value}']").inner_text().strip()
        self.select_option(selector, label)

    def select_containing(self, selector: str, words: str) -> None:
        """Choose the first option whose label contains `words`."""
        labels = self.read(selector).evaluate("s => Array.from(s.options).map(o => o.text.trim())")
        match = next((label for label in labels if words in label), None)
        if match is None:
            raise ScriptFailed(f"{selector}: no option contains {words!r} (options: {labels})")
        self.select_option(selector, match)

    def set_checkbox(self, selector: str) -> None:
        """Tick a checkbox (a click, only when it is not ticked yet)."""
        if not self.read(selector).is_checked():
            self.click(selector)

    def submit_with(self, button_selector: str) -> None:
        """Click a form's submit button and fail loudly when the page shows a form error."""
        self.click(button_selector)
        errors = self.env.page_locator(".alert-error, .error, .field-error, [role=alert].error").all_inner_texts()
        errors = [e.strip() for e in errors if e.strip()]
        if errors and self.env.page_locator("form .error, form .field-error, .errors li").count():
            raise ScriptFailed(f"the form was refused: {' | '.join(errors)[:500]}")

    def upload(self, file_input: str, file_name: str) -> None:
        """Click a file input (the drawn file dialog opens) and pick `file_name` from Downloads."""
        if not self.click(file_input).file_dialog_open:
            raise ScriptFailed(f"clicking {file_input} opened no file dialog")
        self.choose_file(file_name)

    def count(self, selector: str) -> int:
        """How many elements match `selector` on the active page."""
        return self.env.page_locator(selector).count()


class Work:
    """One reference episode: the actor, the case, which phase (if any) to skip, and which of
    the template's credited routes to take (None: the solution's usual one). `on_phase` is
    told each subtask as the work reaches it (before its actions)."""

    def __init__(self, env: Env, task: Task, skip: str | None = None, route: str | None = None,
                 on_phase: Callable[[str], None] | None = None) -> None:
        values = case_values(task)
        if values is None:
            raise ValueError(f"task {task.id} has no case; the reference solves case tasks only")
        self.env, self.task, self.case = env, task, values
        self.ids = values["ids"]
        self.actor = PageActor(env)
        self.skip, self.route, self.on_phase = skip, route, on_phase
        self.skipped: list[str] = []
        self.notes = ReadNotes(self.skipped)

    def doing(self, subtask: str) -> bool:
        """Whether to carry out `subtask`'s actions (False only for the ablated one)."""
        if subtask not in {s.id for s in self.task.subtasks}:
            raise ValueError(f"task {self.task.id} has no subtask {subtask!r}")
        if self.on_phase is not None:
            self.on_phase(subtask)
        if subtask == self.skip:
            self.skipped.append(subtask)
            return False
        return True

    def need(self, key: str) -> str:
        """A value an earlier phase read off a page; SkippedPhase when that phase was skipped."""
        return self.notes[key]

    def open_app_tab(self, label: str, note_key: str) -> None:
        """The app `label` in a new tab, signed in, once per episode; later calls switch to
        that tab (its index is kept in notes[note_key])."""
        if self.notes.get(note_key):
            self.actor.switch_to_tab(int(self.notes[note_key]))
            return
        self.actor.open_app(label, new_tab=True)
        self.actor.login()
        self.notes[note_key] = str(len(self.env.chrome_layout().tabs) - 1)

    def finish(self, answer: str) -> None:
        """End the episode with the final answer."""
        self.actor.do({"type": "done", "answer": answer})

    # ---- case facts (what the coordinator is handed: the patient, and the payers' names) --
    @property
    def patient(self) -> dict[str, Any]:
        return self.case["patient"]

    @property
    def patient_name(self) -> str:
        return f"{self.patient['first_name']} {self.patient['last_name']}"


def us_date(value: str | date) -> str:
    """MM/DD/YYYY from an ISO date or a date (the EHR's and portal A's forms)."""
    day = date.fromisoformat(value) if isinstance(value, str) else value
    return day.strftime("%m/%d/%Y")


def parse_us_date(text: str) -> date:
    """A date from MM/DD/YYYY."""
    return datetime.strptime(text.strip(), "%m/%d/%Y").date()


def portal_b_date(value: date) -> str:
    """DD-MMM-YYYY, the way Keystone Mutual's portal takes dates."""
    return value.strftime("%d-%b-%Y").upper()
