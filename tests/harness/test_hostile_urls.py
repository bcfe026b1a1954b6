"""Whatever URL an agent types, `Env.step` answers with an action error, never an exception,
and `localhost` means this Env's apps, not whoever listens on ::1."""
from __future__ import annotations

import time

import pytest

from admindesk.harness.env.sandbox import (
    NavigationBlocked,
    api_path,
    bench_path,
    blocked_request_pattern,
    check_navigation,
)
from tests.harness.conftest import adhoc
from tests.harness.listeners import CountingListener, ipv6_loopback_available

# {P} is an allowed app port: each URL is refused although it names (or seems to name) it.
HOSTILE_URLS = [
    "http://[",
    "http://[::1:{P}/",
    "http://[::1]:{P}/",
    "http://127.0.0.1\uff1a{P}/",            # full-width colon
    "http://127.0.0.1:{P}\uff03/",           # full-width number sign in the netloc
    "http://a\uff03b/",
    "http://evil.example\\@127.0.0.1:{P}/",  # browsers read "\" as "/": host evil.example
    "http://evil.example\\\\127.0.0.1:{P}/",
    "http://user:secret@127.0.0.1:{P}/",
    "http://127.0.0.1:{P}@evil.example/",
    "http://127.0.0.1:99999/",
    "http://127.0.0.1:{P}:{P}/",
    "http://0.0.0.0:{P}/",
    "http:///",
    " ",
    "\x00javascript:alert(1)",
    "java\tscript:alert(1)",
    "http://127.0.0.1:{P}/%2F_bench/snapshot",
    "http://127.0.0.1:{P}//_bench/snapshot",
    "http://127.0.0.1:{P}/./_bench/snapshot",
    "http://127.0.0.1:{P}/%5Fbench/snapshot",
    "http://127.0.0.1:{P}/%252F%255Fbench/health",
    "127.0.0.1:{P}\\_bench\\health",
    "http://localhost:{P}\t/_bench/health",
    "http://127.0.0.1:{P}/%255Fbench/snapshot",                  # decoded twice, then routed
    "http://127.0.0.1:{P}/%25255F%2542ENCH/health",
    "http://127.0.0.1:{P}/login?next=/%5Fbench/snapshot",        # the app redirects there
    "http://127.0.0.1:{P}/login?next=%2F%255Fbench%2Fsnapshot",
]
# Where a redirect leads: the request that carries the target is the one refused, since
# the browser driver never shows a redirect's next request to the request check.
REDIRECT_CARRIERS = ["/login?next=/_bench/snapshot", "/login?next=%2F%255Fbench%2Fsnapshot",
                     "/login?next=%252F%25255FBench%252Fhealth", "/x?next=/a/%2e%2e/%5F%62ench/reset"]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_check_navigation_refuses_with_its_own_error_only(url):
    with pytest.raises(NavigationBlocked):
        check_navigation(url.replace("{P}", "5100"), [5100])


def test_allowed_urls_are_handed_on_rebuilt_from_their_checked_parts():
    assert check_navigation(" 127.0.0.1:5100/a?b=1#c ", [5100]) == "http://127.0.0.1:5100/a?b=1#c"
    assert check_navigation("HTTP://localhost:5100", [5100]) == "http://localhost:5100/"
    assert check_navigation("about:blank", [5100]) == "about:blank"


@pytest.mark.parametrize("path", ["/_bench/x", "/%2F_bench/x", "/%2f%5Fbench", "//_bench",
                                  "/./_bench", "/_%62ench/health", "/a%5C_bench", "/%5F%42ENCH"])
def test_request_pattern_blocks_every_single_encoding_of_the_bench_api(path):
    url = "http://127.0.0.1:5100" + path
    assert blocked_request_pattern([5100]).search(url) and bench_path(url)
    assert not blocked_request_pattern([5100]).search("http://127.0.0.1:5100/benchmarks")


@pytest.mark.parametrize("path", ["/%255Fbench/snapshot", "/%252F%255Fbench/health", "/%25255f%2542ENCH/x",
                                  "/a%255c_bench", "/%25%35Fbench", "/_BeNcH/health", *REDIRECT_CARRIERS])
def test_both_checks_refuse_every_repeated_encoding_and_every_redirect_target(path):
    url = "http://127.0.0.1:5100" + path
    assert blocked_request_pattern([5100]).search(url) and bench_path(url)
    with pytest.raises(NavigationBlocked):
        check_navigation(url, [5100])


def test_an_overlong_url_is_refused_before_any_decoding():
    with pytest.raises(NavigationBlocked, match="longer than any app's"):
        check_navigation("http://127.0.0.1:5100/" + "%25" * 100_000, [5100])


def test_the_request_pattern_stays_linear_on_a_long_run_of_encoded_percents():
    # The pattern runs in the browser driver on every request: backtracking over a run of
    # "%25" (what an unbounded "%(25)*" does) would stall the page's requests.
    started = time.perf_counter()
    blocked_request_pattern([5100]).search("http://127.0.0.1:5100/" + "%25" * 300_000)
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("path", ["/fhir/Patient?identifier=E1", "/oauth/token", "/FHIR/metadata", "/fhir",
                                  "//fhir/Patient", "/%66hir/Patient", "/%2566%2568ir/Claim", "/a/../fhir/x",
                                  "/%2e%2e/oauth/token"])
def test_the_apis_are_kept_from_the_browser(path):
    url = "http://127.0.0.1:5100" + path
    assert api_path(url)
    with pytest.raises(NavigationBlocked, match="tool channel"):
        check_navigation(url, [5100])
    if "/.." not in path and "%2e" not in path:  # Chromium resolves dot segments before it sends
        assert blocked_request_pattern([5100]).search(url)


@pytest.mark.parametrize("path", ["/benchmarks", "/login?next=/patients/12", "/search?q=bench",
                                  "/a%252Fb", "/patients/_benc/h", "/patients/fhir", "/fhirs/1", "/search?q=fhir",
                                  "/oauthx"])
def test_ordinary_app_urls_pass_both_checks(path):
    url = "http://127.0.0.1:5100" + path
    assert not blocked_request_pattern([5100]).search(url) and not bench_path(url) and not api_path(url)
    assert check_navigation(url, [5100]) == url



@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_step_turns_hostile_urls_into_action_errors(fixture_env, url):
    obs, _ = fixture_env.reset(adhoc("/page2"))
    url = url.replace("{P}", str(fixture_env.services.ports["ehr_web"]))
    start = obs.url
    obs, *_ = fixture_env.step({"type": "goto", "url": url})
    assert obs.last_action_error and obs.url == start
    obs, *_ = fixture_env.step({"type": "new_tab", "url": url})
    assert obs.last_action_error and len(obs.tabs) == 1 and obs.url == start
    # Typed into the drawn address bar, then Enter.
    fixture_env.step({"type": "key", "keys": "Control+L"})
    fixture_env.step({"type": "type", "text": url})
    obs, *_ = fixture_env.step({"type": "key", "keys": "Enter"})
    assert obs.last_action_error and obs.url == start and len(obs.tabs) == 1


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif(not ipv6_loopback_available(), reason="no IPv6 loopback on this machine")
def test_localhost_reaches_this_envs_app_not_a_listener_on_ipv6_loopback(fixture_env):
    port = fixture_env.services.ports["ehr_web"]
    impostor = CountingListener("::1", port)  # same port number, other address family
    try:
        fixture_env.reset(adhoc("/"))
        obs, *_ = fixture_env.step({"type": "goto", "url": f"http://localhost:{port}/page2"})
        # Signed in on 127.0.0.1 only (cookies are per host name): the app's own sign-in.
        assert obs.last_action_error is None and obs.tabs[0].title == "Sign in - ehr_web"
        fetched = fixture_env._episode.page.evaluate(
            "url => fetch(url).then(r => r.text(), e => 'failed')", f"http://localhost:{port}/login")
        assert "ehr_web sign in" in fetched
        assert impostor.connections == 0
    finally:
        impostor.close()
