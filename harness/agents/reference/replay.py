"""Record what a reference solution reads from its Env, and replay the solution without a browser.

An ablation of phase k takes the reference's own steps up to k, action for action (the
world is deterministic), and most ablations then end at once: a later phase needs what k
would have read, and the work stops with a `done`. Replaying the solution over the
reference's calls tells, with no browser and in milliseconds, whether the ablated solution
does anything past k but that `done`; when it does not, its episode ends in the state the
reference's apps held when the reference reached k.

    log = CallLog()
    solve(Work(Recording(env, log), task))      # the reference, logged; at phase k the log holds n calls
    ending = replay_ablation(lambda replayed: ReferenceAgent(skip=k).drive(replayed, task),
                             log[:n], PhaseEnd(...))   # None: the ablation must run live

An ablation that acts past phase k (GoesOn) need not replay the reference's steps either: a
later episode takes up the reference's state at k (Env.resume) and `handed_over(log[:n], env)`
answers the ablated solution's calls from the log until it is spent, then passes them to the
Env, the Locators the solution got from the log rebuilt on the Env's pages.

Every value the solution gets from the Env (a step's observation, a box, a text, an
exception) is logged under a key naming the call and its arguments; a Playwright Locator is
not a value (it reads nothing until asked) and is stood in for by another recorder.
"""
from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from playwright.sync_api import Locator

from admindesk.harness.env.actions import parse_action
from admindesk.harness.env.observation import Observation


class PhaseWatcher(Protocol):
    """Follows a reference episode: the Env its solution works on, and each phase it reaches."""

    def watch(self, env: Any) -> Any:
        """The Env the solution is to work on (e.g. a Recording of `env`)."""

    def reached(self, subtask: str) -> None:
        """The work reached `subtask` (before its actions)."""


class Diverged(Exception):
    """The replayed solution made a call the log does not have next (or one past its end)."""


@dataclass(frozen=True)
class Call:
    """One value the solution read: `key` names the call, `value` is what it returned
    (`error` what it raised)."""

    key: str
    value: Any = None
    error: BaseException | None = None


class CallLog(list):
    """The calls a solution made on its Env, in order."""


@dataclass(frozen=True)
class _Stand:
    """A Locator in the log: the object at `key`, read through later calls; `origin` is how
    it was got (the object it came from, the attribute, its arguments, its index in a list)."""

    key: str
    origin: tuple[str, str, tuple | None, dict | None, int | None]


def call_key(path: str, name: str, args: tuple | None = None, kwargs: dict | None = None) -> str:
    """`path.name` for an attribute, `path.name(args)` for a call."""
    if args is None:
        return f"{path}.{name}"
    shown = [repr(arg) for arg in args] + [f"{key}={value!r}" for key, value in sorted((kwargs or {}).items())]
    return f"{path}.{name}({', '.join(shown)})"


class Recording:
    """Stands in for `target` (the Env, a Locator): passes every call through and logs its result."""

    def __init__(self, target: Any, log: CallLog, path: str = "env") -> None:
        self._target, self._log, self._path = target, log, path

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not callable(value):
            return self._logged(call_key(self._path, name), value, (name, None, None))

        def call(*args: Any, **kwargs: Any) -> Any:
            key = call_key(self._path, name, args, kwargs)
            try:
                result = value(*args, **kwargs)
            except Exception as exc:
                self._log.append(Call(key, error=exc))
                raise
            return self._logged(key, result, (name, args, kwargs))
        return call

    def _logged(self, key: str, value: Any, how: tuple[str, tuple | None, dict | None]) -> Any:
        """Log `value`, got by `how` (attribute name, call arguments or None); a Locator (or a
        list of them) is logged as a stand-in and handed out recorded."""
        name, args, kwargs = how
        if isinstance(value, Locator):
            self._log.append(Call(key, _Stand(key, (self._path, name, args, kwargs, None))))
            return Recording(value, self._log, key)
        if isinstance(value, list) and value and all(isinstance(item, Locator) for item in value):
            keys = [f"{key}[{n}]" for n in range(len(value))]
            self._log.append(Call(key, [_Stand(item_key, (self._path, name, args, kwargs, n))
                                        for n, item_key in enumerate(keys)]))
            return [Recording(item, self._log, item_key) for item, item_key in zip(value, keys, strict=True)]
        # A copy: the solution may change what it got (sort a list), and the replay must hand
        # out what the Env returned.
        self._log.append(Call(key, copy.deepcopy(value)))
        return value


@dataclass(frozen=True)
class PhaseEnd:
    """The reference's episode when it reached a phase: what the Env would answer past the log."""

    over: bool  # the Env's episode_over then
    steps: int  # steps taken so far
    url: str  # the active tab's URL


@dataclass
class Ending:
    """How a replayed ablation ended: its `done` action as the Env logs it and that done's
    answer (None: it sent none), and the note a stopped scripted agent leaves."""

    done_action: dict | None = None
    answer: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class GoesOn:
    """The ablated solution acts past the phase end (`call`, its first call past the log): its
    episode goes on from the reference's state there."""

    call: str


class _Cursor:
    """The replay's place in the log. Past its end only the episode's end is answered, or,
    handed over to a `live` Env, every call goes to it."""

    def __init__(self, log: list[Call], end: PhaseEnd | None, live: Any = None) -> None:
        self.log, self.position, self.end, self.ending = log, 0, end, Ending()
        self.live, self.goes_on = live, None
        self._origins: dict[str, tuple] = {}  # stand-in key -> how the Locator was got
        self._live_objects: dict[str, Any] = {}

    @property
    def spent(self) -> bool:
        return self.position >= len(self.log)

    def live_object(self, path: str) -> Any:
        """The live Env (path "env") or the Locator a stand-in stands for, rebuilt on it."""
        if path == "env":
            return self.live
        if path not in self._live_objects:
            parent, name, args, kwargs, index = self._origins[path]
            got = getattr(self.live_object(parent), name)
            got = got if args is None else got(*args, **kwargs)
            self._live_objects[path] = got if index is None else got[index]
        return self._live_objects[path]

    def take(self, key: str) -> Call:
        if self.position >= len(self.log):
            raise Diverged(f"{key} past the reference's phase end")
        entry = self.log[self.position]
        if entry.key != key:
            raise Diverged(f"{key}, where the reference made {entry.key}")
        self.position += 1
        return entry

    def next_key(self) -> str | None:
        return self.log[self.position].key if self.position < len(self.log) else None

    def result(self, entry: Call) -> Any:
        if entry.error is not None:
            raise entry.error
        if isinstance(entry.value, _Stand):
            return self._stand_in(entry.value)
        if isinstance(entry.value, list) and entry.value and all(isinstance(item, _Stand) for item in entry.value):
            return [self._stand_in(item) for item in entry.value]
        return copy.deepcopy(entry.value)

    def _stand_in(self, stand: _Stand) -> Replay:
        self._origins[stand.key] = stand.origin
        return Replay(self, stand.key)


# The Env's own folders, which each episode has afresh: a handed-over solution is given the
# live Env's (where the files kept up to the handover were put back), not the reference's.
EPISODE_FOLDERS = ("env.downloads_dir",)


class Replay:
    """Stands in for the Env (or a Locator) of a replayed solution: answers from the log."""

    channel = "screens"  # what the reference agent asks its Env first (Recording follows screens only)

    def __init__(self, cursor: _Cursor, path: str = "env") -> None:
        self._cursor, self._path = cursor, path

    def __getattr__(self, name: str) -> Any:
        cursor = self._cursor
        if cursor.live is not None and cursor.spent:
            return getattr(cursor.live_object(self._path), name)
        attribute = call_key(self._path, name)
        upcoming = cursor.next_key()
        if upcoming == attribute:
            entry = cursor.take(attribute)
            if cursor.live is not None and attribute in EPISODE_FOLDERS:
                return getattr(cursor.live, name)
            return cursor.result(entry)
        if upcoming is not None and upcoming.startswith(attribute + "("):
            return lambda *args, **kwargs: cursor.result(cursor.take(call_key(self._path, name, args, kwargs)))
        if upcoming is None and self._path == "env":
            return self._past_the_log(name)
        if upcoming is None:
            cursor.goes_on = GoesOn(attribute)  # it reads a page past the phase end
        raise Diverged(f"{attribute}, where the reference made {upcoming or 'no further call'}")

    def _past_the_log(self, name: str) -> Any:
        """What the Env answers once the log is spent: whether the episode is over, and a `done`."""
        cursor = self._cursor
        if cursor.ending.done_action is not None:
            raise Diverged(f"env.{name} after the episode's done")
        if name == "episode_over":
            return cursor.end.over
        if name != "step":
            cursor.goes_on = GoesOn(f"env.{name}")
            raise Diverged(f"env.{name} past the reference's phase end")

        def step(action: Any) -> tuple[Observation, bool, bool, dict]:
            parsed = parse_action(action)
            if parsed.type != "done":
                cursor.goes_on = GoesOn(f"a {parsed.type} action")
                raise Diverged(f"a {parsed.type} action past the reference's phase end")
            cursor.ending.done_action, cursor.ending.answer = parsed.model_dump(), parsed.answer
            end = cursor.end
            obs = Observation(url=end.url, tabs=[], active_tab=0, downloads=[], step=end.steps + 1)
            return obs, True, False, {}
        return step


def replay_ablation(drive: Callable[[Any], str | None], log: list[Call], end: PhaseEnd) -> Ending | GoesOn | None:
    """Replay `drive(env)` (an ablated reference episode, returning a stopped agent's note) over
    the reference's `log` up to a phase end. Its Ending when it sends nothing past the log but
    a `done`; GoesOn when it follows the log to its end and then does more; None when it
    diverges from the log, breaks, or ends before the log's end (it must be run live)."""
    cursor = _Cursor(log, end)
    try:
        note = drive(Replay(cursor))
    except Exception:  # Diverged, or the ablated solution breaks: the live run shows how
        return cursor.goes_on if cursor.spent else None
    if not cursor.spent:
        return None  # ended before the phase end: it does not run the reference's course
    cursor.ending.note = note
    return cursor.ending


@dataclass(frozen=True)
class Resumption:
    """Where an ablation takes up the reference's episode: the Env's checkpoint when the
    reference reached phase `at` (Env.checkpoint) and its solution's calls until then."""

    at: str
    checkpoint: Any
    log: list[Call]

    def __str__(self) -> str:  # as run.json shows the agent's options
        return f"the reference's state when it reached {self.at}"


def handed_over(log: list[Call], env: Any) -> Replay:
    """An Env for a solution that takes up the reference's episode where `log` ends (`env`
    holds the reference's state there, see Env.resume): the log answers until it is spent,
    `env` after. A call the log does not have next raises Diverged."""
    return Replay(_Cursor(log, None, live=env))
