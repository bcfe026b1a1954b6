"""One episode's browser: its tabs, settling, downloads, file chooser and screenshots.

Each episode gets the Env's context wiped of the last episode's cookies, storage,
permissions, extra tabs and tab history (cheaper than a new context, and as clean), and a
fresh renderer once the kept one has grown;
downloads land in the episode's Downloads folder; file choosers are intercepted so the
harness can draw its own dialog.
"""
from __future__ import annotations

import base64
import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from playwright.sync_api import (
    BrowserContext,
    CDPSession,
    Download,
    Error as PlaywrightError,
    FileChooser,
    Page,
    Request,
)

from admindesk.harness.env.sandbox import BLANK, LOOPBACK_HOSTS, check_navigation

# Runs in every document before its own scripts. It remembers when the DOM last changed and
# counts the page's pending fetches and short timers (debounces, "setTimeout then fetch"),
# so settling can tell "still working" from "quiet" without a fixed sleep.
PAGE_ACTIVITY_JS = """(() => {
  const w = window, timers = new Set(), setT = w.setTimeout, clearT = w.clearTimeout;
  let fetches = 0;
  const mark = () => { w.__admindeskLastMutation = performance.now(); };
  mark();
  new MutationObserver(mark).observe(document, {subtree: true, childList: true,
                                                attributes: true, characterData: true});
  // A scrolling page (a wheel's smooth scroll) is not quiet either.
  document.addEventListener('scroll', mark, {capture: true, passive: true});
  w.setTimeout = function (fn, delay, ...rest) {
    if (typeof fn !== 'function' || Number(delay) > 300) return setT.call(this, fn, delay, ...rest);
    const id = setT.call(this, function () { timers.delete(id); return fn.apply(this, arguments); },
                         delay, ...rest);
    timers.add(id);
    return id;
  };
  w.clearTimeout = function (id) { timers.delete(id); return clearT.call(this, id); };
  const realFetch = w.fetch;
  w.fetch = function (...args) {
    fetches += 1;
    return realFetch.apply(this, args).finally(() => { fetches -= 1; });
  };
  w.__admindeskPending = () => timers.size + fetches;
  // Tabs opened by the page arrive as separate events; flag them so settling waits for them.
  w.__admindeskPopups = 0;
  const popup = () => { w.__admindeskPopups += 1; };
  const realOpen = w.open;
  w.open = function (...args) { popup(); return realOpen.apply(this, args); };
  const opensTab = el => el && el.target && !['_self', '_parent', '_top'].includes(el.target);
  // Same-tab navigations (and downloads) start a request a moment after the click; a
  // same-origin download link starts no request the harness sees, only the download.
  w.__admindeskNavigations = 0;
  w.__admindeskDownloads = 0;
  const navigation = () => { w.__admindeskNavigations += 1; };
  document.addEventListener('click', e => {
    const link = e.target instanceof Element && e.target.closest('a[href]');
    if (e.button !== 0 || !link || e.defaultPrevented) return;
    if (link.hasAttribute('download') && link.origin === location.origin) w.__admindeskDownloads += 1;
    else if (opensTab(link)) popup();
    else if (!link.getAttribute('href').startsWith('#')) navigation();
  }, false);
  document.addEventListener('submit', e => {
    if (opensTab(e.target)) popup(); else navigation();
  }, false);
})();"""
# Resolves after the page's queued tasks with the document's state, DOM quiet time, pending
# page work, the tabs it asked to open and the downloads and navigations it started since
# the last look (the counts are consumed). No animation-frame wait: a screenshot that follows
# renders a fresh frame anyway, and without one nothing waits on paint (a scroll, which lands
# on a later frame, waits for its frames in the executor).
FRAME_STATE_JS = """() => new Promise(resolve => setTimeout(() => {
  const popups = window.__admindeskPopups || 0, navigations = window.__admindeskNavigations || 0;
  const downloads = window.__admindeskDownloads || 0;
  window.__admindeskPopups = 0;
  window.__admindeskNavigations = 0;
  window.__admindeskDownloads = 0;
  resolve({ready: document.readyState, popups: popups, navigations: navigations, downloads: downloads,
           quiet: performance.now() - (window.__admindeskLastMutation || 0),
           pending: window.__admindeskPending ? window.__admindeskPending() : 0});
}, 0))"""
# Page-side timers are waited for at most this long: a page that polls on a short timer
# must not make every step hit the settle cap.
PAGE_TIMER_CAP = 1.0
# How long a navigation the page announced may take to show up as a request.
NAVIGATION_START_CAP = 0.5
# A navigation request that ends in ERR_ABORTED is usually a download about to be announced.
DOWNLOAD_ANNOUNCE_CAP = 0.5


def _origins(ports: Iterable[int]) -> list[str]:
    """Every origin the agent's pages can have (both loopback names, each app port)."""
    return [f"http://{host}:{port}" for host in LOOPBACK_HOSTS for port in ports]


@dataclass
class SavedFile:
    """A file saved to the Downloads folder."""

    name: str
    sha256: str
    size: int


# A renderer kept across episodes grows (one kept through a long check run reached 715 MB
# RSS, some 45 episodes in), but a fresh one adds ~0.5 s to a reset: the app tabs' renderer
# is replaced only once the renderers of the Env's Chromium hold more than this. (It was 400
# while Chromium also kept its address bar popup's renderer, ~50 MB RSS, in the sum.)
RENDERER_RECYCLE_MB = 350


def renderers_grown(renderer_pids: list[int], contexts: int = 1) -> bool:
    """True when these renderer processes hold over RENDERER_RECYCLE_MB per context (one
    renderer per context: Chromium does not say which renderer is whose)."""
    page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
    resident_kb = 0
    for pid in renderer_pids:
        try:
            resident_kb += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page_kb
        except (OSError, ValueError, IndexError):
            continue  # exited meanwhile
    return resident_kb > RENDERER_RECYCLE_MB * 1024 * max(contexts, 1)


# Tries at a screenshot Chromium says it cannot take yet (waiting 0.1, 0.2... s between).
SCREENSHOT_ATTEMPTS = 4
# What a tab's CDP session answers once a navigation has replaced the document host it
# was attached to (seen on a form submit just before the screenshot): a new session works.
DETACHED_SESSION = "Not attached to an active page"


class EpisodeBrowser:
    """The tabs, downloads and pending file chooser of one episode's browser context."""

    def __init__(self, context: BrowserContext, allowed_ports: list[int],
                 downloads_dir: Path, *, fresh_renderer: bool = False) -> None:
        self.allowed_ports = allowed_ports
        self.downloads_dir = downloads_dir
        self.downloads_dir.mkdir(parents=True, exist_ok=True)
        self.downloads: list[SavedFile] = []
        self.uploads: list[SavedFile] = []
        self.pages: list[Page] = []
        self.active = 0
        self.file_chooser: FileChooser | None = None
        self.dialog_messages: list[str] = []
        self._pending_downloads: list[Download] = []
        self._opened_pages = 0  # tabs adopted since settling last accounted for them
        # Tabs whose document answers a form post (possibly through redirects), and the request
        # that loaded it: loading the URL again brings the same page back (its flash message)
        # only with the cookies that request carried, and only if it was a GET.
        self.posted: dict[Page, Request] = {}
        self._requests_seen = 0  # requests started since the current action began
        self._download_expected_until = 0.0  # monotonic deadline, see DOWNLOAD_ANNOUNCE_CAP
        # Aborted navigations less downloads announced, this step: Chromium may announce the
        # download before the aborted request's event, and then nothing is left to wait for.
        self._downloads_unannounced = 0
        self._inflight: dict[Request, float] = {}
        self._cdp: dict[Page, CDPSession] = {}
        self._crashed: list[Page] = []
        self.context = context
        self._page_listeners = {"download": self._on_download,
                                "filechooser": self._on_file_chooser,
                                "dialog": self._on_dialog, "close": self._forget_page,
                                "crash": self._on_crash}
        self._listeners = {"page": self._adopt_page, "request": self._on_request,
                           "requestfinished": self._on_request_finished,
                           "requestfailed": self._on_request_failed}
        for event, listener in self._listeners.items():
            context.on(event, listener)
        leftovers = list(context.pages)
        if fresh_renderer:  # close every tab: their renderer exits, the episode gets a new one
            for leftover in leftovers:
                leftover.close()
            leftovers = []
        for extra_tab in leftovers[1:]:
            extra_tab.close()
        if leftovers:
            self._adopt_page(leftovers[0])
            try:
                self._blank_tab(leftovers[0])
            except PlaywrightError:  # its renderer crashed: a new tab replaces it
                leftovers[0].close()
        if not self.pages:
            context.new_page()  # fires "page", which adopts it
        context.clear_cookies()
        context.clear_permissions()
        # The HTTP cache is kept: the apps mark every page and file `no-store`, so it holds
        # only their static assets, and keeping them spares each episode their reload.
        session = self._cdp_session(self.page)
        for origin in _origins(allowed_ports):
            session.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})

    def _blank_tab(self, page: Page) -> None:
        """Make the last episode's tab as a new one: blank, without history or a name.

        Reusing the tab keeps its renderer process (a fresh one adds ~0.5 s to a reset);
        its session storage goes with the origins' data, which the constructor clears.
        """
        if page.url != BLANK:  # the reset's stop of the last episode's tabs left it blank
            page.goto(BLANK)
        page.evaluate("window.name = ''")  # survives navigations within a tab
        self._cdp_session(page).send("Page.resetNavigationHistory")

    def stop_all_pages(self, cap: float = 2.0, navigation_timeout: float = 2.0) -> bool:
        """Leave no request of this episode's pages in flight (before the apps reset).

        Every tab goes to about:blank, which aborts its loading and fetches; then waits (at
        most `cap`) until the requests the browser had open have ended. Returns False when
        a tab would not go blank (crashed, or its blanking was interrupted by a navigation
        still arriving): closing such a tab may never return, so the caller replaces the
        whole context instead, which ends its requests as surely.
        """
        for page in list(self.pages):
            try:
                page.goto(BLANK, timeout=navigation_timeout * 1000)
            except PlaywrightError:
                return False
        deadline = time.monotonic() + cap
        while self._inflight and self.pages and time.monotonic() < deadline:
            self.page.wait_for_timeout(10)  # lets the request-ended events arrive
        return True

    def replace_crashed_pages(self) -> bool:
        """Close tabs whose renderer crashed, opening a blank tab if none is left.

        Returns True if any tab had crashed (the agent is told, as "Aw, Snap" would).
        """
        crashed, self._crashed[:] = list(self._crashed), []
        for page in crashed:
            if page in self.pages:
                page.close()
        if crashed and not self.pages:
            self.context.new_page()
        return bool(crashed)

    def _on_request(self, request: Request) -> None:
        self._inflight[request] = time.monotonic()
        self._requests_seen += 1
        if request.is_navigation_request():
            self._note_navigation(request)

    def _note_navigation(self, request: Request) -> None:
        try:
            frame = request.frame
        except PlaywrightError:  # a popup's first request, before its frame exists: a GET
            return
        if frame.parent_frame is not None:
            return
        chain, posted = request, False
        while chain is not None:
            posted = posted or chain.method == "POST"
            chain = chain.redirected_from
        if posted:
            self.posted[frame.page] = request
        else:
            self.posted.pop(frame.page, None)

    def _on_request_finished(self, request: Request) -> None:
        self._inflight.pop(request, None)

    def _on_request_failed(self, request: Request) -> None:
        self._inflight.pop(request, None)
        if request.is_navigation_request() and "ERR_ABORTED" in (request.failure or ""):
            self._expect_downloads(1)

    def _expect_downloads(self, count: int) -> None:
        self._downloads_unannounced += count
        if self._downloads_unannounced > 0:
            self._download_expected_until = time.monotonic() + DOWNLOAD_ANNOUNCE_CAP

    # ---- tabs ---------------------------------------------------------------------------
    def _adopt_page(self, page: Page) -> None:
        # New tabs (including target=_blank popups) open to the right and become active.
        self.pages.append(page)
        self.active = len(self.pages) - 1
        self._opened_pages += 1
        for event, listener in self._page_listeners.items():
            page.on(event, listener)

    def _forget_page(self, page: Page) -> None:
        self.posted.pop(page, None)
        if page in self.pages:
            index = self.pages.index(page)
            self.pages.remove(page)
            if self.active > index or self.active >= len(self.pages):
                self.active = max(self.active - 1, 0)
        self._cdp.pop(page, None)
        if self.file_chooser is not None and self.file_chooser.page is page:
            self.file_chooser = None

    def _on_download(self, download: Download) -> None:
        self._pending_downloads.append(download)  # saved while settling, outside the handler
        self._downloads_unannounced -= 1
        if self._downloads_unannounced <= 0:
            self._download_expected_until = 0.0

    def _on_crash(self, page: Page) -> None:
        self._crashed.append(page)  # replaced outside the handler, between actions

    def _on_file_chooser(self, chooser: FileChooser) -> None:
        self.file_chooser = chooser

    def _on_dialog(self, dialog) -> None:
        # Native alert/confirm boxes are accepted (the app asked, the user said OK); the
        # message is kept so the step's info can show it.
        self.dialog_messages.append(dialog.message)
        dialog.accept()

    @property
    def page(self) -> Page:
        """The active tab's page."""
        return self.pages[self.active]

    def new_tab(self, url: str | None = None) -> None:
        """Open a tab (blank or at `url`) and make it active; a refused URL opens none."""
        if url:
            url = check_navigation(url, self.allowed_ports)
        page = self.context.new_page()
        if url:
            self.goto(url, page)

    def switch_tab(self, index: int) -> None:
        """Make tab `index` active."""
        if not 0 <= index < len(self.pages):
            raise IndexError(f"there is no tab {index} (open tabs: {len(self.pages)})")
        self.active = index
        self.page.bring_to_front()

    def close_tab(self, index: int | None = None) -> None:
        """Close tab `index` (default active); the last tab is replaced by a blank one."""
        index = self.active if index is None else index
        if not 0 <= index < len(self.pages):
            raise IndexError(f"there is no tab {index} (open tabs: {len(self.pages)})")
        if len(self.pages) == 1:
            self.context.new_page()
        self.pages[index].close()

    def goto(self, url: str, page: Page | None = None) -> None:
        """Navigate (the active tab by default) after checking the URL is allowed."""
        url = check_navigation(url, self.allowed_ports)
        page = page or self.page
        try:
            page.goto(url, wait_until="commit")
        except PlaywrightError as exc:
            # Aborted navigations (blocked request, download) still leave a sane page.
            if "ERR_ABORTED" not in str(exc) and "interrupted" not in str(exc):
                raise

    def tabs(self) -> list[tuple[str, str]]:
        """(title, url) of every tab, left to right."""
        result = []
        for page in list(self.pages):  # a tab may open while titles are being read
            try:
                title = page.title()
            except PlaywrightError:
                title = ""  # mid-navigation: the old document is gone, the new not ready
            result.append((title, page.url))
        return result

    # ---- settling -----------------------------------------------------------------------
    def begin_action(self) -> None:
        """Mark the start of an agent action (tabs opened from now on are its doing)."""
        self._opened_pages = 0
        self._requests_seen = 0

    def settle(self, cap: float = 3.0, quiet_ms: float = 30.0) -> None:
        """Wait until the page is loaded, the network idle and the DOM quiet (at most `cap`).

        Also waits for tabs the page asked to open, so they show in the observation.
        """
        try:
            self._settle(cap, quiet_ms)
        finally:
            self._downloads_unannounced = 0  # what comes later belongs to the next step

    def _settle(self, cap: float, quiet_ms: float) -> None:
        started = time.monotonic()
        awaited_tabs = announced_navigation = 0
        while True:
            self._save_downloads()
            if not self.pages:
                return
            if not self._network_busy(cap):
                try:
                    state = self.page.evaluate(FRAME_STATE_JS)
                except PlaywrightError:
                    state = None  # the document was replaced by a navigation: look again
                if state is not None:
                    awaited_tabs += state["popups"]
                    if state["downloads"]:
                        self._expect_downloads(state["downloads"])
                    announced_navigation += state["navigations"]
                    elapsed = time.monotonic() - started
                    navigation_unseen = (announced_navigation and not self._requests_seen
                                         and elapsed < NAVIGATION_START_CAP)
                    settled = (state["ready"] == "complete" and state["quiet"] >= quiet_ms
                               and (state["pending"] == 0 or elapsed > PAGE_TIMER_CAP)
                               and not navigation_unseen and not self._network_busy(cap)
                               and time.monotonic() >= self._download_expected_until)
                    arrived = min(awaited_tabs, self._opened_pages)
                    awaited_tabs -= arrived
                    self._opened_pages -= arrived
                    # A download announces itself just after its request ends: if one
                    # came in while looking, go round once more to save it.
                    if settled and not (awaited_tabs or arrived or self._pending_downloads):
                        return
            if time.monotonic() - started >= cap:
                return
            # Yields to Playwright's event loop so network/page events keep arriving.
            self.page.wait_for_timeout(10)

    def _network_busy(self, cap: float) -> bool:
        # Requests older than the cap (long polls, stuck streams) do not hold settling up.
        stale = time.monotonic() - cap
        return any(began > stale for began in self._inflight.values())

    def _save_downloads(self) -> None:
        while self._pending_downloads:
            download = self._pending_downloads.pop(0)
            target = self._unique_download_path(download.suggested_filename)
            try:
                download.save_as(target)
            except PlaywrightError:
                continue  # cancelled or failed download: nothing lands, like in a browser
            data = target.read_bytes()
            self.downloads.append(SavedFile(target.name, hashlib.sha256(data).hexdigest(),
                                            len(data)))

    def _unique_download_path(self, suggested: str) -> Path:
        name = Path(suggested).name or "download"
        stem, suffix = Path(name).stem, Path(name).suffix
        candidate, copy = self.downloads_dir / name, 1
        while candidate.exists():  # what browsers do: "report (1).pdf"
            candidate = self.downloads_dir / f"{stem} ({copy}){suffix}"
            copy += 1
        return candidate

    # ---- files --------------------------------------------------------------------------
    def download_listing(self) -> list[tuple[str, int]]:
        """(name, size) of each file in the Downloads folder, by name."""
        return [(path.name, path.stat().st_size)
                for path in sorted(self.downloads_dir.iterdir()) if path.is_file()]

    def choose_file(self, name: str) -> None:
        """Answer the pending file chooser with a file from the Downloads folder."""
        if self.file_chooser is None:
            raise RuntimeError("no file dialog is open")
        path = self.downloads_dir / name
        if Path(name).name != name or not path.is_file():
            listed = ", ".join(entry for entry, _ in self.download_listing()) or "none"
            raise FileNotFoundError(f"no file {name!r} in Downloads (files: {listed})")
        chooser, self.file_chooser = self.file_chooser, None
        chooser.set_files(path)
        data = path.read_bytes()
        self.uploads.append(SavedFile(name, hashlib.sha256(data).hexdigest(), len(data)))

    def cancel_file_chooser(self) -> None:
        """Dismiss the pending file chooser without picking anything."""
        self.file_chooser = None

    # ---- pixels -------------------------------------------------------------------------
    def screenshot_png(self) -> bytes:
        """PNG of the active page's viewport (through CDP: no Playwright screenshot overhead).

        Chromium answers "Unable to capture screenshot" when the page has no frame to copy
        yet (a busy machine, a renderer just swapped); a frame comes a moment later.
        """
        def capture() -> bytes:
            result = self._send_to_page("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
            return base64.b64decode(result["data"])

        for attempt in range(1, SCREENSHOT_ATTEMPTS):
            try:
                return capture()
            except PlaywrightError as exc:
                if "Unable to capture screenshot" not in str(exc):
                    raise
            self.page.wait_for_timeout(100 * attempt)
        return capture()

    def devtools_evaluate(self, expression: str) -> Any:
        """The value of `expression` in the active page, evaluated with the DevTools
        command-line API in scope (getEventListeners)."""
        result = self._send_to_page("Runtime.evaluate", {"expression": expression, "includeCommandLineAPI": True,
                                                         "returnByValue": True})
        if "exceptionDetails" in result:
            raise PlaywrightError(f"devtools evaluation failed: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def _send_to_page(self, method: str, params: dict) -> dict:
        """A CDP command to the active page; a session left detached by a navigation (which
        swapped the tab's document host under it) is replaced once."""
        try:
            return self._cdp_session(self.page).send(method, params)
        except PlaywrightError as exc:
            if DETACHED_SESSION not in str(exc):
                raise
            self._cdp.pop(self.page, None)
            return self._cdp_session(self.page).send(method, params)

    def _cdp_session(self, page: Page) -> CDPSession:
        session = self._cdp.get(page)
        if session is None:
            session = self._cdp[page] = self.context.new_cdp_session(page)
        return session

    def close(self) -> None:
        """End the episode: stop listening; the next episode blanks its tab and wipes it."""
        for event, listener in self._listeners.items():
            self.context.remove_listener(event, listener)
        for page in self.pages:
            for event, listener in self._page_listeners.items():
                page.remove_listener(event, listener)
        for session in self._cdp.values():
            try:
                session.detach()
            except PlaywrightError:
                pass  # its page is already closed
