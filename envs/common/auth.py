"""Login with seeded staff accounts; every page but the login page needs a session."""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, current_app, g, redirect, render_template, request, session, url_for
from sqlalchemy import select
from werkzeug.security import check_password_hash

from admindesk.envs.common.api_access import is_api_endpoint
from admindesk.envs.common.audit import describe
from admindesk.envs.common.messages import message
from admindesk.envs.common.state.kit_models import StaffUser

auth = Blueprint("auth", __name__)
PUBLIC_ENDPOINTS = {"auth.login", "static", "common.static", "favicon"}


def _safe_next(target: str | None) -> str | None:
    """Only same-site relative paths: never an open redirect."""
    if not target:
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target


def require_login():
    """before_request hook: load the user, or send the browser to the login page."""
    endpoint = request.endpoint or ""
    if endpoint in PUBLIC_ENDPOINTS or endpoint.startswith("bench.") or is_api_endpoint(endpoint):
        return None  # an API checks its bearer token itself
    kit = current_app.extensions["admindesk"]
    username = session.get("username")
    # A reset starts a new generation: sessions from before it are void.
    if username and session.get("generation") == kit.db.pinned().generation:
        user = kit.db.request_session().scalar(select(StaffUser).where(StaffUser.username == username))
        if user is not None:
            g.user = user
            return None
    if username:
        # Only a stale login is cleared: clearing an anonymous session would also drop the
        # CSRF token of a login form open in another tab (any anonymous fetch would do this).
        session.clear()
    return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))


@auth.route("/login", methods=["GET", "POST"])
def login():
    kit = current_app.extensions["admindesk"]
    error = None
    username = ""
    if request.method == "POST":
        username = request.form.get("username", "").strip()
        password = request.form.get("password", "")
        user = kit.db.request_session().scalar(select(StaffUser).where(StaffUser.username == username))
        if not username or not password:
            error = message("login_missing")
        elif user is None or not check_password_hash(user.password_hash, password):
            error = message("login_incorrect")
        if error:
            g.audit = {"username": username or None, "action": "login_failed"}
        else:
            session.clear()
            session.update(username=user.username, generation=kit.db.pinned().generation)
            describe(action="login")
            return redirect(_safe_next(request.args.get("next")) or url_for(kit.spec.home_endpoint))
    return render_template("login.html", error=error, username=username), (401 if error else 200)


@auth.post("/logout")
def logout():
    # The audit row is written after the session is cleared, so it carries the name itself.
    g.audit = {"username": session.get("username"), "action": "logout"}
    session.clear()
    return redirect(url_for("auth.login"))
