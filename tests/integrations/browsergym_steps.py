"""Driving a BrowserGym env with BrowserGym's own action strings, as an agent would.

The test looks elements up on the page (their `bid`, as BrowserGym marked them in the last
observation) and reads values off the screen the way a person reads them; every change to
the apps goes through `env.step(<action string>)`.
"""
from __future__ import annotations

from typing import Any

# BrowserGym clicks with a fixed 500 ms budget that also covers Playwright's wait for the
# navigation a click starts. A form whose answer takes longer (a sign-in hashes the
# password) reports this although the click was performed; the page then loads on its own.
NAVIGATION_STILL_LOADING = "waiting for scheduled navigations to finish"
LOAD_WAITS = 5  # noop() observations to wait for such a page, one second each


class BrowserGymSteps:
    """One BrowserGym env, stepped with action strings; `last` is the last step's result."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.last: tuple = ()

    @property
    def page(self):
        """BrowserGym's active page (for reading only)."""
        return self.env.unwrapped.page

    def bid(self, selector: str) -> str:
        """The element id BrowserGym gave the first element `selector` names."""
        value = self.page.locator(selector).first.get_attribute("bid")
        assert value, f"{selector} has no bid"
        return value

    def step(self, action: str) -> tuple:
        """Send one action string; fail on BrowserGym's action error, except a click whose
        page is still loading, which is waited for with noop() as an agent would."""
        self.last = self.env.step(action)
        error = self.last[0]["last_action_error"]
        if error and NAVIGATION_STILL_LOADING in error and "click action done" in error:
            for _wait in range(LOAD_WAITS):
                self.last = self.env.step("noop(1000)")
                if self.page.evaluate("document.readyState") == "complete":
                    break
            error = self.last[0]["last_action_error"]
        assert not error, f"{action}: {error}"
        return self.last

    def click(self, selector: str) -> tuple:
        return self.step(f"click({self.bid(selector)!r})")

    def fill(self, selector: str, text: str) -> tuple:
        return self.step(f"fill({self.bid(selector)!r}, {text!r})")

    def select(self, selector: str, label: str) -> tuple:
        return self.step(f"select_option({self.bid(selector)!r}, {label!r})")

    def upload(self, selector: str, path: str) -> tuple:
        return self.step(f"upload_file({self.bid(selector)!r}, {path!r})")

    def text(self, selector: str) -> str:
        """The visible text of the first element `selector` names, stripped."""
        return self.page.locator(selector).first.inner_text().strip()

    def fact(self, label: str) -> str:
        """The value shown next to `label` in a facts list (every app's detail panels)."""
        return self.text(f"xpath=//dt[normalize-space()='{label}']/following-sibling::dd[1]")
