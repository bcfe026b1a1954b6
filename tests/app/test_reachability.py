"""Every screen of each app is reachable by clicks alone from its home page, and none errors.

Each app is crawled once per module (see crawler.py); one test checks the responses, the
other that every GET screen was seen.
"""
from __future__ import annotations

import importlib

import pytest
from flask import Flask

from admindesk.envs.common.api_access import is_api_endpoint

from .accessible_names import unnamed_controls
from .conftest import FormClient, build_app
from .crawler import REQUEST_CAP, Crawl, crawl

APPS = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")

# GET endpoints no click is meant to reach: assets, the icon, the bench API and sign-in.
INFRASTRUCTURE_ENDPOINTS = {"static", "common.static", "auth.login", "favicon"}

# Endpoints the crawl cannot reach for a reason other than a missing link, each with the
# test that opens it. "No ... seeded": the templates link to it once a POST has created the
# record, and a GET-only crawl never posts.
EXCLUDED_ENDPOINTS: dict[str, dict[str, str]] = {
    "ehr_web": {
        "patients.open_chart": "alias redirecting to chart.summary, which links use: "
                               "test_ehr_pages::test_chart_root_opens_summary",
        "staff_messages.sent_message": "a sent message exists once the user sends one (the crawl posts nothing): "
                                       "test_ehr_staff_messages::"
                                       "test_a_sent_message_is_stored_with_its_patient_and_order_and_listed_as_sent",
    },
    "payer_portal_a": {
        "appeals.detail": "no appeal seeded: test_portal_a_claims::test_appeal_with_typed_letter_and_attachment",
        "appeals.attachment": "no appeal seeded: "
                              "test_portal_a_claims::test_appeal_with_typed_letter_and_attachment",
        "pa_wizard.step": "no draft seeded; starting a request redirects into the wizard: "
                          "test_portal_a_wizard::test_provider_step_stores_names_from_directory_and_back_keeps_them",
        "pa_cases.attachment": "no attachment seeded: "
                               "test_portal_a_wizard::test_upload_stores_blob_with_safe_name_and_can_be_removed",
        "corrected_claims.detail": "no corrected claim seeded: test_portal_a_corrected_claims::test_replacement_claim_"
                                   "gets_its_number_lines_and_replaces_the_original",
        "pa_actions.peer_to_peer_detail": "no peer-to-peer seeded; requesting one redirects here: "
                                          "test_portal_a_auth_lifecycle::test_peer_to_peer_offers_slots_then_"
                                          "schedules_a_reviewer",
        "network.detail": "linked from a network search's results, which need a payer and an NPI or name the crawl's "
                          "empty form lacks: test_provider_enrollment::test_the_network_lookup_gives_the_payers_dates",
    },
    "payer_portal_b": {
        "appeals.attachment": "no appeal attachment seeded: test_portal_b_dme_appeals::test_appeal_filed",
        "dme.attachment": "no DME attachment seeded: test_portal_b_dme_appeals::test_dme_cpap_approved",
        "corrected_claims.detail": "no corrected claim seeded; filing one redirects here: "
                                   "test_portal_b_corrected_claims::test_replacement_is_processed_and_replaces_the_claim",
        "corrected_claims.attachment": "no corrected claim seeded: "
                                       "test_portal_b_corrected_claims::test_replacement_is_processed_and_replaces_the_claim",
        "eligibility.result": "no inquiry seeded; the lookup POST redirects here: "
                              "test_portal_b_pages::test_eligibility_active_subscriber",
        "eligibility.accumulators": "no inquiry seeded; linked from an inquiry's result (View Visits Applied): "
                                    "test_benefit_accumulator::test_the_visits_page_lists_every_visit_applied_and_is_audited",
        "precert.attachment": "no attachment seeded: test_portal_b_precert::test_approved_request",
        "inpatient.detail": "no inpatient case seeded; notifying an admission redirects here: "
                            "test_portal_b_inpatient::test_a_notification_on_time_gets_its_initial_days_and_next_review",
        "referrals.detail": "no referral seeded; submitting one redirects here: "
                            "test_portal_b_referrals::test_a_referral_from_the_pcp_of_record_is_approved_for_90_days",
        "policies.fill_fax_form": "offered only on a fax-only policy's page, which the crawl's policy page is not: "
                                  "test_portal_b_fax_form::test_the_policy_offers_the_form_filled_in_online_or_blank",
    },
    "fax": {
        "compose.edit": "no draft seeded: test_fax_compose::test_new_fax_creates_a_server_side_draft_listed_in_drafts",
        "compose.attachment": "no draft seeded: test_fax_compose::test_upload_counts_pages_and_keeps_the_bytes",
    },
}


def clickable_endpoints(app: Flask) -> set[str]:
    """GET endpoints a coordinator should be able to open by clicking."""
    return {rule.endpoint for rule in app.url_map.iter_rules()
            if "GET" in rule.methods and rule.endpoint not in INFRASTRUCTURE_ENDPOINTS
            and not rule.endpoint.startswith("bench.") and not is_api_endpoint(rule.endpoint)}


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
