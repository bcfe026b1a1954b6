"""Waiting on one episode without holding up the other episodes in flight on its thread.

Many episodes share one Playwright driver (and one Chromium) by running as greenlets on the
driver's thread (`running/inflight.py`): the sync API's calls already hand the thread to the
driver's dispatcher while they wait, so the episodes' browser calls interleave. Anything else
an episode waits on (an app's bench reply, a model's answer, both from a thread pool) is waited
on here, the same way: the dispatcher runs the driver's event loop (every other episode's
browser calls) until the future is done. On a thread without a driver it is a plain wait.

The dispatcher and its loop are Playwright internals (`playwright._impl._greenlets`); the sync
API is built on them, and tests/harness/test_inflight.py fails if they move.
"""
from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any, Callable, TypeVar

import greenlet
from playwright._impl._greenlets import wait_for_future

T = TypeVar("T")
_THREAD = threading.local()


def share_driver(driver: Any | None) -> None:
    """Mark `driver` (a started sync Playwright) as this thread's: waits here yield to it.
    None unmarks it."""
    _THREAD.driver = driver


def wait_for(future: "Future[T]") -> T:
    """The future's result, letting this thread's other episodes run meanwhile."""
    driver = getattr(_THREAD, "driver", None)
    if driver is None or future.done():
        return future.result()
    loop = driver._loop
    mirror = asyncio.wrap_future(future, loop=loop)
    wait_for_future(loop, driver._dispatcher_fiber, mirror)
    if not mirror.cancelled():
        mirror.exception()  # marked as seen: the caller gets it from `future`
    return future.result()


def pause(seconds: float) -> None:
    """Sleep `seconds`, letting this thread's other episodes run meanwhile."""
    done: Future[None] = Future()
    timer = threading.Timer(seconds, done.set_result, (None,))
    timer.daemon = True
    timer.start()
    try:
        wait_for(done)
    finally:
        timer.cancel()


class Gate:
    """At most `width` of a thread's lanes inside at once; the others wait their turn, in order,
    letting the rest run. Used from one thread (its lanes), so it needs no lock."""

    def __init__(self, width: int) -> None:
        if width < 1:
            raise ValueError(f"a gate's width must be at least 1, not {width}")
        self._free = width
        self._waiting: deque[Future[None]] = deque()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Inside the gate for the block."""
        if self._free:
            self._free -= 1
        else:
            turn: Future[None] = Future()
            self._waiting.append(turn)
            wait_for(turn)  # a leaving holder hands its place over
        try:
            yield
        finally:
            if self._waiting:
                self._waiting.popleft().set_result(None)
            else:
                self._free += 1


def run_lanes(driver: Any, bodies: list[Callable[[], Any]]) -> list["Future[Any]"]:
    """Run each body as an episode lane on this thread, which owns `driver`, until all end;
    returns their outcomes (done futures: a result, or the exception a body raised).

    Each lane is a greenlet started from the driver's event loop (as the sync API starts its
    event handlers), so when one ends the loop goes on with the others.
    """
    share_driver(driver)
    loop = driver._loop
    outcomes: list[Future[Any]] = [Future() for _ in bodies]
    all_ended: Future[None] = Future()
    left = [len(bodies)]

    def lane(body: Callable[[], Any], outcome: "Future[Any]") -> None:
        try:
            outcome.set_result(body())
        except BaseException as exc:  # the caller reads it from the outcome
            outcome.set_exception(exc)
        left[0] -= 1
        if not left[0]:
            all_ended.set_result(None)

    for body, outcome in zip(bodies, outcomes):
        loop.call_soon(lambda body=body, outcome=outcome: greenlet.greenlet(lane).switch(body, outcome))
    try:
        if bodies:
            wait_for(all_ended)
    finally:
        share_driver(None)
    return outcomes
