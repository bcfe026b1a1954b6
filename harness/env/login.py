"""Logging the episode's browser in to an app by submitting the app's own login form.

The form is fetched and posted through a Playwright request client: the app sees exactly
the request its form would send (hidden CSRF field included), and the caller hands the
session cookie to the browser (`Browser.sign_in`), without rendering the login page first.
"""
from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urljoin

from playwright.sync_api import APIRequestContext


class LoginFailed(RuntimeError):
    """The app did not accept the credentials, or has no recognisable login form."""


class _LoginFormParser(HTMLParser):
    """Finds the form holding a `username` input: its action and its hidden fields."""

    def __init__(self) -> None:
        super().__init__()
        self._form: dict | None = None
        self.login_form: dict | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if tag == "form":
            self._form = {"action": attributes.get("action", ""), "hidden": {}, "login": False}
        elif tag == "input" and self._form is not None:
            name = attributes.get("name", "")
            if name == "username":
                self._form["login"] = True
            elif attributes.get("type", "").lower() == "hidden" and name:
                self._form["hidden"][name] = attributes.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._form is not None:
            if self._form["login"] and self.login_form is None:
                self.login_form = self._form
            self._form = None


def submit_login_form(request: APIRequestContext, login_url: str, username: str,
                      password: str) -> None:
    """GET `login_url`, then POST its login form with the credentials (raises LoginFailed)."""
    page = request.get(login_url)
    parser = _LoginFormParser()
    parser.feed(page.text())
    form = parser.login_form
    if form is None:
        raise LoginFailed(f"no login form (input name=username) at {login_url}")
    target = urljoin(page.url, form["action"]) if form["action"] else page.url
    answer = request.post(target, form={**form["hidden"], "username": username,
                                        "password": password}, max_redirects=0)
    location = answer.headers.get("location", "")
    if not (300 <= answer.status < 400) or "/login" in location.split("?")[0]:
        raise LoginFailed(f"logging in as {username!r} at {login_url} failed "
                          f"(HTTP {answer.status})")
