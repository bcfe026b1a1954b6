"""Interruptions a real working day has (an alert, a "what's new" modal, a busy fax line).

Each is off unless a task turns it on in its file (`interruptions: {app: [name, ...]}`);
the task's template then holds the list in `bench_state`, so an episode's interruptions
are as deterministic as the rest of its state and show in the snapshot.
"""
from __future__ import annotations

import json

from flask import current_app, g

from admindesk.envs.common.state.kit_models import BenchState

INTERRUPTIONS_KEY = "interruptions"


def enabled(name: str) -> bool:
    """True when the current episode's task turned interruption `name` on in this app."""
    if "interruptions" not in g:
        session = current_app.extensions["admindesk"].db.request_session()
        row = session.get(BenchState, INTERRUPTIONS_KEY)
        g.interruptions = frozenset(json.loads(row.value)) if row else frozenset()
    return name in g.interruptions


def state_row(names: list[str]) -> BenchState:
    """The `bench_state` row that turns `names` on (stored sorted, so templates are stable)."""
    return BenchState(key=INTERRUPTIONS_KEY, value=json.dumps(sorted(set(names))))
