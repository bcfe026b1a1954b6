"""A coordinator's look at an app's main screens in Chromium: which screens, how dense, and
whether a form post's result lands in view.

Only Playwright and URLs: the caller serves the app and hands over a signed-in page. The
screen audit (bench/screen_audit.py) and the browser tests (axe, screenshots) share it, so
they all judge the same screens.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from playwright.sync_api import Error as PlaywrightError, Page

VIEWPORT = {"width": 1280, "height": 720}
SCREENS_PER_APP = 15
# Pages fetched while looking for screens; enough to reach details two or three clicks deep.
DISCOVERY_FETCHES = 80
POST_TIMEOUT_MS = 8000
# Modal dialogs answered in a row on one screen before giving up (one stacks on another).
MODAL_ANSWERS = 3
SIGN_OUT = re.compile(r"log\s*-?\s*(out|off)|sign\s*-?\s*out", re.IGNORECASE)

# Links that leave the coordinator's work: assets, the bench API, signing out, downloads.
SKIPPED_PATH = re.compile(r"^/(static|_bench)/|logout|sign-?out|/download|\.(pdf|png|jpe?g|csv|zip)$",
                          re.IGNORECASE)
# A path segment holding a digit names a record (MRN, case number, id): one screen per shape.
RECORD_SEGMENT = re.compile(r"\d")

# What the kit's feedback.js brings into view after a post, plus the brief's .flash/.alert.
RESULT_SELECTOR = "[aria-invalid='true'], .field-error, .error, [role='alert'], .alert, .flash"

CONTROL_ROLES = ("button", "link", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox",
                 "menuitemradio", "option", "switch", "combobox", "textbox", "searchbox",
                 "slider", "spinbutton", "treeitem")
CONTROL_SELECTOR = ", ".join(["a[href]", "button", "input:not([type=hidden])", "select", "textarea",
                              *(f"[role={role}]" for role in CONTROL_ROLES)])

_VISIBLE_JS = """el => { const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && el.checkVisibility({visibilityProperty: true}); }"""

_DENSITY_JS = f"""selector => {{
  const visible = {_VISIBLE_JS};
  const words = document.body.innerText.split(/\\s+/).filter(Boolean).length;
  const controls = [...document.querySelectorAll(selector)].filter(visible).length;
  return {{words, controls}};
}}"""

# Marks the form to post: the first visible one with a visible submit button, from the page's
# main content first, from a header or nav (switchers) last; never sign-out, never a dialog's.
# Its required text fields are emptied and browser validation is off, so the server answers.
_PREPARE_POST_JS = f"""skipped => {{
  const visible = {_VISIBLE_JS};
  const chrome = "header, nav, [role=banner], [role=navigation]";
  const forms = [...document.forms].filter(form => form.method === "post"
      && !/logout|sign-?out/i.test(form.action) && visible(form) && !form.closest("dialog"));
  const rank = form => form.closest("main, [role=main]") ? 0 : form.closest(chrome) ? 2 : 1;
  forms.sort((a, b) => rank(a) - rank(b));
  for (const form of forms) {{
    const action = new URL(form.action, location.href).pathname;
    if (skipped.includes(action.replace(/[^/]*\\d[^/]*/g, "{{id}}"))) continue;
    const submit = [...form.querySelectorAll("button, input[type=submit]")].find(button =>
        (button.type || "submit").toLowerCase() === "submit" && visible(button) && !button.disabled);
    if (!submit) continue;
    form.noValidate = true;
    for (const field of form.querySelectorAll("input[required], textarea[required]")) {{
      if (!["checkbox", "radio", "hidden", "file"].includes(field.type)) field.value = "";
    }}
    submit.setAttribute("data-survey-submit", "1");
    return action;
  }}
  return null;
}}"""

# Resolves once the page has stopped scrolling (feedback.js may scroll after load).
_SETTLE_JS = """() => new Promise(resolve => {
  let last = -1, still = 0, frames = 0;
  const tick = () => {
    still = window.scrollY === last ? still + 1 : 0; last = window.scrollY;
    if (still >= 3 || ++frames > 60) resolve(); else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})"""

_RESULT_JS = f"""selector => {{
  const visible = {_VISIBLE_JS};
  const result = [...document.querySelectorAll(selector)].find(visible);
  if (!result) return null;
  const box = result.getBoundingClientRect();
  const inView = box.top >= 0 && (box.bottom <= window.innerHeight
      || (box.height > window.innerHeight && box.top < window.innerHeight));
  return {{inView, top: Math.round(box.top), text: result.innerText.trim().slice(0, 80)}};
}}"""


@dataclass(frozen=True)
class ScreenDensity:
    """Visible words and controls on one screen."""

    path: str
    words: int
    controls: int


@dataclass(frozen=True)
class PostResult:
    """Where a screen's form post put its result: in view, out of view, or nowhere."""

    path: str
    action: str
    outcome: str  # "in view", "out of view" or "no message"
    landed_on: str
    message: str = ""
    top: int | None = None


class _Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href") and "download" not in attrs:
            self.hrefs.append(attrs["href"])


def screen_shape(path: str) -> str:
    """The path with its record segments blanked: screens of one shape show one endpoint."""
    return "/".join("{id}" if RECORD_SEGMENT.search(part) else part for part in path.split("/"))


def sign_in(page: Page, base_url: str, username: str = "coordinator", password: str = "admindesk") -> None:
    """Sign in through the app's own login form (fields named username and password)."""
    page.goto(f"{base_url}/login")
    form = page.locator("form:has(input[name=username])")
    form.locator("input[name=username]").fill(username)
    form.locator("input[name=password]").fill(password)
    with page.expect_navigation():
        form.locator("button[type=submit], input[type=submit], button:not([type])").first.click()
    if urlsplit(page.url).path.rstrip("/").endswith("/login"):
        raise RuntimeError(f"signing in as {username!r} at {base_url} failed (still on {page.url})")


def _same_app_path(base_url: str, page_url: str, href: str) -> str | None:
    target = urlsplit(urljoin(page_url, href))
    if target.scheme not in ("http", "https") or target.netloc != urlsplit(base_url).netloc:
        return None
    if SKIPPED_PATH.search(target.path):
        return None
    return target.path + (f"?{target.query}" if target.query else "")


def discover_screens(page: Page, base_url: str, limit: int = SCREENS_PER_APP) -> list[str]:
    """Up to `limit` paths of distinct screens, found by following links from home.

    Breadth-first through the signed-in page's cookies, one path per screen shape; the pick
    alternates between click depths (home, then a list, a detail, a form...) so that lists,
    details and forms are all represented. Deterministic for a given world.
    """
    by_depth: dict[int, list[str]] = {}
    shapes: set[str] = set()
    queue, queued_shapes, fetches = deque([("/", 0)]), {"/"}, 0
    while queue and fetches < DISCOVERY_FETCHES:
        path, depth = queue.popleft()
        response = page.request.get(base_url + path)
        fetches += 1
        if path == "/" and not response.ok:
            raise RuntimeError(f"{base_url}/ answered {response.status}: no screen can be found from home")
        if not response.ok or "text/html" not in response.headers.get("content-type", ""):
            continue
        landed = urlsplit(response.url)
        shape = screen_shape(landed.path)
        if landed.path.rstrip("/").endswith("/login"):
            raise RuntimeError(f"the page is not signed in to {base_url}")
        if shape not in shapes:
            shapes.add(shape)
            by_depth.setdefault(depth, []).append(path)
        parser = _Links()
        parser.feed(response.text())
        for href in parser.hrefs:
            target = _same_app_path(base_url, response.url, href)
            target_shape = target and screen_shape(urlsplit(target).path)
            if target and target_shape not in queued_shapes:
                queued_shapes.add(target_shape)
                queue.append((target, depth + 1))
    picked: list[str] = []
    columns = [by_depth[depth] for depth in sorted(by_depth)]
    while len(picked) < limit and any(columns):
        for column in columns:
            if column and len(picked) < limit:
                picked.append(column.pop(0))
    return picked


def open_screen(page: Page, base_url: str, path: str) -> None:
    """Open `path` and answer any modal dialog over it (a session-timeout warning, a "what's
    new" notice) with its first button that does not sign out, as a coordinator would."""
    page.goto(base_url + path, wait_until="load")
    modal = page.locator("dialog:modal")
    for _ in range(MODAL_ANSWERS):
        if not modal.count():
            return
        buttons = modal.first.locator("button, input[type=submit]")
        answers = [buttons.nth(index) for index in range(buttons.count())
                   if not SIGN_OUT.search(buttons.nth(index).evaluate(
                       "b => (b.innerText || b.value) + ' ' + (b.form ? b.form.action : '')"))]
        if not answers:
            raise RuntimeError(f"{path}: a modal dialog offers no button but signing out")
        answers[0].click()
        page.wait_for_load_state("load")
    if modal.count():
        raise RuntimeError(f"{path}: a modal dialog is still open after {MODAL_ANSWERS} answers")


def measure_density(page: Page, base_url: str, path: str) -> ScreenDensity:
    """Open `path` and count its visible words (whitespace-split text) and controls."""
    open_screen(page, base_url, path)
    counts = page.evaluate(_DENSITY_JS, CONTROL_SELECTOR)
    return ScreenDensity(path=path, words=counts["words"], controls=counts["controls"])


def check_post_result(page: Page, base_url: str, path: str, posted: set[str]) -> PostResult | None:
    """Post the screen's main form so that it fails validation (required fields emptied) and
    report whether the first visible error, alert or flash on the resulting page is in the
    viewport.

    `posted` holds the shapes of the form actions already posted (updated here): each
    endpoint is posted once, which also keeps clear of the kit's refusal of a repeated post.
    None when the screen has no visible form left to post. Confirmation dialogs are accepted.
    """
    open_screen(page, base_url, path)
    action = page.evaluate(_PREPARE_POST_JS, sorted(posted))
    if action is None:
        return None
    posted.add(screen_shape(action))
    accept = lambda dialog: dialog.accept()  # noqa: E731 - a handler to remove afterwards
    page.on("dialog", accept)
    try:
        with page.expect_navigation(wait_until="load", timeout=POST_TIMEOUT_MS):
            page.locator("[data-survey-submit]").first.click()
        page.evaluate(_SETTLE_JS)
        result = page.evaluate(_RESULT_JS, RESULT_SELECTOR)
    except PlaywrightError:  # no page came back (a download, or a form handled by script)
        result = None
    finally:
        page.remove_listener("dialog", accept)
    landed = urlsplit(page.url)
    landed_on = (landed.path + (f"?{landed.query}" if landed.query else "")
                 + (f"#{landed.fragment}" if landed.fragment else ""))  # an anchor scrolls too
    if result is None:
        return PostResult(path=path, action=action, outcome="no message", landed_on=landed_on)
    return PostResult(path=path, action=action, landed_on=landed_on, message=result["text"],
                      top=result["top"], outcome="in view" if result["inView"] else "out of view")
