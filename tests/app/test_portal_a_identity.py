"""Portal A as its own vendor: login page, phone format, pager wording, shipped font and
icons, case numbers; its home and payer spaces; and its two interruptions (whats_new,
announcement), each shown only in the episodes of a task that turns it on."""
from __future__ import annotations

import re

import pytest
import yaml

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.payer_portal_a import create_app
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient

HEADERS = {"X-Bench-Token": TOKEN}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    tasks = tmp_path_factory.mktemp("portal-a-tasks")
    for task_id, turned_on in (("new-release", ["whats_new"]), ("maintenance", ["announcement"]), ("quiet", [])):
        body = {"id": task_id, "interruptions": {"payer_portal_a": turned_on} if turned_on else {}}
        (tasks / f"{task_id}.yaml").write_text(yaml.safe_dump(body))
    return create_app(AppConfig(data_dir=tmp_path_factory.mktemp("portal-a-data"), token=TOKEN, testing=True,
                                cache_dir=TEMPLATE_CACHE, tasks_dir=tasks))


def signed_in(app, task: str | None) -> FormClient:
    client = FormClient(app)
    response = client.client.post("/_bench/reset", json={"task": task} if task else {}, headers=HEADERS)
    assert response.status_code == 200, response.get_data(as_text=True)
    client.login()
    return client


@pytest.mark.parametrize("task, expected", [("new-release", True), ("maintenance", False), ("quiet", False),
                                            (None, False)])
def test_whats_new_modal_only_when_the_task_turns_it_on(app, task, expected):
    client = signed_in(app, task)
    for path in ("/", "/eligibility", "/authorizations/new"):
        assert ("What's new in ProviderLink" in client.get(path).get_data(as_text=True)) is expected


def test_whats_new_is_dismissed_for_good_and_stored(app):
    client = signed_in(app, "new-release")
    response = client.post("/notices/whats-new/dismiss", {"next": "/claims"})
    assert response.status_code == 302 and response.location.endswith("/claims")
    assert "What's new in ProviderLink" not in client.get("/").get_data(as_text=True)
    (row,) = client.snapshot()["notice_dismissals"]
    assert (row["notice"], row["username"]) == ("whats_new", "coordinator")
    assert client.post("/notices/whats-new/dismiss", {"next": "//elsewhere.example"}).location.endswith("/")


def test_dismissing_without_the_interruption_writes_nothing(app):
    client = signed_in(app, "quiet")
    assert client.post("/notices/whats-new/dismiss", {"next": "/"}).status_code == 302
    assert client.snapshot()["notice_dismissals"] == []


@pytest.mark.parametrize("task, expected", [("maintenance", True), ("new-release", False), (None, False)])
def test_announcement_banner_on_home_and_wizard_only_when_turned_on(app, task, expected):
    client = signed_in(app, task)
    for path in ("/", "/authorizations/new"):
        page = client.get(path).get_data(as_text=True)
        assert ("Scheduled maintenance:" in page) is expected
    if expected:  # the next Saturday after the frozen Monday 11/16/2026
        assert "Saturday 11/21/2026 10:00 PM to Sunday 11/22/2026 2:00 AM ET" in client.get("/").get_data(as_text=True)


def test_login_page_is_providerlink_s_own(app):
    page = FormClient(app).client.get("/login").get_data(as_text=True)
    assert "Log in to ProviderLink" in page and "One portal. Every payer you work with." in page


def test_font_licence_and_icons_ship_with_the_app(app):
    client = signed_in(app, None)
    css = client.get("/static/portal.css").get_data(as_text=True)
    assert 'url("fonts/DejaVuSansCondensed.ttf")' in css and "#e0661b" not in css
    font = client.get("/static/fonts/DejaVuSansCondensed.ttf")
    assert font.status_code == 200 and font.data[:4] == b"\x00\x01\x00\x00"
    assert "Bitstream Vera" in client.get("/static/fonts/LICENSE-DejaVu.txt").get_data(as_text=True)
    icons = client.get("/static/pl-icons.svg").get_data(as_text=True)
    assert all(f'id="pl-{name}"' in icons for name in ("home", "auth", "claims", "bell"))
    assert "pl-icons.svg#pl-home" in client.get("/").get_data(as_text=True)


def test_phone_numbers_pager_and_case_numbers_in_providerlink_format(app):
    client = signed_in(app, None)
    snap = client.snapshot()
    payer = snap["payers"][0]
    page = client.get("/payers").get_data(as_text=True)
    assert f"{payer['phone'][:3]}-{payer['phone'][3:6]}-{payer['phone'][6:]}" in page and payer["phone"] not in page
    drafts = client.get("/authorizations/drafts").get_data(as_text=True)
    assert "No drafts to show" in drafts and "0&ndash;0 of 0" not in drafts
    assert "Showing 1 to" in client.get("/correspondence").get_data(as_text=True)
    on_file = [r["case_number"] for r in snap["pa_requests"]]
    assert on_file and all(re.fullmatch(r"PL-20\d\d-\d{8}", number) for number in on_file)


def test_payer_space_news_resources_and_manual_state_the_payer_s_rules(app):
    client = signed_in(app, None)
    rules = rules_for("PYR-CSH")
    news = client.get("/payers/PYR-CSH?tab=news").get_data(as_text=True)
    assert len(re.findall(r'<li><a href="/payers/PYR-CSH\?tab=', news)) == 5  # five tabs, no stray items
    assert f"within {rules.peer_to_peer_days} days" in news and rules.medical_directors[0] in news
    resources = client.get("/payers/PYR-CSH?tab=resources").get_data(as_text=True)
    assert "Pre-service appeal form" in resources
    manual = client.get("/payers/PYR-CSH?tab=manual").get_data(as_text=True)
    assert f"Timely filing limit: {rules.claim_filing_days} days" in manual
    assert "decided by the due date" in manual  # CSH does not decide pre-service appeals at filing
    assert "decided when filed" in client.get("/payers/PYR-NWH?tab=manual").get_data(as_text=True)


def test_the_manual_says_who_pays_a_work_or_accident_injury(app):
    manual = signed_in(app, None).get("/payers/PYR-CSH?tab=manual").get_data(as_text=True)
    assert "Work-related and accident injuries" in manual
    assert "carrier (CARC 19)" in manual and "liability or auto carrier (CARC 20)" in manual
    assert "do not appeal or resubmit them to Cascade Summit Health" in manual
    assert "level 1 reconsideration within the appeal window" in manual


def test_home_has_announcement_tiles_and_notifications(app):
    client = signed_in(app, None)
    snap = client.snapshot()
    home = client.get("/").get_data(as_text=True)
    assert 'aria-label="Payer announcements"' in home and home.count('class="tile"') == 4
    newest_pended = max((r for r in snap["pa_requests"] if r["status"] == "Pended"), key=lambda r: r["id"])
    assert "Notifications" in home and f"Case {newest_pended['case_number']} for" in home
