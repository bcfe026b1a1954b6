"""An episode's state between two steps, kept so that a later episode of the same task can take
it up (`Env.checkpoint`, `Env.resume`). `tasks check` runs an ablation that acts past its
skipped phase from the reference's state there, instead of replaying the reference's steps.

Kept: every app's state (the bench API's checkpoint: database, clock and sessions), the
browser's cookies, each tab's URL, scroll offsets, focus and a digest of its document (DOM,
form values, focus), the steps so far with their trajectory lines and frames, the downloads
and uploads, and the drawn chrome's state. A tab is reopened by loading its URL again, so a
checkpoint is taken only where that can give the same page back: no select list, file
chooser or dialog open, no form field edited, every tab on a page the agent may open, and no
tab showing a form post's own answer. A tab showing the page a post redirected to is loaded
with the cookies it was loaded with (the session held the flash message it shows). Resuming
compares each reopened tab's digest with the kept one (ResumeFailed when one differs) and
restores the apps again after the reloads, so the pages' own requests leave no trace. Not
kept: a tab's back/forward history (no reference solution navigates back).
"""
from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError, Page, Request

from admindesk.harness.env.browser import NAVIGATION_TIMEOUT_MS
from admindesk.harness.env.episode_browser import EpisodeBrowser, SavedFile
from admindesk.harness.env.executor import AddressBar
from admindesk.harness.env.recorder import TrajectoryWriter
from admindesk.harness.env.sandbox import NavigationBlocked, check_navigation
from admindesk.harness.env.services import ServiceError
from admindesk.harness.env.watchdog import BROWSER_CALL_DEADLINE

# The document as the agent could tell it apart: its markup (the CSRF token's value aside: it
# is signed afresh on every render), every form control's value, the focused element, and the
# elements scrolled from their origin (the root element's offsets are the window's).
TAB_STATE_JS = """() => {
  const all = document.querySelectorAll('*');
  const markup = document.documentElement.outerHTML.replace(/<input[^>]*name="csrf_token"[^>]*>/g, '<input csrf>');
  const fields = Array.from(document.querySelectorAll('input, select, textarea'));
  const controls = fields.map(
    el => el.name === 'csrf_token' ? '' : [el.name, el.value, el.checked, el.selectedIndex].join('\\u0001'));
  const scrolled = [];
  all.forEach((el, index) => {
    if (el.scrollTop || el.scrollLeft) scrolled.push([index, el.scrollTop, el.scrollLeft]);
  });
  const focus = Array.prototype.indexOf.call(all, document.activeElement);
  const edited = fields.some(el => {
    if (el.type === 'hidden') return false;
    if (el.tagName === 'SELECT') {
      const loaded = Math.max(0, Array.from(el.options, o => o.defaultSelected).lastIndexOf(true));
      return el.multiple ? Array.from(el.options).some(o => o.selected !== o.defaultSelected)
                         : el.options.length > 0 && el.selectedIndex !== loaded;
    }
    if (el.type === 'checkbox' || el.type === 'radio') return el.checked !== el.defaultChecked;
    return el.type !== 'file' && el.value !== el.defaultValue;
  });
  return {text: [location.href, document.readyState, markup, controls.join('\\u0002'), focus].join('\\u0003'),
          scrolled: scrolled, focus: focus, edited: edited};
}"""
# A reloaded page has the focus on its body; a clicked link or field kept it (without scrolling).
FOCUS_JS = """index => {
  const element = document.querySelectorAll('*')[index];
  if (element && element !== document.activeElement && element.focus) element.focus({preventScroll: true});
}"""
SCROLL_TO_JS = """scrolled => {
  const all = document.querySelectorAll('*');
  for (const [index, top, left] of scrolled) {
    if (all[index]) { all[index].scrollTop = top; all[index].scrollLeft = left; }
  }
}"""
TRAJECTORY_FILE = "trajectory.jsonl"


class ResumeFailed(RuntimeError):
    """A checkpoint could not be taken up (an app refused it, or a reopened tab differs)."""


@dataclass(frozen=True)
class TabState:
    """One tab as kept: its URL, its document's digest, its scrolled elements and the index
    of its focused one (in document order)."""

    url: str
    digest: str
    scrolled: list[list[int]]
    focus: int
    edited: bool  # a form field holds what was typed or chosen, which a reload would lose
    # The Cookie header its document was loaded with, when that answered a form post (the
    # session then held the flash message the page shows); None: loaded with the jar's cookies.
    cookie_header: str | None = None


@dataclass(frozen=True)
class ChromeOverlays:
    """The drawn chrome's state beyond the tabs: the address bar and the downloads bubble."""

    address: AddressBar
    downloads_bubble: tuple[tuple[str, int], ...] | None
    downloads_full_list: bool
    downloads_shown: int


@dataclass(frozen=True)
class EpisodeCheckpoint:
    """An episode's state after `steps` steps; its files (downloads, trajectory lines, frames)
    are copies in `folder`."""

    task_id: str
    steps: int
    apps: dict[str, str]  # app -> its bench checkpoint id
    cookies: list[dict[str, Any]]
    tabs: list[TabState]
    active: int
    trajectory: list[dict[str, Any]]
    downloads: list[SavedFile]
    uploads: list[SavedFile]
    chrome: ChromeOverlays
    folder: Path
    kept_files: list[str] = field(default_factory=list)  # trajectory file and frames, in `folder`


def tab_state(page: Page) -> TabState:
    """The tab now: its URL, document digest, scrolled and focused elements, and whether a
    form field was edited."""
    state = page.evaluate(TAB_STATE_JS)
    return TabState(page.url, hashlib.sha256(state["text"].encode()).hexdigest(), state["scrolled"], state["focus"],
                    state["edited"])


def posted_tab_state(page: Page, request: Request) -> TabState | None:
    """A tab whose document answers a form post: its state, with the cookies the request that
    loaded it carried; None when that request was the post itself (a GET cannot repeat it)."""
    if request.method != "GET":
        return None
    return replace(tab_state(page), cookie_header=request.all_headers().get("cookie", ""))


def _header_cookies(header: str, url: str) -> list[dict[str, str]]:
    pairs = (part.partition("=") for part in header.split(";") if part.strip())
    return [{"name": name.strip(), "value": value, "url": url} for name, _, value in pairs]


def reopen_tabs(episode: EpisodeBrowser, tabs: list[TabState], active: int, cookies: list[dict[str, Any]],
                timeout_ms: float) -> None:
    """Load each kept tab's URL (the episode's first tab first, then new ones) with the
    cookies it was loaded with, scroll its elements and focus the one focused, as they were;
    the kept active tab ends active, and the cookie jar holds `cookies`."""
    context = episode.context
    for index, tab in enumerate(tabs):
        context.clear_cookies()
        context.add_cookies(cookies if tab.cookie_header is None else _header_cookies(tab.cookie_header, tab.url))
        if index == 0:
            episode.goto(tab.url, episode.pages[0])
        else:
            episode.new_tab(tab.url)
        page = episode.pages[index]
        page.wait_for_load_state("load", timeout=timeout_ms)
        if tab.scrolled:
            page.evaluate(SCROLL_TO_JS, tab.scrolled)
        page.evaluate(FOCUS_JS, tab.focus)
    context.clear_cookies()
    context.add_cookies(cookies)
    episode.switch_tab(active)


def keep_files(episode_folder: Path | None, downloads_dir: Path, folder: Path) -> list[str]:
    """Copy the episode's downloads, trajectory file and frames into `folder`; the names of the
    episode folder's files kept."""
    shutil.copytree(downloads_dir, folder / "Downloads", dirs_exist_ok=True)
    if episode_folder is None or not episode_folder.is_dir():
        return []
    kept = [path for path in episode_folder.iterdir()
            if path.name == TRAJECTORY_FILE or (path.name.startswith("step-") and path.suffix == ".png")]
    for path in kept:
        shutil.copyfile(path, folder / path.name)
    return sorted(path.name for path in kept)


def restore_files(checkpoint: EpisodeCheckpoint, episode_folder: Path | None, downloads_dir: Path) -> None:
    """Put the checkpoint's downloads, trajectory file and frames into this episode's folders."""
    shutil.copytree(checkpoint.folder / "Downloads", downloads_dir, dirs_exist_ok=True)
    if episode_folder is not None:
        for name in checkpoint.kept_files:
            shutil.copyfile(checkpoint.folder / name, episode_folder / name)


class EpisodeCheckpoints:
    """Mixed into `Env`: keep an episode's state, and take it up in a later episode."""

    def checkpoint(self, folder: Path) -> EpisodeCheckpoint | None:
        """The episode's state now, for `resume` in a later episode of this task (its files
        are copied into `folder`); None when it cannot be taken up (see checkpoint.py)."""
        if self._episode is None or self.task is None:
            raise RuntimeError("call reset() before checkpoint()")
        episode, executor = self._episode, self._executor
        if (self.episode_over or executor.dropdown is not None or episode.file_chooser is not None
                or episode.dialog_messages):
            return None
        try:
            with self._deadline(BROWSER_CALL_DEADLINE, "keeping the tabs' state"):
                tabs = [tab_state(page) if page not in episode.posted else posted_tab_state(page, episode.posted[page])
                        for page in episode.pages]
                cookies = episode.context.cookies()
            if any(tab is None or tab.edited for tab in tabs):
                return None
            for tab in tabs:
                check_navigation(tab.url, episode.allowed_ports)
            apps = self.services.checkpoint()
        except (PlaywrightError, NavigationBlocked, ServiceError):
            return None
        folder.mkdir(parents=True, exist_ok=True)
        kept = keep_files(self._episode_folder() if self._writer is not None else None, episode.downloads_dir, folder)
        chrome = ChromeOverlays(replace(executor.address), executor.downloads_bubble,
                                executor.downloads_full_list, executor.downloads_shown)
        return EpisodeCheckpoint(task_id=self.task.id, steps=self._step, apps=apps, cookies=cookies, tabs=tabs,
                                 active=episode.active, trajectory=self.trajectory, downloads=list(episode.downloads),
                                 uploads=list(episode.uploads), chrome=chrome, folder=folder, kept_files=kept)

    def resume(self, checkpoint: EpisodeCheckpoint) -> None:
        """Take up `checkpoint` in this episode, just reset for the same task: the apps,
        cookies, tabs, steps, downloads, uploads and drawn chrome as they were then.

        ResumeFailed when it cannot: an app refuses, or a reopened tab differs from the one
        kept. The episode is then in no defined state; reset it before using it again.
        """
        if self.task is None or self.task.id != checkpoint.task_id or self._step != 0:
            raise ResumeFailed(f"a checkpoint of {checkpoint.task_id} is taken up right after a reset to it")
        episode = self._episode
        cap = NAVIGATION_TIMEOUT_MS / 1000 * len(checkpoint.tabs) + self.settle_cap
        try:
            self.services.restore(checkpoint.apps)
            with self._deadline(BROWSER_CALL_DEADLINE + cap, "reopening the checkpoint's tabs"):
                reopen_tabs(episode, checkpoint.tabs, checkpoint.active, checkpoint.cookies, NAVIGATION_TIMEOUT_MS)
                self._settle()
                reopened = [tab_state(page) for page in episode.pages]
            # The reloads' requests (audit events) leave no trace.
            self.services.restore(checkpoint.apps)
        except (ServiceError, PlaywrightError, NavigationBlocked) as exc:
            raise ResumeFailed(f"the checkpoint could not be taken up: {exc}") from exc
        if len(reopened) != len(checkpoint.tabs):
            raise ResumeFailed(f"reopened, {len(reopened)} tabs are open, not {len(checkpoint.tabs)}")
        differing = [str(n) for n, (kept, now) in enumerate(zip(checkpoint.tabs, reopened, strict=True))
                     if kept.digest != now.digest]
        if differing:
            raise ResumeFailed(f"reopened, tab {', '.join(differing)} is not the page kept")
        self._step, self._trajectory = checkpoint.steps, list(checkpoint.trajectory)
        folder = self._episode_folder() if self._writer is not None else None
        restore_files(checkpoint, folder, episode.downloads_dir)
        if self._writer is not None:
            self._writer.close()
            self._writer = TrajectoryWriter(folder, append=True)
        episode.downloads, episode.uploads = list(checkpoint.downloads), list(checkpoint.uploads)
        chrome, executor = checkpoint.chrome, self._executor
        executor.address = replace(chrome.address)
        executor.downloads_bubble, executor.downloads_full_list = chrome.downloads_bubble, chrome.downloads_full_list
        executor.downloads_shown = chrome.downloads_shown
