"""Chromium for the agent: one browser per Env (or shared by the Envs of the episodes in
flight on one thread), one sandboxed context per set of app ports, reused by episodes.

The context is the sandbox: it reaches only its Env's app ports on loopback, never the
bench ports, never another host or scheme (another lane's pages among them). Each episode
wipes it clean (`EpisodeBrowser`). Contexts never share a renderer, so a renderer that dies
takes one episode's tabs only.
"""
from __future__ import annotations

import os
import re
import socket
import threading
from pathlib import Path
from typing import Iterable

from playwright.sync_api import (
    Browser as PlaywrightBrowser,
    BrowserContext,
    CDPSession,
    Error as PlaywrightError,
    Playwright,
    sync_playwright,
)

from admindesk.harness.env.cooperative import pause
from admindesk.harness.env.episode_browser import PAGE_ACTIVITY_JS, EpisodeBrowser, renderers_grown
from admindesk.harness.env.faults import kill_process_tree
from admindesk.harness.env.login import submit_login_form
from admindesk.harness.env.sandbox import LOOPBACK_HOSTS, PAGE_LOCKDOWN_JS
from admindesk.harness.env.watchdog import Watchdog

CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 # Chromium tries ::1 first for localhost, where another process may listen
                 # on an app's port number: localhost means the apps' own address.
                 "--host-resolver-rules=MAP localhost 127.0.0.1, MAP *.localhost 127.0.0.1",
                 # Second line of defence behind PAGE_LOCKDOWN_JS: no raw UDP from WebRTC.
                 "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
                 # Every app is on 127.0.0.1, one site (ports do not make sites): its tabs
                 # share one renderer instead of one each (~20-40 MB per renderer saved).
                 # Pages render and behave the same; a renderer crash takes all app tabs.
                 "--process-per-site",
                 # Smaller caches, no spare renderer: a renderer showing a dense test table
                 # 113 -> 38 MB PSS. Three suite tasks' start screens: same pixels. (The
                 # on-device model service, ~11 MB, still starts some 3 minutes in.)
                 "--enable-low-end-device-mode",
                 # Chromium keeps its address bar's suggestion popup (a WebUI page) loaded in
                 # a renderer of its own, ~55 MB PSS after a reset; nothing ever shows it here
                 # (the harness draws its own chrome). Chromium merges this list with
                 # Playwright's own --disable-features.
                 "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup"]
# The driver's young generation (V8 semi-spaces, 16 MB each by default) holds little for
# long; 1 MB semi-spaces keep it ~18 MB smaller at the cost of more frequent scavenges.
DRIVER_NODE_OPTIONS = "--max-semi-space-size=1"

NAVIGATION_TIMEOUT_MS = 10_000

_DRIVERS = threading.local()


def _sandboxed_context(chromium: PlaywrightBrowser, ports: list[int],
                       viewport: tuple[int, int], dead_proxy_port: int) -> BrowserContext:
    """A context that reaches only `ports` on loopback, with the page-activity probe.

    Every connection except to the app ports goes to a proxy port that refuses it, in
    Chromium's network stack: every socket it opens, ahead of a navigation or after a
    redirect, for any frame, worker or popup. Playwright adds `<-loopback>`, so other
    loopback ports (the apps' bench ports among them) are proxied (refused) too. What the
    app ports serve that the page must not use is refused by the apps themselves (no
    bench API there; the APIs not for browsers, request_guards.py), so no request is
    intercepted: interception would cost every request a round trip through the driver
    and turn off the HTTP cache.
    """
    bypass = ",".join(f"{host}:{port}" for host in LOOPBACK_HOSTS for port in ports)
    context = chromium.new_context(
        viewport={"width": viewport[0], "height": viewport[1]},
        accept_downloads=True, service_workers="block", locale="en-US",
        timezone_id="America/New_York",
        proxy={"server": f"http://{LOOPBACK_HOSTS[0]}:{dead_proxy_port}", "bypass": bypass})
    # A hung app must cost the agent an action error soon, not Playwright's 30 s default.
    context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
    context.add_init_script(PAGE_LOCKDOWN_JS)
    context.add_init_script(PAGE_ACTIVITY_JS)
    context.route_web_socket(re.compile(".*"), lambda web_socket: web_socket.close())
    return context


def acquire_playwright() -> Playwright:
    """This thread's Playwright driver, started on first use.

    The sync API allows one driver per thread, so Envs living in the same thread share it
    (each still has its own Chromium).
    """
    if getattr(_DRIVERS, "users", 0) == 0:
        _DRIVERS.driver = _start_driver()
        _DRIVERS.users = 0
    _DRIVERS.users += 1
    return _DRIVERS.driver


def _start_driver() -> Playwright:
    """Start a Playwright driver whose node process runs with DRIVER_NODE_OPTIONS.

    The driver takes its environment from os.environ when it starts; nothing else reads
    NODE_OPTIONS, and the caller's own value (if any) is kept and restored.
    """
    previous = os.environ.get("NODE_OPTIONS")
    os.environ["NODE_OPTIONS"] = f"{previous} {DRIVER_NODE_OPTIONS}" if previous else DRIVER_NODE_OPTIONS
    try:
        return sync_playwright().start()
    finally:
        if previous is None:
            del os.environ["NODE_OPTIONS"]
        else:
            os.environ["NODE_OPTIONS"] = previous


def release_playwright() -> None:
    """Give back this thread's driver; the last user stops it."""
    _DRIVERS.users -= 1
    if _DRIVERS.users == 0:
        _DRIVERS.driver.stop()
        _DRIVERS.driver = None


class Browser:
    """One Chromium process driven by Playwright; episodes get fresh contexts from it."""

    def __init__(self, *, headless: bool = True, executable_path: str = CHROMIUM_PATH,
                 extra_args: Iterable[str] = ()) -> None:
        self._playwright = acquire_playwright()
        self._launch_options = {"executable_path": executable_path, "headless": headless,
                                "args": [*CHROMIUM_ARGS, *extra_args]}
        self.pid: int | None = None
        # Kills this Chromium when a guarded call (`deadline`) never answers.
        self.watchdog = Watchdog(self.kill)
        self._browser_session: CDPSession | None = None
        # Counts launches: an Env that saw the browser fail relaunches it only if nobody has since
        # (and none does while another is relaunching it).
        self.launches = 0
        self._relaunching = False
        try:
            self._launch()
        except BaseException:
            self._playwright = None
            release_playwright()
            raise
        # Bound and never listening: connections to it are refused, and no other process
        # can take the port while this Browser lives.
        self._dead_proxy = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._dead_proxy.bind((LOOPBACK_HOSTS[0], 0))
        # (app ports, viewport) -> its sandboxed context: one per Env using this browser.
        self._contexts: dict[tuple[tuple[int, ...], tuple[int, int]], BrowserContext] = {}

    def _launch(self) -> None:
        self.chromium: PlaywrightBrowser = self._playwright.chromium.launch(**self._launch_options)
        self.launches += 1
        self._browser_session = None
        processes = self._processes()
        self.pid = next(process["id"] for process in processes if process["type"] == "browser")

    def kill(self) -> None:
        """SIGKILL this Chromium's whole process tree; any call blocked on it then ends.

        Safe from any thread (it makes no Playwright call): the watchdog's way out.
        """
        if self.pid is not None:
            kill_process_tree(self.pid)

    def relaunch(self, seen_launch: int | None = None) -> None:
        """Kill this Chromium and start another (its contexts go with it).

        `seen_launch`: the `launches` count when the caller saw it fail; if another Env
        sharing this browser has relaunched it since, the new one is kept.
        """
        if self._relaunching:  # another Env sharing this browser is at it: its new one will do
            while self._relaunching:
                pause(0.05)
            return
        if seen_launch is not None and seen_launch != self.launches and self.chromium.is_connected():
            return
        self._relaunching = True
        try:
            self._relaunch()
        finally:
            self._relaunching = False

    def _relaunch(self) -> None:
        self.kill()
        self._contexts = {}
        try:
            self.chromium.close()  # disconnected already: only frees the driver's objects
        except PlaywrightError:
            pass
        self._launch()

    def deadline(self, seconds: float, what: str):
        """Guard a block of calls on this browser: past `seconds` Chromium is killed and
        the block raises BrowserWedged (from the error of the call it ended, if any)."""
        return self.watchdog.deadline(seconds, what)

    def new_episode(self, allowed_ports: Iterable[int], downloads_dir: Path,
                    viewport: tuple[int, int], *, fresh_context: bool = False) -> "EpisodeBrowser":
        """The browser of one episode, wiped clean of everything the last one left.

        The sandboxed context is kept while the ports and viewport stay the same: a new
        context costs a renderer process start (~150-250 ms), while wiping cookies,
        storage and tabs costs a few ms, and nothing the apps serve survives it.
        `fresh_context` replaces it anyway (a tab of the last episode would not stop).
        """
        ports = sorted(allowed_ports)
        key = (tuple(ports), viewport)
        if self._relaunching or not self.chromium.is_connected():  # Chromium itself died: start another
            self.relaunch(self.launches)
        context = self._contexts.get(key)
        if fresh_context or context is None:
            self._close_context(key)
            context = self._contexts[key] = _sandboxed_context(self.chromium, ports, viewport,
                                                               self._dead_proxy.getsockname()[1])
        return EpisodeBrowser(context, ports, downloads_dir,
                              fresh_renderer=renderers_grown(self.renderer_pids(), len(self._contexts)))

    def renderer_pids(self) -> list[int]:
        """The process ids of this Chromium's renderers, as Chromium itself lists them (other
        browsers in the same process tree, a test's for one, are not this one's)."""
        return [process["id"] for process in self._processes() if process["type"] == "renderer"]

    def _processes(self) -> list[dict]:
        if self._browser_session is None:
            self._browser_session = self.chromium.new_browser_cdp_session()
        return self._browser_session.send("SystemInfo.getProcessInfo")["processInfo"]

    def sign_in(self, context: BrowserContext, login_url: str, username: str,
                password: str) -> None:
        """Submit an app's login form and give `context` the session cookie it set.

        Posted through a fresh request client outside the context (the context's own would
        go through its refusing proxy): the app sees the request its form would send.
        """
        client = self._playwright.request.new_context()
        try:
            submit_login_form(client, login_url, username, password)
            context.add_cookies(client.storage_state()["cookies"])
        finally:
            client.dispose()

    def _close_context(self, key: tuple[tuple[int, ...], tuple[int, int]]) -> None:
        context = self._contexts.pop(key, None)
        if context is not None:
            try:
                context.close()
            except PlaywrightError:
                pass  # the browser is already gone

    def close(self) -> None:
        """Close Chromium and the Playwright driver (idempotent)."""
        if self._playwright is None:
            return
        try:
            for key in list(self._contexts):
                self._close_context(key)
            self.chromium.close()
            self._dead_proxy.close()
        finally:
            self._playwright = None
            release_playwright()
