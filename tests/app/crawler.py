"""A signed-in coordinator's clicks, simulated: links, embedded files and form submissions.

`crawl` walks an app breadth-first from `/`: every same-origin `<a href>` is followed and
every `<form method="get">` is submitted with its default field values (what clicking a
search or filter button sends). The POST forms it sees are kept for tests that submit them.
"""
from __future__ import annotations

import traceback
from collections import deque
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import NamedTuple
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

from flask import Flask
from werkzeug.exceptions import HTTPException

from .conftest import FormClient

# Enough distinct URLs per endpoint to meet its variants (other records, pages, sorts)
# without visiting every record; the overall cap stops a crawl that keeps finding new URLs.
URLS_PER_ENDPOINT = 3
REQUEST_CAP = 600

# Files a link may download instead of showing a page (and images a page embeds, such as icons).
DOWNLOAD_TYPES = ("application/pdf", "image/png", "image/svg+xml")

# Opening a page loads what it embeds (a fax's page images, a document's PDF viewer).
EMBEDDING_TAGS = {"img": "src", "iframe": "src", "embed": "src", "object": "data"}


@dataclass
class PageForm:
    """A `<form>` as its default submission would send it."""

    action: str
    method: str = "get"
    fields: list[tuple[str, str]] = field(default_factory=list)
    submitter: tuple[str, str] | None = None


class ClickTargets(HTMLParser):
    """The hrefs of a page's links, the sources it embeds, and its forms' default submissions."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.forms: list[PageForm] = []
        self._form: PageForm | None = None
        self._select: str | None = None  # name of the open select still without a chosen option
        self._first_option: str | None = None
        self._textarea: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])
        elif tag in EMBEDDING_TAGS and attrs.get(EMBEDDING_TAGS[tag]):
            self.hrefs.append(attrs[EMBEDDING_TAGS[tag]])
        elif tag == "form":
            self._form = PageForm(action=attrs.get("action") or "",
                                  method=(attrs.get("method") or "get").lower())
        elif self._form is None or "disabled" in attrs:
            return
        elif tag == "input":
            self._add_input(attrs)
        elif tag == "button" and (attrs.get("type") or "submit").lower() == "submit":
            self._add_submitter(attrs)
        elif tag == "select":
            self._close_select()
            self._select = attrs.get("name")
        elif tag == "option" and self._select:
            value = attrs.get("value", "")
            if "selected" in attrs:
                self._form.fields.append((self._select, value))
                self._select = None
            elif self._first_option is None:
                self._first_option = value
        elif tag == "textarea" and attrs.get("name"):
            self._textarea = (attrs["name"], [])

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1].append(data)

    def handle_endtag(self, tag):
        if self._form is None:
            return
        if tag == "select":
            self._close_select()
        elif tag == "textarea" and self._textarea is not None:
            name, text = self._textarea
            self._form.fields.append((name, "".join(text)))
            self._textarea = None
        elif tag == "form":
            if self._form.submitter:
                self._form.fields.append(self._form.submitter)
            self.forms.append(self._form)
            self._form = None

    def _add_input(self, attrs: dict):
        """A named input's default value; checkboxes and radios count only when checked."""
        kind = (attrs.get("type") or "text").lower()
        name = attrs.get("name")
        if kind in ("submit", "image"):
            self._add_submitter(attrs)
        elif not name or kind in ("button", "reset", "file"):
            return
        elif kind in ("checkbox", "radio"):
            if "checked" in attrs:
                self._form.fields.append((name, attrs.get("value", "on")))
        else:
            self._form.fields.append((name, attrs.get("value", "")))

    def _add_submitter(self, attrs: dict):
        """Pressing Enter or the button clicks the form's first submit button."""
        if self._form.submitter is None and attrs.get("name"):
            self._form.submitter = (attrs["name"], attrs.get("value", ""))
        elif self._form.submitter is None:
            self._form.submitter = ("", "")  # an unnamed first button adds no field

    def _close_select(self):
        """A select with no selected option submits its first option."""
        if self._select and self._first_option is not None:
            self._form.fields.append((self._select, self._first_option))
        self._select, self._first_option = None, None


class Click(NamedTuple):
    """One request a click sends: a same-origin path?query, and whether a form was submitted."""

    path: str
    submits_form: bool


def clicks_on_page(page_url: str, html: str) -> list[Click]:
    """The same-origin requests clicking the page's GET forms and links would send.

    Forms come first: a page's search button is its most distinctive click, while its
    sort and page links only reorder the same rows and would use up the endpoint's share.
    """
    parser = ClickTargets()
    parser.feed(html)
    clicks = []
    for form in parser.forms:
        if form.method != "get":
            continue
        action = urlsplit(urljoin(page_url, form.action))
        fields = [pair for pair in form.fields if pair[0]]
        clicks.append(Click(action._replace(query=urlencode(fields), fragment="").geturl(), True))
    clicks += [Click(urljoin(page_url, href), False) for href in parser.hrefs if not href.startswith("#")]
    return [Click(path, submits) for url, submits in clicks if (path := same_origin_path(url))]


def post_forms_on_page(page_url: str, html: str) -> list[PageForm]:
    """The page's POST forms, their actions resolved to same-origin paths."""
    parser = ClickTargets()
    parser.feed(html)
    forms = []
    for form in parser.forms:
        path = same_origin_path(urljoin(page_url, form.action))
        if form.method == "post" and path:
            forms.append(PageForm(action=path, method="post",
                                  fields=[pair for pair in form.fields if pair[0]]))
    return forms


def same_origin_path(url: str) -> str | None:
    """`url` as path?sorted-query when it stays in the app, else None (mailto, external, logout)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or parts.netloc != "localhost" or parts.path == "/logout":
        return None
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return f"{parts.path}?{query}" if query else parts.path


def endpoint_of(app: Flask, path: str) -> str:
    """The Flask endpoint a GET of `path` is routed to, or the path itself if none is."""
    try:
        endpoint, _ = app.url_map.bind("localhost").match(urlsplit(path).path, method="GET")
    except HTTPException:
        return path  # unroutable: still requested once so the broken link is reported
    return endpoint


@dataclass
class Crawl:
    """What a click-only walk of one app saw."""

    reached: set[str] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)
    pages: dict[str, str] = field(default_factory=dict)  # path -> HTML of every page shown
    post_forms: dict[str, PageForm] = field(default_factory=dict)  # action path -> first form seen
    requests: int = 0
    capped: bool = False


def response_error(response, click: Click) -> str | None:
    """Why the response to a click is an error, or None for a page or PDF/PNG download."""
    # The apps answer a search submitted with invalid or missing criteria by showing the
    # form again with its message and status 422: that is the page doing its job.
    shows_validation = click.submits_form and response.status_code == 422 and response.mimetype == "text/html"
    if response.status_code != 200 and not shows_validation:
        return str(response.status_code)
    if response.request.path == "/login":
        return "redirected to sign-in"
    if response.mimetype != "text/html" and response.mimetype not in DOWNLOAD_TYPES:
        return f"unexpected {response.mimetype}"
    return None


def raised(error: Exception) -> str:
    """An exception a view raised, with the innermost frame that raised it."""
    frame = traceback.extract_tb(error.__traceback__)[-1]
    return f"raised {type(error).__name__}: {error} at {frame.filename}:{frame.lineno}"


def crawl(app: Flask, client: FormClient) -> Crawl:
    """Breadth-first clicks from `/`, following at most URLS_PER_ENDPOINT URLs an endpoint."""
    result = Crawl()
    queue = deque([(Click("/", False), "(home)")])
    seen = {"/"}
    per_endpoint: dict[str, int] = {}
    while queue:
        if result.requests >= REQUEST_CAP:
            result.capped = True
            break
        click, linked_from = queue.popleft()
        result.requests += 1
        try:
            response = client.get(click.path, follow_redirects=True)
            error = response_error(response, click)
        except Exception as exception:  # testing apps propagate view errors: collect them like a 500
            error = raised(exception)
        if error:
            result.failures.append(f"{click.path} (linked from {linked_from}) -> {error}")
            continue
        # A redirect reaches both ends; links on the landing page resolve against it.
        landed = same_origin_path(response.request.url) or click.path
        result.reached |= {endpoint_of(app, click.path), endpoint_of(app, landed)}
        if response.mimetype != "text/html":
            continue
        result.pages[landed] = response.get_data(as_text=True)
        for form in post_forms_on_page(f"http://localhost{landed}", result.pages[landed]):
            result.post_forms.setdefault(form.action, form)
        for found in clicks_on_page(f"http://localhost{landed}", result.pages[landed]):
            endpoint = endpoint_of(app, found.path)
            if found.path in seen or per_endpoint.get(endpoint, 0) >= URLS_PER_ENDPOINT:
                continue
            seen.add(found.path)
            per_endpoint[endpoint] = per_endpoint.get(endpoint, 0) + 1
            queue.append((found, landed))
    return result
