"""`Env`: the benchmark environment an agent steps through (apps + Chromium + observations).

    with Env(observation="screenshot") as env:
        obs, info = env.reset("pa-easy-01")
        obs, terminated, truncated, info = env.step({"type": "click", "x": 640, "y": 300})
        record = env.record()

The Env never scores; it hands an `EpisodeRecord` to whoever does.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from playwright.sync_api import Error as PlaywrightError, Locator
from pydantic import ValidationError

from admindesk.harness.env.actions import Action, parse_action
from admindesk.harness.env.attach import AttachSpec, attached_services
from admindesk.harness.env.browser import NAVIGATION_TIMEOUT_MS, Browser
from admindesk.harness.env.checkpoint import EpisodeCheckpoints
from admindesk.harness.env.cooperative import Gate, wait_for
from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT, ChromeState
from admindesk.harness.env.episode_apps import EpisodeApps
from admindesk.harness.env.episode_browser import EpisodeBrowser
from admindesk.harness.env.executor import ActionExecutor, ActionFailed
from admindesk.harness.env.observation import (
    OBSERVATION_MODES,
    Observation,
    ObservationMode,
    TabInfo,
    accessibility_text,
    compose_frame,
)
from admindesk.harness.env.recorder import TrajectoryWriter
from admindesk.harness.env.services import ServiceError, Services
from admindesk.harness.env.watchdog import BROWSER_CALL_DEADLINE, BrowserWedged
from admindesk.schema.task_model import Task
from admindesk.verifiers.records import EpisodeRecord, FileDigest

DEFAULT_USERNAME, DEFAULT_PASSWORD = "coordinator", "admindesk"
# An element's first line fragment (its whole box if it has no sized one); null when it is
# not rendered (display: none), which has no box to click.
FIRST_FRAGMENT_JS = """el => {
  const rects = Array.from(el.getClientRects());
  if (!rects.length) return null;
  const box = rects.find(r => r.width > 0 && r.height > 0) || el.getBoundingClientRect();
  return {x: box.x, y: box.y, width: box.width, height: box.height};
}"""
PAGE_CRASHED = "the page crashed (its renderer died); a blank tab replaced it"
# Stopping the last episode's tabs: each tab's blanking, then the wait for its requests.
STOP_NAVIGATION_TIMEOUT, STOP_CAP = 2.0, 2.0
BROWSER_FAILURES = (PlaywrightError, BrowserWedged)
APP_LABELS = {"ehr_web": "EHR", "payer_portal_a": "Payer Portal A",
              "payer_portal_b": "Payer Portal B", "fax": "Fax"}


class Env(EpisodeApps, EpisodeCheckpoints):
    """Four apps, one Chromium, one episode at a time. Use as a context manager."""

    channel = "screens"  # the apps through their pages (ApiEnv: through their APIs)

    def __init__(self, observation: ObservationMode = "screenshot", *,
                 frame_size: tuple[int, int] = (1280, 800), record_dir: str | Path | None = None,
                 services: Services | None = None, apps: list[str] | None = None,
                 attach: AttachSpec | None = None, tasks_dir: str | Path | None = None,
                 headless: bool = True, settle_cap: float = 3.0, browser: Browser | None = None,
                 reset_gate: Gate | None = None,
                 credentials: tuple[str, str] = (DEFAULT_USERNAME, DEFAULT_PASSWORD)) -> None:
        if observation not in OBSERVATION_MODES:
            raise ValueError(f"observation must be one of {', '.join(OBSERVATION_MODES)}, not {observation!r}")
        self.observation_mode = observation
        self.frame_size = frame_size
        self.record_dir = Path(record_dir) if record_dir is not None else None
        self.settle_cap = settle_cap
        self.credentials = credentials
        # Task files outside tasks/ (a generated split): the apps build a named task's case
        # from this folder, and a task given by id is looked up in it.
        self.tasks_dir = Path(tasks_dir).resolve() if tasks_dir is not None else None
        if services is not None and services.tasks_dir is not None:
            if self.tasks_dir not in (None, Path(services.tasks_dir).resolve()):
                raise ValueError(f"tasks_dir {self.tasks_dir} is not the folder the given services' apps "
                                 f"read ({services.tasks_dir})")
            self.tasks_dir = Path(services.tasks_dir).resolve()
        elif self.tasks_dir is not None and (services is not None or attach is not None):
            raise ValueError("tasks_dir starts the apps on that folder; with `services` or `attach` the apps "
                             "are started elsewhere (give them the folder there, e.g. Services(tasks_dir=...))")
        self._scratch = Path(tempfile.mkdtemp(prefix="admindesk-env-"))
        # `attach`: drive apps started elsewhere (`admindesk serve`, play mode); see attach.py.
        self.services = services if services is not None else (
            attached_services(attach) if attach is not None else Services(apps=apps, tasks_dir=self.tasks_dir))
        # A browser given is shared with other Envs (the episodes in flight on this thread,
        # each on its own lane of `services`): this Env uses its own context and never closes it.
        self._owns_browser = browser is None
        self.browser: Browser | None = browser
        # Shared with those Envs: resets are an episode's heavy part (case, snapshots, a new
        # context and renderer, a sign-in), and a burst of them would starve the others.
        self._reset_gate = reset_gate
        self._episode: EpisodeBrowser | None = None
        self._executor: ActionExecutor | None = None
        self._writer: TrajectoryWriter | None = None
        self._episodes = 0
        self._initial_snapshot_cache: dict[str, dict[str, Any]] = {}
        self._initial_fetch: tuple[tuple, dict] | None = None
        self._initial_errors: dict[str, str] = {}  # app -> why its initial snapshot is missing
        self.task: Task | None = None
        try:
            if not self.services.processes:
                self.services.start()
            if self.browser is None:
                self.browser = Browser(headless=headless)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "Env":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- episode ------------------------------------------------------------------------
    def reset(self, task: Task | str | dict, *, seed: int | None = None
              ) -> tuple[Observation, dict[str, Any]]:
        """Start an episode: fresh app state (clock at the task's `now`), fresh browser
        context, the start page open (logged in if the task says so).

        A task given by id or as a `Task` is a task file's: the apps are told its id (they
        add its case, from the Env's `tasks_dir`: the public suite unless one was given);
        an ad-hoc dict is not. A dead or hung app is restarted on the way.

        `seed` is accepted for the gymnasium convention; the world is deterministic, so it
        changes nothing today.
        """
        resolved, task_id = self._resolve_task(task)
        if self._reset_gate is None:
            return self._reset(resolved, task_id)
        with self._reset_gate.held():
            return self._reset(resolved, task_id)

    def _reset(self, resolved: Task, task_id: str | None) -> tuple[Observation, dict[str, Any]]:
        started = time.perf_counter()
        launch = self.browser.launches
        # The last episode's pages stop first: a request of theirs still in flight when the
        # apps reset could write into the new episode.
        stopped = self._stop_last_pages()
        self.task = resolved
        self._end_episode()
        self._episodes += 1
        resets = self.services.reset_futures(self.task.now, task_id)
        # A reset is deterministic (the apps' contract: same reset, same snapshot bytes), so
        # the state right after it is fetched once per reset body and reused.
        cache_key = (task_id, self.task.now.isoformat())
        cached = self._initial_snapshot_cache.get(cache_key)
        folder = self._episode_folder()
        # The apps reset while Chromium wipes the context: neither touches the other.
        try:
            self._episode = self._new_episode_browser(folder, fresh_context=not stopped)
        except BROWSER_FAILURES:
            self._episode = None  # Chromium was killed or lost: relaunched below
        context_ready = time.perf_counter()
        self.services.await_resets(resets)
        self._note_app_starts()
        apps_ready = time.perf_counter()
        self._step, self._terminated, self._answer = 0, False, None
        try:
            obs = self._first_observation(folder)
        except BROWSER_FAILURES:
            # A browser that died (or that a deadline killed) is relaunched, once for all the
            # Envs sharing it; a live one only loses this episode's context. Either way a
            # fresh context starts the episode over.
            if not self.browser.chromium.is_connected():
                self.browser.relaunch(launch)
            self._episode = None
            obs = self._first_observation(folder)
        # Fetched once the start page is up, while the agent reads it: the apps build the
        # state their reset left aside (`?state=initial`), so the page's own requests cannot
        # show in it, and building and parsing it would slow the start page down (the apps'
        # CPU, the harness's GIL). Awaited when first needed (`initial_snapshots`, `record`).
        self._initial_snapshots, self._initial_errors = cached, {}
        self._initial_fetch = None if cached is not None else (cache_key, self.services.snapshot_futures(initial=True))
        self._trajectory: list[dict[str, Any]] = []
        if self.record_dir is not None:
            self._writer = TrajectoryWriter(folder)
        finished = time.perf_counter()
        reset_ms = (finished - started) * 1000
        # Where a reset's time goes: the last episode stopped and a clean context (the apps
        # reset meanwhile), the apps' replies awaited, the start page opened and observed.
        parts = {"context_ms": context_ready - started, "apps_ms": apps_ready - context_ready,
                 "start_page_ms": finished - apps_ready}
        # The apps' origins of this episode: a replay in another Env (other ports) maps the
        # recorded actions' URLs onto its own.
        self._log_step(None, obs, {"total_ms": round(reset_ms, 1)}, goal=self.task.goal,
                       apps={name: self.services.url(name).rstrip("/") for name in self.services.processes})
        return obs, self._info(reset_ms=reset_ms,
                               reset_parts_ms={part: round(seconds * 1000, 1) for part, seconds in parts.items()})

    def _stop_last_pages(self) -> bool:
        """Stop the last episode's tabs; False when its context must be replaced."""
        if self._episode is None:
            return True
        pages = len(self._episode.pages)
        try:
            with self._deadline(BROWSER_CALL_DEADLINE + STOP_CAP + STOP_NAVIGATION_TIMEOUT * pages,
                                       "stopping the last episode's tabs"):
                return self._episode.stop_all_pages(STOP_CAP, STOP_NAVIGATION_TIMEOUT)
        except BROWSER_FAILURES:
            return False

    def _new_episode_browser(self, folder: Path, *, fresh_context: bool) -> EpisodeBrowser:
        with self._deadline(BROWSER_CALL_DEADLINE, "wiping the browser context"):
            return self.browser.new_episode(
                self.services.ports.values(), folder / "Downloads",
                (self.frame_size[0], self.frame_size[1] - CHROME_HEIGHT), fresh_context=fresh_context)

    def _first_observation(self, folder: Path) -> Observation:
        """Open the start page (signed in if the task says so), let it settle, observe it;
        every browser call under a deadline. Opens the episode's browser if it has none."""
        if self._episode is None:
            self._episode = self._new_episode_browser(folder, fresh_context=True)
        bookmarks = [(APP_LABELS.get(name, name), self.services.url(name))
                     for name in self.services.processes]
        self._executor = ActionExecutor(self._episode, self.frame_size, bookmarks)
        with self._deadline(BROWSER_CALL_DEADLINE + NAVIGATION_TIMEOUT_MS / 1000,
                                   "opening the start page"):
            self._open_start_page()
            self._episode.replace_crashed_pages()
        with self._deadline(BROWSER_CALL_DEADLINE + self.settle_cap, "settling the start page"):
            self._settle()
        with self._deadline(BROWSER_CALL_DEADLINE, "taking the first frame"):
            return self._observe(error=None)

    def step(self, action: Action | dict | str) -> tuple[Observation, bool, bool, dict]:
        """Apply one action; returns (observation, terminated, truncated, info)."""
        if self._episode is None or self.task is None:
            raise RuntimeError("call reset() before step()")
        if self.episode_over:
            raise RuntimeError("the episode is over; call reset() to start another")
        started = time.perf_counter()
        error, parsed = None, None
        try:
            parsed = parse_action(action)
        except ValidationError as exc:
            error = "invalid action: " + "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'action'}: {e['msg']}" for e in exc.errors())
        if parsed is not None:
            self._episode.begin_action()
            try:
                self._executor.apply(parsed)
            except ActionFailed as exc:
                error = str(exc)
            if parsed.type == "done":
                self._terminated, self._answer = True, parsed.answer
        acted = time.perf_counter()
        # A frame taken while a submitted form's navigation commits can block for good: past
        # the deadline the browser is killed and the step raises BrowserWedged (an infra
        # error to the runner); the next reset relaunches it.
        with self._deadline(BROWSER_CALL_DEADLINE + self.settle_cap, "settling and taking the frame"):
            if self._episode.replace_crashed_pages():
                error = PAGE_CRASHED
            if parsed is None or parsed.type != "done":
                self._settle()
            if self._episode.replace_crashed_pages():  # crashed while settling
                error = PAGE_CRASHED
            settled = time.perf_counter()
            self._step += 1
            obs = self._observe(error)
        finished = time.perf_counter()
        timing = {"action_ms": round((acted - started) * 1000, 1),
                  "settle_ms": round((settled - acted) * 1000, 1),
                  "observe_ms": round((finished - settled) * 1000, 1),
                  "total_ms": round((finished - started) * 1000, 1)}
        logged = parsed.model_dump() if parsed is not None else {"invalid": repr(action)[:500]}
        self._log_step(logged, obs, timing)
        truncated = not self._terminated and self._step >= self.task.max_steps
        return obs, self._terminated, truncated, self._info()

    @property
    def episode_over(self) -> bool:
        """True once the agent sent `done` or spent the task's step budget."""
        return self._terminated or (self.task is not None and self._step >= self.task.max_steps)

    def record(self) -> EpisodeRecord:
        """The episode so far, for the verifiers (fetches every app's final snapshot now).

        An app that is down or hung gives no final snapshot: the record is partial, with
        the reason in `snapshot_errors` (the next reset restarts the app).
        """
        if self._episode is None or self.task is None:
            raise RuntimeError("call reset() before record()")
        initial = self.initial_snapshots
        final, errors = self._final_snapshots()
        for name, reason in self._initial_errors.items():  # no diff to score in that app either
            final.pop(name, None)
            errors.setdefault(name, reason)
        return EpisodeRecord(
            task_id=self.task.id, initial_snapshots=initial,
            final_snapshots=final, snapshot_errors=errors, downloads=self.downloaded_files(),
            uploads=[FileDigest(name=f.name, sha256=f.sha256, size=f.size)
                     for f in self._episode.uploads],
            answer=self._answer, trajectory=list(self._trajectory))

    @property
    def trajectory(self) -> list[dict[str, Any]]:
        """The episode's steps so far (reset first), as its record lists them."""
        return list(self._trajectory)

    def downloaded_files(self) -> list[FileDigest]:
        """The files downloaded so far this episode (name, sha256, size)."""
        return [FileDigest(name=f.name, sha256=f.sha256, size=f.size)
                for f in self._episode.downloads]

    @property
    def initial_snapshots(self) -> dict[str, dict[str, Any]]:
        """Every app's snapshot right after this episode's reset (an app that went down or was
        restarted before it answered is left out; `record` says why)."""
        if self._initial_fetch is not None:
            cache_key, futures = self._initial_fetch
            self._initial_fetch = None
            self._initial_snapshots = {}
            for name, future in futures.items():
                try:
                    self._initial_snapshots[name] = wait_for(future)
                except ServiceError as exc:
                    self._initial_errors[name] = f"no snapshot of {name}'s state after the reset: {exc}"
            if not self._initial_errors:
                self._initial_snapshot_cache = {cache_key: self._initial_snapshots}  # keep one: they are large
        return self._initial_snapshots

    def close(self) -> None:
        """End the episode, close Chromium and stop the apps (idempotent)."""
        self._end_episode()
        if self.browser is not None:
            if self._owns_browser:
                self.browser.close()
            self.browser = None
        self.services.close()
        shutil.rmtree(self._scratch, ignore_errors=True)

    # ---- helpers for scripted agents (reference solutions, demo, tests) -----------------
    def element_center(self, selector: str) -> tuple[int, int]:
        """Frame pixel at the centre of the first element matching a Playwright selector.

        For reference solutions that must act through clicks: look up, then click there.
        """
        # A link wrapped over two lines has a bounding box whose centre falls between its
        # fragments, on nothing; the centre of its first line fragment is on the link.
        # One call finds an element that is there (most lookups: the page has settled);
        # Playwright's locator waits for one that is not there yet.
        page = self._episode.page
        try:
            box = page.eval_on_selector(selector, FIRST_FRAGMENT_JS)
        except PlaywrightError:  # no such element (yet), or mid-navigation
            box = page.locator(selector).first.evaluate(FIRST_FRAGMENT_JS, timeout=5_000)
        if box is None:
            raise LookupError(f"{selector!r} is not visible")
        return (round(box["x"] + box["width"] / 2),
                round(box["y"] + box["height"] / 2) + CHROME_HEIGHT)

    def page_locator(self, selector: str) -> Locator:
        """A Playwright locator on the active page, for reading text, values and boxes.

        Scripted agents use it to decide where to click and to check effects; acting on
        the page goes through `step` only.
        """
        return self._episode.page.locator(selector)

    def chrome_layout(self) -> ChromeState:
        """The drawn chrome as in the last observation (tab, bookmark and dialog boxes)."""
        return self._executor.chrome_state()

    def app_url(self, app: str, path: str = "/") -> str:
        """The URL of `path` in `app` for this Env (ports are chosen at start-up)."""
        return self.services.url(app, path)

    @property
    def downloads_dir(self) -> Path:
        """The current episode's Downloads folder."""
        return self._episode.downloads_dir

    # ---- internals ----------------------------------------------------------------------
    def _deadline(self, seconds: float, what: str):
        """The browser's deadline for a block of calls, stretched when the apps and the browser
        serve many episodes at once: a slow answer then is load, and killing the browser
        would end every episode in flight."""
        return self.browser.deadline(self.services.patience(seconds), what)

    def _settle(self) -> None:
        try:
            self._episode.settle(self.settle_cap)
        except PlaywrightError:
            pass  # the page crashed or closed while settling: the caller replaces it

    def _episode_folder(self) -> Path:
        if self.record_dir is not None:
            return self.record_dir / f"{self.task.id}-{self._episodes:03d}"
        return self._scratch / f"episode-{self._episodes:03d}"

    def _open_start_page(self) -> None:
        start = self.task.start
        if start.login:
            login_url = self.services.url(start.app, "/login?next=" + quote(start.path, safe="/"))
            self.browser.sign_in(self._episode.context, login_url, *self.credentials)
        self._episode.goto(self.services.url(start.app, start.path))

    def _observe(self, error: str | None) -> Observation:
        episode, executor = self._episode, self._executor
        chrome = executor.chrome_state()
        screenshot = axtree = None
        if self.observation_mode in ("screenshot", "both"):
            screenshot = compose_frame(episode.screenshot_png(), chrome)
        if self.observation_mode in ("axtree", "both"):
            axtree = accessibility_text(episode.page)
        return Observation(
            screenshot=screenshot, axtree=axtree, url=chrome.current_url,
            tabs=[TabInfo(title=title, url=url) for title, url in chrome.tabs],
            active_tab=chrome.active, downloads=[f.name for f in episode.downloads],
            file_dialog_open=episode.file_chooser is not None, step=self._step,
            last_action_error=error)

    def _log_step(self, action: dict | None, obs: Observation, timing: dict, **extra: Any) -> None:
        entry = {"step": obs.step, "action": action, "url": obs.url,
                 "error": obs.last_action_error, "timing": timing, **extra}
        self._trajectory.append(entry)
        if self._writer is not None:
            # The text the agent saw goes to the folder's trajectory (the report shows it),
            # not into the record: scoring never reads it, and it is most of a step's bytes.
            self._writer.write({**entry, "axtree": obs.axtree} if obs.axtree is not None else entry,
                               obs.screenshot)

    def _info(self, **extra: Any) -> dict[str, Any]:
        messages, self._episode.dialog_messages = self._episode.dialog_messages, []
        return {"task_id": self.task.id, "goal": self.task.goal, "step": self._step,
                "max_steps": self.task.max_steps, "apps": {
                    name: self.services.url(name) for name in self.services.processes},
                "dialog_messages": messages, **extra}

    def _end_episode(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._episode is not None:
            try:
                with self._deadline(BROWSER_CALL_DEADLINE, "closing the last episode"):
                    self._episode.close()
            except BROWSER_FAILURES:
                pass  # a killed browser is relaunched by the next reset
            if self.record_dir is None:
                shutil.rmtree(self._episode.downloads_dir.parent, ignore_errors=True)
            self._episode = None
