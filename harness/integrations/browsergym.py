"""Every AdminDesk task as a BrowserGym task: `gymnasium.make("browsergym/admindesk.<id>")`.

    import gymnasium as gym
    import admindesk.harness.integrations.browsergym  # registers browsergym/admindesk.*
    env = gym.make("browsergym/admindesk.pa-easy-09")
    obs, info = env.reset()

Needs the optional extra: `pip install -e '.[browsergym]'` (PyPI `browsergym-core`).

- `setup` resets the apps for the task (clock, case, interruptions), signs BrowserGym's
  own page in as the task says and opens the start page. The page gets our sandbox: only
  the apps' loopback ports are reachable, the bench API is refused (a route aborts it),
  WebSockets are closed and WebRTC is removed.
- `validate` waits for the agent's message to the user (`send_msg_to_user`,
  `report_infeasible`): that ends the episode and is the final answer. It then scores the
  apps' snapshots with the task's checks: reward 1 only for an end-to-end pass, the
  outcome and each subtask's result in `info`. Rubric checks need a judge (`judge=` task
  kwarg: a spec or a Judge; default `$ADMINDESK_JUDGE`); without one they stay unjudged
  and the reward is 0. The goal is the prompt `admindesk run` gives (`prompt_mode=`
  zero_shot, general (default) or task_specific).
- `cheat` runs the reference solution of the task's template (when there is one) on the
  same apps, in a browser of its own, then reloads BrowserGym's page.

The apps: by default one set per process, started on first use and stopped at exit; or
`attach=AttachSpec(token, ports, bench_ports)` to use apps started by `admindesk serve`.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import re
import threading
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

import playwright.sync_api

try:
    import browsergym.core
    from browsergym.core.env import BrowserEnv
    from browsergym.core.task import AbstractBrowserTask
except ImportError as exc:  # the optional extra is missing
    raise ImportError("the BrowserGym adapter needs browsergym-core: "
                      "pip install -e '.[browsergym]'") from exc

from admindesk.harness.agents.prompting import PromptMode, task_prompt
from admindesk.harness.env.attach import AttachSpec, attached_services
from admindesk.harness.env.browser import CHROMIUM_PATH, acquire_playwright, release_playwright
from admindesk.harness.env.environment import DEFAULT_PASSWORD, DEFAULT_USERNAME
from admindesk.harness.env.login import submit_login_form
from admindesk.harness.env.sandbox import PAGE_LOCKDOWN_JS, blocked_request_pattern
from admindesk.harness.env.services import Services
from admindesk.schema.task_model import TASKS_ROOT, Task, load_tasks
from admindesk.verifiers.judge import Judge, load_judge
from admindesk.verifiers.records import EpisodeRecord, FileDigest
from admindesk.verifiers.scoring import TaskResult, score_task

TASK_PREFIX = "admindesk."
JUDGE_VARIABLE = "ADMINDESK_JUDGE"
# Task kwargs a caller may set through `gym.make(..., task_kwargs={...})`.
DEFAULT_TASK_KWARGS: dict[str, Any] = {"attach": None, "judge": None, "prompt_mode": "general"}
_SHARED: dict[str, Services] = {}  # the process's own apps, started on first use


def shared_services() -> Services:
    """This process's app set for BrowserGym tasks (started once, stopped at exit)."""
    if "apps" not in _SHARED:
        services = Services()
        services.start()
        _SHARED["apps"] = services
        atexit.register(services.close)
    return _SHARED["apps"]


class _ChromiumWithPath:
    """A BrowserType whose `launch` defaults to the system Chromium."""

    def __init__(self, browser_type: Any, executable_path: str) -> None:
        self._browser_type, self._executable_path = browser_type, executable_path

    def launch(self, **kwargs: Any) -> playwright.sync_api.Browser:
        kwargs.setdefault("executable_path", self._executable_path)
        return self._browser_type.launch(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser_type, name)


class _PlaywrightWithSystemChromium:
    """The Playwright driver, with `chromium` launching the system Chromium."""

    def __init__(self, driver: Any, executable_path: str) -> None:
        self._driver = driver
        self.chromium = _ChromiumWithPath(driver.chromium, executable_path)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)


def _use_system_chromium() -> None:
    """BrowserGym keeps one process-wide Playwright driver. Playwright's sync API allows one
    driver per thread, so it is handed this thread's shared driver (the one Envs and the
    tests' browsers use), with `chromium` launching Debian's Chromium: BrowserGym launches
    Playwright's bundled one, which is not installed here."""
    if browsergym.core._PLAYWRIGHT is None:
        browsergym.core._set_global_playwright(_PlaywrightWithSystemChromium(acquire_playwright(), CHROMIUM_PATH))


def release_browsergym_driver() -> None:
    """Give back the driver BrowserGym was handed (it takes it again on the next reset)."""
    if isinstance(browsergym.core._PLAYWRIGHT, _PlaywrightWithSystemChromium):
        browsergym.core._set_global_playwright(None)
        release_playwright()


def _resolve_judge(judge: Judge | str | None) -> Judge | None:
    if judge is None:
        judge = os.environ.get(JUDGE_VARIABLE) or None
    return load_judge(judge) if isinstance(judge, str) else judge


class AdminDeskTask(AbstractBrowserTask):
    """One AdminDesk task file, run in BrowserGym's browser and scored by our verifiers."""

    def __init__(self, seed: int | None, task_id: str, tasks_dir: str | None = None,
                 attach: AttachSpec | None = None, judge: Judge | str | None = None,
                 prompt_mode: PromptMode = "general",
                 credentials: tuple[str, str] = (DEFAULT_USERNAME, DEFAULT_PASSWORD)) -> None:
        super().__init__(seed)
        tasks = _task_files(Path(tasks_dir) if tasks_dir else TASKS_ROOT)
        if task_id not in tasks:
            raise KeyError(f"no AdminDesk task {task_id!r} under {tasks_dir or TASKS_ROOT}")
        self.task: Task = tasks[task_id]
        self.attach, self.judge, self.credentials = attach, _resolve_judge(judge), credentials
        self.goal = task_prompt(self.task.goal, self.task, prompt_mode)  # as `admindesk run` prompts
        self.slow_mo = 0  # the apps answer at once; BrowserGym's 1 s default is for watching
        self.timeout = 10_000
        self.services: Services | None = None
        self.initial_snapshots: dict[str, dict[str, Any]] = {}
        self.downloads: list[playwright.sync_api.Download] = []
        self.result: TaskResult | None = None
        _use_system_chromium()

    @classmethod
    def get_task_id(cls) -> str:
        return "admindesk"

    def setup(self, page: playwright.sync_api.Page) -> tuple[str, dict]:
        """Reset the apps for this task, sandbox the page, sign in, open the start page."""
        self.services = attached_services(self.attach) if self.attach else shared_services()
        task = self.task
        builds_state = task.case is not None or bool(task.seed) or bool(task.interruptions)
        self.services.reset_all(task.now, task.id if builds_state else None)
        self.initial_snapshots = self.services.snapshot_all()
        context = page.context
        context.add_init_script(PAGE_LOCKDOWN_JS)
        context.route(blocked_request_pattern(self.services.ports.values()),
                      lambda route: route.abort("blockedbyclient"))
        context.route_web_socket(re.compile(".*"), lambda web_socket: web_socket.close())
        context.on("download", self._keep_download)
        self._open_start(page)
        return self.goal, {"task_id": task.id, "apps": {name: self.services.url(name)
                                                   for name in self.services.processes}}

    def validate(self, page: playwright.sync_api.Page, chat_messages: list[dict]
                 ) -> tuple[float, bool, str, dict]:
        """Not done until the agent messages the user; then score the apps' state."""
        # BrowserGym's chat opens with its own greeting, then the goal as the user's message:
        # only what the agent says after the user's last message answers it.
        users = [i for i, m in enumerate(chat_messages) if m.get("role") == "user"]
        answers = [m["message"] for m in chat_messages[users[-1] + 1 if users else 0:]
                   if m.get("role") in ("assistant", "infeasible")]
        if not answers:
            return 0.0, False, "", {}
        self.result = score_task(self.task, self.record(answers[-1]), self.judge)
        info = {"outcome": self.result.outcome,
                "subtasks": {s.id: s.outcome for s in self.result.subtasks},
                "first_failing_subtask": self.result.first_failing_subtask,
                "task_result": self.result.model_dump(mode="json")}
        return (1.0 if self.result.outcome == "pass" else 0.0), True, "", info

    def record(self, answer: str | None) -> EpisodeRecord:
        """The episode for the verifiers: the apps' snapshots now and at setup, the answer."""
        return EpisodeRecord(task_id=self.task.id, initial_snapshots=self.initial_snapshots,
                             final_snapshots=self.services.snapshot_all(),
                             downloads=[_digest(download) for download in self.downloads], answer=answer)

    def cheat(self, page: playwright.sync_api.Page, chat_messages: list[dict]) -> None:
        """Run the reference solution on the apps, then show its end state in the page."""
        from admindesk.harness.agents.reference import solution_for
        try:
            solution_for(self.task)
        except LookupError as exc:
            raise NotImplementedError(str(exc)) from exc
        spec = AttachSpec(token=self.services.token, ports=self.services.ports, bench_ports=self.services.bench_ports)
        outcome: dict[str, Any] = {}
        # Playwright's sync API allows one driver per thread, and BrowserGym's holds this one.
        worker = threading.Thread(target=_run_reference, args=(self.task, spec, outcome),
                                  name="admindesk-cheat")
        worker.start()
        worker.join()
        if "error" in outcome:
            raise outcome["error"]
        self._open_start(page)
        chat_messages.append({"role": "assistant", "message": outcome.get("answer") or ""})

    def teardown(self) -> None:
        """Attached apps stay up; the shared ones live until the process exits."""

    def _keep_download(self, download: playwright.sync_api.Download) -> None:
        self.downloads.append(download)  # hashed at scoring time, once the file is complete

    def _open_start(self, page: playwright.sync_api.Page) -> None:
        start = self.task.start
        if start.login:
            login_url = self.services.url(start.app, "/login?next=" + quote(start.path, safe="/"))
            submit_login_form(page.context.request, login_url, *self.credentials)
        page.goto(self.services.url(start.app, start.path))



def _digest(download: playwright.sync_api.Download) -> FileDigest:
    data = Path(download.path()).read_bytes()  # waits until the file is complete
    return FileDigest(name=download.suggested_filename, sha256=hashlib.sha256(data).hexdigest(),
                      size=len(data))


def _run_reference(task: Task, spec: AttachSpec, outcome: dict[str, Any]) -> None:
    from admindesk.harness.agents.reference import ReferenceAgent
    from admindesk.harness.env.environment import Env
    try:
        with Env("axtree", attach=spec) as env:
            env.reset(task)
            ReferenceAgent().drive(env, task)
            outcome["answer"] = env.record().answer
    except Exception as exc:  # handed to the calling thread, which raises it
        outcome["error"] = exc


_TASKS: dict[Path, dict[str, Task]] = {}  # tasks folder -> its tasks, read once


def _task_files(folder: Path) -> dict[str, Task]:
    if folder not in _TASKS:
        _TASKS[folder] = {task.id: task for task in load_tasks(folder)}
    return _TASKS[folder]


def browser_env(task_id: str, tasks_dir: str, *args: Any, task_kwargs: dict[str, Any] | None = None,
                **kwargs: Any) -> BrowserEnv:
    """BrowserGym's env for one task file: the caller's `task_kwargs` over the defaults, the
    task id and folder fixed.

    Registered with gymnasium directly, not through BrowserGym's `register_task`, whose
    signature changed at 0.13: the extra installs 0.10-0.12 (later releases pin an older
    Playwright than ours), and the adapter runs on either."""
    given = dict(task_kwargs or {})
    fixed = {"task_id": task_id, "tasks_dir": tasks_dir}
    clashing = sorted(set(given) & set(fixed))
    if clashing:
        raise ValueError(f"task_kwargs cannot set {', '.join(clashing)}: the gym id fixes them")
    return BrowserEnv(AdminDeskTask, *args, task_kwargs={**DEFAULT_TASK_KWARGS, **given, **fixed}, **kwargs)


def register_all(tasks_dir: str | Path = TASKS_ROOT) -> list[str]:
    """Register every task file under `tasks_dir` as `browsergym/admindesk.<id>`; returns
    the gym ids. The suite's are registered on import; a designer's folder can be added."""
    import gymnasium
    folder = Path(tasks_dir).resolve()
    ids = []
    for task_id in sorted(_task_files(folder)):
        gym_id = f"browsergym/{TASK_PREFIX}{task_id}"
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=partial(browser_env, task_id, str(folder)),
                               nondeterministic=True)
        ids.append(gym_id)
    return ids


register_all()
