"""Deadlines for browser calls that may never answer.

A Playwright sync call cannot be cancelled from another thread: the driver connection
belongs to the thread that made the call. What does end it is the browser going away, so
a deadline acts from outside, as the kernel's OOM killer would: it kills the browser's
processes, the blocked call then fails (or returns), and the caller starts a new browser.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# Each browser call (or group of calls) of an episode's set-up must answer within this much
# beyond its own timeouts; past it Chromium is killed and relaunched.
BROWSER_CALL_DEADLINE = 5.0


class BrowserWedged(RuntimeError):
    """A browser call outlived its deadline; the browser was killed to end it."""


class Watchdog:
    """Runs `on_expiry` (from a timer thread) when a guarded block outlives its deadline."""

    def __init__(self, on_expiry: Callable[[], None]) -> None:
        self._on_expiry = on_expiry
        self.expiries = 0  # blocks that hit their deadline, over this watchdog's life

    @contextmanager
    def deadline(self, seconds: float, what: str) -> Iterator[None]:
        """Guard the block: past `seconds`, `on_expiry` runs and the block raises
        BrowserWedged once it returns or fails (the expiry is what ends it)."""
        lock, state = threading.Lock(), {"done": False, "fired": False}

        def expire() -> None:
            with lock:  # a block that just finished is not killed
                if state["done"]:
                    return
                state["fired"] = True
            self.expiries += 1
            self._on_expiry()

        timer = threading.Timer(seconds, expire)
        timer.daemon = True
        timer.start()
        ended_by: BaseException | None = None
        try:
            yield
        except Exception as exc:  # a call the kill ended fails; the deadline is the cause
            ended_by = exc
        finally:
            with lock:
                state["done"] = True
            timer.cancel()
        if state["fired"]:
            raise BrowserWedged(f"{what} did not answer in {seconds:g} s; the browser was killed") from ended_by
        if ended_by is not None:
            raise ended_by
