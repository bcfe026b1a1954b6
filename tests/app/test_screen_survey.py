"""The screen survey (what bench/screen_audit.py and the axe test judge) on a tiny site whose
answers are known: which screens it picks, what it counts, where a post's result lands."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from flask import Flask, redirect, request

from admindesk.harness.task_tools.screen_survey import (
    VIEWPORT,
    check_post_result,
    discover_screens,
    measure_density,
    screen_shape,
    sign_in,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SPACER = '<div style="height:1500px">filler</div>'
LOGIN_FORM = ('<form method="post"><label>User <input name="username"></label>'
              '<label>Password <input name="password" type="password"></label><button>Sign in</button></form>')


def page(body: str) -> str:
    return f"<!doctype html><html><head><title>t</title></head><body><main>{body}</main></body></html>"


def form_page(error_position: str) -> str:
    """A form below the fold; its failed post comes back with the error at the given place."""
    form = ('<form method="post"><input name="note" required value="x"><button>Save</button></form>')
    if request.method == "GET":
        return page(SPACER + form)
    if request.form.get("note"):
        return "the survey should have emptied the required field", 400
    error = '<p role="alert">Enter a note.</p>'
    placed = {"top": error + SPACER + form, "bottom": SPACER + form + error, "none": SPACER + form}
    return page(placed[error_position])


def survey_site() -> Flask:
    site = Flask("survey_site")

    @site.route("/login", methods=["GET", "POST"])
    def login():
        if request.method == "POST":
            answer = redirect("/")
            answer.set_cookie("user", request.form["username"])
            return answer
        return page(LOGIN_FORM)

    @site.before_request
    def signed_in_only():
        if request.path != "/login" and request.cookies.get("user") != "coordinator":
            return redirect("/login")

    @site.route("/")
    def home():
        links = ["/patients", "/patients/P100", "/patients/P200", "/logout", "/static/site.css",
                 "/report.pdf", "/forms/top", "/forms/bottom", "/forms/none", "https://elsewhere.test/"]
        return page("<h1>Home</h1>" + "".join(f'<a href="{href}">{href}</a> ' for href in links))

    @site.route("/patients")
    def patients():
        return page('<a href="/patients/P300/edit">edit</a> <a href="/patients?page=2">next</a>'
                    '<button hidden>hidden</button><select><option>a</option></select>')

    @site.route("/patients/<mrn>")
    def patient(mrn):
        return page(f"<p>Patient {mrn} has three words</p>")

    @site.route("/patients/<mrn>/edit")
    def edit(mrn):
        return page(f"<p>Edit {mrn}</p>")

    @site.route("/warned")
    def warned():
        """A screen behind a modal warning until it is acknowledged (like portal B's timeout)."""
        warning = ("" if request.cookies.get("acknowledged") else
                   '<dialog id="warning"><form method="post" action="/logout"><button>Sign out</button></form>'
                   '<form method="post" action="/acknowledge"><button>Stay signed in</button></form></dialog>'
                   '<script>document.getElementById("warning").showModal()</script>')
        return page("<p>Behind the warning</p>" + warning)

    @site.route("/acknowledge", methods=["POST"])
    def acknowledge():
        answer = redirect("/warned")
        answer.set_cookie("acknowledged", "1")
        return answer

    site.add_url_rule("/forms/<place>", "forms", lambda place: form_page(place), methods=["GET", "POST"])
    return site


@pytest.fixture
def signed_in(serve_live, browser):
    server = serve_live(survey_site())
    context = browser.new_context(viewport=VIEWPORT)
    view = context.new_page()
    sign_in(view, server.url)
    yield view, server.url
    context.close()


def test_screen_shape_blanks_record_segments():
    assert screen_shape("/patients/E1000234/orders/ORD-1") == "/patients/{id}/orders/{id}"
    assert screen_shape("/queues/prior-auth") == "/queues/prior-auth"


def test_discovery_takes_one_screen_per_shape_alternating_depths(signed_in):
    view, url = signed_in
    screens = discover_screens(view, url)
    # home, then depth 1 and depth 2 in turn; P200 shares P100's shape and ?page=2 the list's;
    # sign-out, assets, downloads and other hosts are never followed.
    assert screens == ["/", "/patients", "/patients/P300/edit", "/patients/P100", "/forms/top", "/forms/bottom",
                       "/forms/none"]
    assert discover_screens(view, url, limit=3) == screens[:3]


def test_density_counts_visible_words_and_controls(signed_in):
    view, url = signed_in
    assert measure_density(view, url, "/patients/P100").words == 5
    listing = measure_density(view, url, "/patients")
    assert (listing.words, listing.controls) == (3, 3)  # two links and the select; the button is hidden


@pytest.mark.parametrize("place, outcome", [("top", "in view"), ("bottom", "out of view"), ("none", "no message")])
def test_post_result_is_judged_where_it_lands(signed_in, place, outcome):
    view, url = signed_in
    posted: set[str] = set()
    result = check_post_result(view, url, f"/forms/{place}", posted)
    assert (result.outcome, result.action) == (outcome, f"/forms/{place}")
    assert posted == {f"/forms/{place}"}
    assert check_post_result(view, url, f"/forms/{place}", posted) is None  # each endpoint once


def test_a_screen_without_a_form_has_no_post_result(signed_in):
    view, url = signed_in
    assert check_post_result(view, url, "/patients", set()) is None


def test_a_modal_warning_is_answered_without_signing_out(signed_in):
    view, url = signed_in
    density = measure_density(view, url, "/warned")
    assert view.locator("dialog:modal").count() == 0
    assert view.url == f"{url}/warned"
    assert density.words == 3


def test_audit_script_refuses_an_unknown_app_and_writes_nothing(tmp_path):
    script = Path(__file__).resolve().parents[2] / "bench" / "screen_audit.py"
    out = tmp_path / "audit.json"
    run = subprocess.run([sys.executable, str(script), "--apps", "ehr_web,nope", "--out", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "unknown app(s) nope" in run.stderr and "payer_portal_a" in run.stderr
    assert not out.exists()
