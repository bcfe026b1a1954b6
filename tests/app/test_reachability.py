"""Every screen of each app is reachable by clicks alone from its home page, and none errors.

A signed-in coordinator's clicks are simulated breadth-first from `/`: every same-origin
`<a href>` is followed, and every `<form method="get">` is submitted with its default
field values (that is what clicking a search or filter button sends). Each app is crawled
once per module; one test checks the responses, the other that every GET screen was seen.
"""
from __future__ import annotations

import importlib
import traceback

from collections import deque
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import NamedTuple
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import pytest
from flask import Flask
from werkzeug.exceptions import HTTPException

from .accessible_names import unnamed_controls
from .conftest import FormClient, build_app

APPS = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")

# Enough distinct URLs per endpoint to meet its variants (other records, pages, sorts)
# without visiting every record; the overall cap stops a crawl that keeps finding new URLs.
URLS_PER_ENDPOINT = 3
REQUEST_CAP = 600

# Files a link may download instead of showing a page.
DOWNLOAD_TYPES = ("application/pdf", "image/png")

# Opening a page loads what it embeds (a fax's page images, a document's PDF viewer).
EMBEDDING_TAGS = {"img": "src", "iframe": "src", "embed": "src", "object": "data"}

# GET endpoints no click is meant to reach: assets, the icon, the bench API and sign-in.
INFRASTRUCTURE_ENDPOINTS = {"static", "common.static", "auth.login", "favicon"}

# Endpoints the crawl cannot reach for a reason other than a missing link, each with the
# test that opens it. "No ... seeded": the templates link to it once a POST has created the
# record, and a GET-only crawl never posts.
EXCLUDED_ENDPOINTS: dict[str, dict[str, str]] = {
    "ehr_web": {
        "patients.open_chart": "alias redirecting to chart.summary, which links use: "
                               "test_ehr_pages::test_chart_root_opens_summary",
    },
    "payer_portal_a": {
        "claims.detail": "opened by searching a typed claim or member number: "
                         "test_portal_a_claims::test_claim_number_search_opens_the_claim",
        "appeals.detail": "no appeal seeded: test_portal_a_claims::test_appeal_with_typed_letter_and_attachment",
        "appeals.attachment": "no appeal seeded: "
                              "test_portal_a_claims::test_appeal_with_typed_letter_and_attachment",
        "pa_wizard.step": "no draft seeded; starting a request redirects into the wizard: "
                          "test_portal_a_wizard::test_provider_step_stores_names_from_directory_and_back_keeps_them",
        "pa_cases.attachment": "no attachment seeded: "
                               "test_portal_a_wizard::test_upload_stores_blob_with_safe_name_and_can_be_removed",
    },
    "payer_portal_b": {
        "appeals.detail": "no appeal seeded: test_portal_b_dme_appeals::test_appeal_filed",
        "appeals.attachment": "no appeal seeded: test_portal_b_dme_appeals::test_appeal_filed",
        "dme.detail": "no DME request seeded: test_portal_b_dme_appeals::test_dme_cpap_approved",
        "dme.attachment": "no DME request seeded: test_portal_b_dme_appeals::test_dme_cpap_approved",
        "eligibility.result": "no inquiry seeded; the lookup POST redirects here: "
                              "test_portal_b_pages::test_eligibility_active_subscriber",
        "precert.attachment": "no attachment seeded: test_portal_b_precert::test_approved_request",
    },
    "fax": {
        "compose.edit": "no draft seeded: test_fax_compose::test_new_fax_creates_a_server_side_draft_listed_in_drafts",
        "compose.attachment": "no draft seeded: test_fax_compose::test_upload_counts_pages_and_keeps_the_bytes",
        "outbox.show": "no fax job seeded: test_fax_outbox::test_viewing_a_job_transmits_it_and_shows_the_log",
        "outbox.cover_sheet": "no fax job seeded: test_fax_outbox::test_cover_sheet_and_attachment_downloads",
        "outbox.attachment": "no fax job seeded: test_fax_outbox::test_cover_sheet_and_attachment_downloads",
    },
}


@dataclass
class GetForm:
    """A `<form method="get">` as its default submission would send it."""

    action: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    submitter: tuple[str, str] | None = None


class ClickTargets(HTMLParser):
    """The hrefs of a page's links, the sources it embeds, and its GET forms' default submissions."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.forms: list[GetForm] = []
        self._form: GetForm | None = None
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
            is_get = (attrs.get("method") or "get").lower() == "get"
            self._form = GetForm(action=attrs.get("action") or "") if is_get else None
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
        action = urlsplit(urljoin(page_url, form.action))
        fields = [pair for pair in form.fields if pair[0]]
        clicks.append(Click(action._replace(query=urlencode(fields), fragment="").geturl(), True))
    clicks += [Click(urljoin(page_url, href), False) for href in parser.hrefs if not href.startswith("#")]
    return [Click(path, submits) for url, submits in clicks if (path := same_origin_path(url))]


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
        for found in clicks_on_page(f"http://localhost{landed}", result.pages[landed]):
            endpoint = endpoint_of(app, found.path)
            if found.path in seen or per_endpoint.get(endpoint, 0) >= URLS_PER_ENDPOINT:
                continue
            seen.add(found.path)
            per_endpoint[endpoint] = per_endpoint.get(endpoint, 0) + 1
            queue.append((found, landed))
    return result


def clickable_endpoints(app: Flask) -> set[str]:
    """GET endpoints a coordinator should be able to open by clicking."""
    return {rule.endpoint for rule in app.url_map.iter_rules()
            if "GET" in rule.methods and rule.endpoint not in INFRASTRUCTURE_ENDPOINTS
            and not rule.endpoint.startswith("bench.")}


@pytest.fixture(scope="module", params=APPS)
def app(request, app_data_dir):
    create_app = importlib.import_module(f"admindesk.envs.{request.param}").create_app
    return build_app(create_app, app_data_dir / f"reachability-{request.param}")


@pytest.fixture(scope="module")
def walk(app) -> Crawl:
    """The app crawled once, signed in as the coordinator on a fresh reset."""
    client = FormClient(app)
    client.reset()
    client.login()
    return crawl(app, client)


def test_every_clicked_page_loads_without_error(walk):
    assert not walk.capped, f"crawl stopped at {REQUEST_CAP} requests; raise the cap"
    assert not walk.failures, "\n".join(walk.failures)


def test_every_screen_is_reachable_by_clicks_from_home(app, walk):
    clickable = clickable_endpoints(app)
    excluded = EXCLUDED_ENDPOINTS[app.name]
    assert sorted(excluded.keys() - clickable) == [], "excluded endpoints the app no longer has"
    assert sorted(clickable - excluded.keys() - walk.reached) == [], "no link or GET form leads here"
    assert sorted(excluded.keys() & walk.reached) == [], "reached by clicks now: drop the exclusion"


def test_every_control_on_every_page_has_an_accessible_name(walk):
    problems = [f"{path}: {control}" for path, html in sorted(walk.pages.items())
                for control in unnamed_controls(html)]
    assert walk.pages and not problems, "\n".join(problems)
