"""Hostile and random values posted to every POST route of every app: no server error, and
a refused request writes nothing.

The forms come from a signed-in crawl of the app, so every other field keeps the value the
page offered (valid ids, selected options): the success paths are reached too, not only
the validation. POST routes no crawled page offers a form for are still posted to, with ids
seen in crawled URLs. A response that is not a redirect (the apps' success pattern) is a
refusal, and the database must be exactly as before it.
"""
from __future__ import annotations

import importlib
import re
from collections import Counter
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sqlalchemy import event
from sqlalchemy.engine import Engine
from werkzeug.exceptions import HTTPException

from .conftest import FormClient, build_app
from .crawler import PageForm, crawl

APPS = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
EXAMPLES_PER_APP = 250
# Tables that change on any request, refused or not (the audit trail, page-view counters).
EVERY_REQUEST_TABLES = {"audit_events", "session_activity"}

HOSTILE_VALUES = [
    "", " ", "\x00", "\t\n", "0", "-1", "1.5", "NaN", "1e309", "99999999999999999999999",
    "9223372036854775808", "-9223372036854775809", "2026-02-30", "0000-00-00", "9999-12-31",
    "12/31/1899", "2026-13-01T25:61", "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>",
    "' OR 1=1 --", "../../etc/passwd", "%00", "{{7*7}}", "${7*7}", "\u202eevil", "\ud7ff\ufffd",
    "\U0001d518\U0001d52b", "null", "[]", "{}", "true", "A" * 5000, "line1\r\nline2",
    "555-0100", "(000) 000-0000", "E1000234", "G20", "72148", "CO-197",
]
values = st.one_of(st.sampled_from(HOSTILE_VALUES), st.text(max_size=40))
IDS = st.one_of(st.sampled_from(["0", "-1", "99999999", "9223372036854775808", "abc", "%2e%2e"]),
                st.integers(min_value=0, max_value=10**6).map(str))


@pytest.fixture(scope="module", params=APPS)
def app(request, app_data_dir):
    create_app = importlib.import_module(f"admindesk.envs.{request.param}").create_app
    return build_app(create_app, app_data_dir / f"fuzz-{request.param}")


@pytest.fixture(scope="module")
def targets(app) -> list[PageForm]:
    """One form per POST route: the one a crawled page offered, else the route built with
    argument values seen in the crawled URLs (and no fields)."""
    client = FormClient(app)
    client.reset()
    client.login()
    walk = crawl(app, client)
    adapter = app.url_map.bind("localhost")
    forms_by_rule: dict[str, PageForm] = {}
    seen_args: dict[str, set] = {}
    for path in [*walk.pages, *walk.post_forms]:
        for method in ("GET", "POST"):
            try:
                endpoint, args = adapter.match(urlsplit(path).path, method=method)
            except HTTPException:
                continue
            for name, value in args.items():
                seen_args.setdefault(name, set()).add(value)
            if method == "POST" and path in walk.post_forms:
                forms_by_rule.setdefault(endpoint, walk.post_forms[path])
    for rule in app.url_map.iter_rules():
        if "POST" not in rule.methods or rule.endpoint in forms_by_rule or rule.rule.startswith("/_bench"):
            continue
        if rule.rule == "/logout" or not all(name in seen_args for name in rule.arguments):
            continue
        values_for = {name: sorted(seen_args[name], key=str)[0] for name in rule.arguments}
        forms_by_rule[rule.endpoint] = PageForm(action=adapter.build(rule.endpoint, values_for), method="post")
    return [forms_by_rule[endpoint] for endpoint in sorted(forms_by_rule)]


class CommittedWrites:
    """The tables that committed INSERT/UPDATE/DELETE statements wrote to, from any engine.

    Cheaper than comparing the database before and after each request (the EHR's has
    ~10,000 rows), and exact: a write that was rolled back is no write.
    """

    DML = re.compile(r'^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)', re.IGNORECASE)

    def __init__(self):
        self.tables: list[str] = []
        self._pending: dict[int, list[str]] = {}

    def __enter__(self) -> "CommittedWrites":
        event.listen(Engine, "before_cursor_execute", self._executed)
        event.listen(Engine, "commit", self._committed)
        event.listen(Engine, "rollback", self._rolled_back)
        return self

    def __exit__(self, *_exc) -> None:
        event.remove(Engine, "before_cursor_execute", self._executed)
        event.remove(Engine, "commit", self._committed)
        event.remove(Engine, "rollback", self._rolled_back)

    def _executed(self, connection, _cursor, statement, *_args) -> None:
        match = self.DML.match(statement)
        if match and match.group(1) not in EVERY_REQUEST_TABLES:
            self._pending.setdefault(id(connection), []).append(match.group(1))

    def _committed(self, connection) -> None:
        self.tables += self._pending.pop(id(connection), [])

    def _rolled_back(self, connection) -> None:
        self._pending.pop(id(connection), None)

    def take(self) -> list[str]:
        """The tables written since the last call."""
        tables, self.tables = self.tables, []
        return tables


@st.composite
def hostile_submissions(draw, forms: list[PageForm]) -> tuple[str, list[tuple[str, str]]]:
    """A form with some fields replaced, dropped or added, and maybe an id in its path swapped."""
    form = draw(st.sampled_from(forms))
    fields = []
    if draw(st.integers(0, 9)) == 0:  # the posting client adds its valid token otherwise
        fields.append(("csrf_token", draw(values)))
    for name, default in form.fields:
        if name == "csrf_token":
            continue
        treatment = draw(st.sampled_from(["keep", "keep", "hostile", "drop"]))
        if treatment == "keep":
            fields.append((name, default))
        elif treatment == "hostile":
            fields.append((name, draw(values)))
    if draw(st.booleans()):
        fields.append((draw(st.sampled_from([name for name, _ in form.fields] or ["note"])), draw(values)))
    action = form.action
    segments = action.split("?")[0].split("/")
    numeric = [i for i, segment in enumerate(segments) if segment.isdigit()]
    if numeric and draw(st.integers(0, 4)) == 0:
        segments[draw(st.sampled_from(numeric))] = draw(IDS)
        action = "/".join(segments)
    return action, fields


@pytest.mark.slow
def test_hostile_posts_never_error_and_refusals_write_nothing(app, targets):
    assert len(targets) >= 3, "the crawl found almost no POST forms"
    client = FormClient(app)
    client.reset()
    client.login()
    outcomes: Counter = Counter()

    @settings(max_examples=EXAMPLES_PER_APP, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(submission=hostile_submissions(targets))
    def post_one(submission):
        action, fields = submission
        data = {}
        for name, value in fields:
            data.setdefault(name, []).append(value)
        writes.take()
        response = client.post(action, data)
        assert response.status_code < 500, f"{action}: {response.status_code}"
        outcomes[response.status_code] += 1
        written = writes.take()
        if response.status_code not in (302, 303):
            assert not written, f"refused {action} ({response.status_code}) wrote to {sorted(set(written))}"

    with CommittedWrites() as writes:
        post_one()
    assert outcomes[302] + outcomes[303] > 0, f"no post succeeded: {dict(outcomes)}"
    assert sum(outcomes.values()) - outcomes[302] - outcomes[303] > 0, f"nothing was refused: {dict(outcomes)}"

