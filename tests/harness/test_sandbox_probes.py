"""The sandbox under attack from the agent (hostile URLs) and from page JavaScript (every way
a page can open a connection): other local listeners on IPv4 and IPv6 and the apps' bench
ports are reached 0 times, and the bench API never answers the page, however its path is
spelled."""
from __future__ import annotations

import pytest

from tests.harness.conftest import adhoc
from tests.harness.listeners import CountingListener, ipv6_loopback_available
from tests.harness.test_hostile_urls import HOSTILE_URLS, REDIRECT_CARRIERS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BENCH_SPELLINGS = ["/_bench/snapshot", "/%2F_bench/snapshot", "/%2F%5Fbench/snapshot",
                   "//_bench/snapshot", "/./_bench/snapshot", "/%5Fbench/snapshot",
                   "/x/../_bench/snapshot", "/_%62ench/health", "/%5C_bench/health",
                   "/%255Fbench/snapshot", "/%252F%255Fbench/health", "/%25%35F%2542ENCH/health"]

# Signs in from the page with a redirect target in the query: a followed redirect would
# be the request that reaches the bench API.
SIGN_IN_AND_FOLLOW_JS = """async carriers => {
  const csrf = document.querySelector('input[name=csrf_token]').value;
  const seen = {};
  for (const url of carriers) {
    const body = new URLSearchParams({csrf_token: csrf, username: 'coordinator', password: 'admindesk'});
    seen[url] = await fetch(url, {method: 'POST', body}).then(r => 'answered ' + r.status, () => 'failed');
  }
  return seen;
}"""

# Every probe runs against every target URL; each reports what the page saw.
PROBES_JS = """async ([targets, sockets, turn]) => {
  const seen = {};
  const wait = ms => new Promise(r => setTimeout(r, ms));
  const attempt = async (name, fn) => {
    try { seen[name] = String(await Promise.race([fn(), wait(1500).then(() => 'pending')])); }
    catch (e) { seen[name] = 'failed'; }
  };
  const add = (tag, attrs) => { const el = document.createElement(tag);
    Object.assign(el, attrs); document.body.appendChild(el); return el; };
  for (const url of targets) {
    await attempt('fetch ' + url, () => fetch(url, {mode: 'no-cors'}).then(r => 'answered ' + r.type));
    await attempt('fetch-keepalive ' + url, () => fetch(url, {method: 'POST', keepalive: true,
                                                             mode: 'no-cors', body: 'x'}).then(() => 'answered'));
    await attempt('xhr ' + url, () => new Promise((ok, no) => { const x = new XMLHttpRequest();
      x.onload = () => ok('answered ' + x.status); x.onerror = () => no(); x.open('GET', url); x.send(); }));
    await attempt('beacon ' + url, () => navigator.sendBeacon(url, 'x'));
    await attempt('eventsource ' + url, () => new Promise((ok, no) => { const s = new EventSource(url);
      s.onopen = () => ok('answered'); s.onerror = () => { s.close(); no(); }; }));
    await attempt('worker ' + url, () => new Promise(ok => { const w = new Worker(URL.createObjectURL(
      new Blob([`fetch(${JSON.stringify(url)}, {mode: 'no-cors'}).then(() => postMessage('answered'),
                                                         () => postMessage('failed'))`])));
      w.onmessage = e => ok(e.data); }));
    add('img', {src: url}); add('iframe', {src: url}); add('script', {src: url});
    add('link', {rel: 'prefetch', href: url}); add('link', {rel: 'preconnect', href: url});
    add('link', {rel: 'stylesheet', href: url});
    const frame = add('iframe', {name: 'sink' + targets.indexOf(url)});
    const form = add('form', {method: 'POST', action: url, target: frame.name});
    form.submit();
    window.open(url);
  }
  for (const url of sockets) {
    await attempt('websocket ' + url, () => new Promise((ok, no) => { const s = new WebSocket(url);
      s.onopen = () => ok('answered'); s.onerror = () => no(); }));
  }
  await attempt('webrtc', async () => {
    const frame = add('iframe', {});  // a fresh frame's globals, in case the page's were patched
    const Peer = window.RTCPeerConnection || frame.contentWindow.RTCPeerConnection;
    if (!Peer) return 'no RTCPeerConnection';
    const pc = new Peer({iceServers: [{urls: turn, username: 'u', credential: 'p'}]});
    pc.createDataChannel('x');
    await pc.setLocalDescription(await pc.createOffer());
    await wait(1000);
    return 'gathered';
  });
  await attempt('service worker', async () => {
    await navigator.serviceWorker.register('/sw.js').catch(() => null);
    return 'registrations: ' + (await navigator.serviceWorker.getRegistrations()).length;
  });
  await wait(1000);
  return seen;
}"""


@pytest.fixture
def listeners():
    """A counting listener on 127.0.0.1 and (if the machine has it) one on ::1."""
    made = [CountingListener("127.0.0.1")]
    if ipv6_loopback_available():
        made.append(CountingListener("::1"))
    yield made
    for listener in made:
        listener.close()


def test_hostile_urls_reach_no_listener_and_no_bench_endpoint(fixture_env, listeners):
    fixture_env.reset(adhoc("/page2", max_steps=10_000))
    app_port = fixture_env.services.ports["ehr_web"]
    for port in [app_port] + [listener.port for listener in listeners]:
        for url in HOSTILE_URLS + [f"http://localhost:{port}/", f"http://127.0.0.1:{port}/",
                                   f"http://[::1]:{port}/"]:
            url = url.replace("{P}", str(port))
            if port == app_port and url.rstrip("/").endswith(f":{port}"):
                continue  # the app's own front page is allowed
            for action in ({"type": "goto", "url": url}, {"type": "new_tab", "url": url}):
                obs, *_ = fixture_env.step(action)
                assert obs.last_action_error, url
    assert [listener.connections for listener in listeners] == [0] * len(listeners)
    assert fixture_env.record().final_snapshots["ehr_web"]["bench_refused"] == 0


def test_page_javascript_reaches_no_listener_and_no_bench_endpoint(fixture_env, listeners):
    fixture_env.reset(adhoc("/"))
    port, bench_port = fixture_env.services.ports["ehr_web"], fixture_env.services.bench_ports["ehr_web"]
    hosts = [("127.0.0.1", listeners[0].port), ("localhost", listeners[0].port)]
    if len(listeners) > 1:
        hosts += [("[::1]", listeners[1].port), ("localhost", listeners[1].port)]
    targets = [f"http://{host}:{p}/probe" for host, p in hosts]
    targets += [f"http://127.0.0.1:{port}{path}" for path in BENCH_SPELLINGS]
    targets += [f"http://localhost:{port}{path}" for path in BENCH_SPELLINGS[:3]]
    targets += [f"http://{host}:{bench_port}/_bench/health" for host in ("127.0.0.1", "localhost")]
    sockets = [f"ws://{host}:{p}/" for host, p in hosts] + [f"ws://127.0.0.1:{port}/_bench/health",
                                                            f"ws://127.0.0.1:{bench_port}/_bench/health"]
    turn = f"turn:127.0.0.1:{listeners[0].port}?transport=tcp"
    seen = fixture_env._episode.page.evaluate(PROBES_JS, [targets, sockets, turn])
    fixture_env.step({"type": "wait", "seconds": 1})  # let popups and frames load, if they can
    assert [listener.connections for listener in listeners] == [0] * len(listeners), seen
    state = fixture_env.record().final_snapshots["ehr_web"]
    # The page's bench spellings reach the pages' port (nothing intercepts them), where the
    # bench API is never served: refused, every one, and none answered.
    assert state["bench_refused"] > 0 and state["bench_answered_on_pages_port"] == 0, seen
    assert state["bench_port_refused"] == 0, seen  # the bench port itself is out of the page's reach
    answered_elsewhere = {probe for probe, result in seen.items()
                          if result.startswith("answered") and ("probe" in probe or f":{bench_port}/" in probe)}
    assert not answered_elsewhere, seen
    assert seen["webrtc"] == "no RTCPeerConnection" and seen["service worker"] == "registrations: 0"
    assert all(not url.startswith(("http://[::1]", f"http://127.0.0.1:{listeners[0].port}"))
               for _, url in fixture_env._episode.tabs())


def test_downloads_named_to_climb_out_land_inside_downloads(fixture_env):
    fixture_env.reset(adhoc("/"))
    page = fixture_env._episode.page
    for name in ("../../escape.txt", "..\\..\\escape2.txt", "/etc/escape3.txt"):
        page.evaluate("name => { const a = document.createElement('a'); a.href = "
                      "'/files/named?name=' + encodeURIComponent(name); document.body.appendChild(a);"
                      " a.click(); }", name)
        fixture_env.step({"type": "wait", "seconds": 0.5})
    page.evaluate("() => { const a = document.createElement('a'); a.href = '/files/report.pdf';"
                  " a.download = '../../escape4.pdf'; document.body.appendChild(a); a.click(); }")
    obs, *_ = fixture_env.step({"type": "wait", "seconds": 0.5})
    downloads = fixture_env.downloads_dir
    assert len(obs.downloads) == 4 and all("/" not in n and "\\" not in n for n in obs.downloads)
    assert sorted(path.name for path in downloads.iterdir()) == sorted(obs.downloads)
    assert [path.name for path in downloads.parent.iterdir()] == [downloads.name]
    assert not any(downloads.parent.parent.glob("escape*"))


def test_a_redirect_into_the_bench_api_reaches_no_bench_answer(fixture_env):
    fixture_env.reset(adhoc("/login", login=False))
    fixture_env._episode.page.evaluate(SIGN_IN_AND_FOLLOW_JS, REDIRECT_CARRIERS)
    port = fixture_env.services.ports["ehr_web"]
    for carrier in REDIRECT_CARRIERS:  # the agent's own way: open it, then sign in
        obs, *_ = fixture_env.step({"type": "goto", "url": f"http://127.0.0.1:{port}{carrier}"})
        assert obs.last_action_error, carrier
    state = fixture_env.record().final_snapshots["ehr_web"]
    assert state["bench_answered_on_pages_port"] == 0 and state["bench_port_refused"] == 0
