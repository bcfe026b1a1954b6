"""App-tier fixtures: each app on a temp data folder, driven by the Flask test client."""
from __future__ import annotations

import importlib
import re
import tempfile
import threading
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from werkzeug.serving import make_server

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.ehr_web.models import Order, OrderAuthorization

TOKEN = "test-bench-token"
CSRF_PATTERN = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


@pytest.fixture(scope="session")
def app_data_dir(tmp_path_factory):
    """One folder for the whole session so each app's template is built once."""
    return tmp_path_factory.mktemp("app-data")


# Templates are keyed by a hash of their inputs, so test workers and runs can share them.
TEMPLATE_CACHE = Path(tempfile.gettempdir()) / "admindesk-test-templates"


def build_app(create_app, data_dir, tasks_dir: Path | None = None) -> Flask:
    extra = {} if tasks_dir is None else {"tasks_dir": tasks_dir}
    return create_app(AppConfig(data_dir=data_dir, token=TOKEN, testing=True, cache_dir=TEMPLATE_CACHE, **extra))


def case_clients(data_dir: Path, names, tasks_dir: Path | None = None) -> dict[str, "FormClient"]:
    """A client per app (by package name), each app on its own folder under `data_dir`; a client
    starts a task's case with `start_task`."""
    return {name: FormClient(build_app(importlib.import_module(f"admindesk.envs.{name}").create_app,
                                       data_dir / name, tasks_dir)) for name in names}


class FormClient:
    """A test client that signs in and sends forms with a valid CSRF token."""

    def __init__(self, app: Flask):
        self.app = app
        self.client: FlaskClient = app.test_client()
        self._token: str | None = None

    def csrf_token(self) -> str:
        if self._token is None:
            page = self.client.get("/login").get_data(as_text=True)
            self._token = CSRF_PATTERN.search(page).group(1)
        return self._token

    def login(self, username: str = "coordinator", password: str = "admindesk"):
        response = self.post("/login", {"username": username, "password": password})
        self._token = None  # signing in starts a new session with a new token
        return response

    def get(self, url: str, **kwargs):
        return self.client.get(url, **kwargs)

    def post(self, url: str, data: dict | None = None, **kwargs):
        data = dict(data or {})
        data.setdefault("csrf_token", self.csrf_token())
        return self.client.post(url, data=data, **kwargs)

    def reset(self, now: str | None = None):
        body = {"now": now} if now else {}
        response = self.client.post("/_bench/reset", json=body, headers={"X-Bench-Token": TOKEN})
        assert response.status_code == 200, response.get_data(as_text=True)
        self._token = None
        return response

    def start_task(self, task_id: str, now: str | None = None) -> dict:
        """Reset to the task's case (its clock at `now` if given), sign in, and return the snapshot."""
        body = {"task": task_id, **({"now": now} if now else {})}
        response = self.client.post("/_bench/reset", json=body, headers={"X-Bench-Token": TOKEN})
        assert response.status_code == 200, response.get_data(as_text=True)
        self._token = None
        self.login()
        return self.snapshot()

    def snapshot(self) -> dict:
        response = self.client.get("/_bench/snapshot", headers={"X-Bench-Token": TOKEN})
        assert response.status_code == 200
        return response.get_json()


def query(app, stmt) -> list:
    """The rows `stmt` selects from the app's live database."""
    with app.extensions["admindesk"].db.new_session() as session:
        return list(session.scalars(stmt))


def endpoint_audit_rows(client, endpoint: str) -> list[dict]:
    """The audit trail's rows for one endpoint, from a snapshot."""
    return [row for row in client.snapshot()["audit_events"] if row["endpoint"] == endpoint]


@pytest.fixture(scope="module")
def open_order(app):
    """An open order of the module's EHR `app` that needs auth and has none recorded yet."""
    return query(app, select(Order).join(OrderAuthorization).where(
        Order.needs_auth, Order.status == "Ordered", OrderAuthorization.status == "Not Started")
        .order_by(Order.id).limit(1))[0]


@pytest.fixture
def client(app):
    """A client signed in as the coordinator on a fresh reset of the module's `app`."""
    client = FormClient(app)
    client.reset()
    client.login()
    return client


@pytest.fixture
def snap(client):
    """The snapshot right after `client` signed in."""
    return client.snapshot()


class LiveServer:
    """One app served on a free loopback port from a thread, for real-Chromium tests."""

    def __init__(self, app: Flask):
        self.app = app
        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def reset(self) -> None:
        self.app.extensions["admindesk"].reset()

    def close(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)


@pytest.fixture(scope="module")
def serve_live():
    """Factory: `serve_live(app)` -> LiveServer, shut down at the end of the module."""
    servers = []

    def start(app: Flask) -> LiveServer:
        servers.append(LiveServer(app))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def live(app, serve_live):
    """The module's `app` served live for Chromium, freshly reset."""
    server = serve_live(app)
    server.reset()
    return server


def login_in_browser(page, base_url: str, username: str = "coordinator", password: str = "admindesk"):
    """Sign in through the real login form."""
    page.goto(f"{base_url}/login")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login" not in url)
