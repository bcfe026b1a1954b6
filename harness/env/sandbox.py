"""What the agent's browser may reach: this Env's app ports on loopback, nothing else.

Three layers: URLs the agent asks for (goto, address bar, new tab) are checked here before
any navigation and handed to Chromium rebuilt from the checked parts (so the browser cannot
read a different host out of them); every connection the browser opens to anything but
the app ports goes to a refusing proxy (browser.py), the bench ports included; page APIs
that open sockets outside the network stack (WebRTC) are removed by `PAGE_LOCKDOWN_JS`.
The app ports never serve the bench API (request_guards.BenchPortSplit) and refuse browsers
their APIs, so what the page requests needs no inspection.

`blocked_request_pattern` is for a browser context the harness does not create (BrowserGym
makes its own, without the proxy): there, requests are matched inside the browser driver
and aborted. The driver never shows a redirect's next request to that check (Playwright
routes only the request a page makes, by design), so both checks refuse a URL that
carries a bench path anywhere, its query included: that is where a redirect target rides
(`/login?next=...`).
"""
from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import Iterable
from urllib.parse import unquote, urlsplit

LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
BLANK = "about:blank"
BENCH_SEGMENT = "_bench"
# The apps' APIs (FHIR, PAS and their token endpoint) belong to the tool channel
# (`--channel api`); the screens' agent is kept off them as it is off the bench API. The
# apps mount them under these first path segments.
API_SEGMENTS = ("fhir", "oauth")
# The request pattern finds a bench path under this many rounds of percent-encoding: the
# server decodes once, and each redirect it is made to follow once more. A regular
# expression cannot decode until stable (the apps' guard and `bench_path` do); a bounded
# one also keeps matching linear in the URL's length, which an unbounded `%(25)*` is not.
PATTERN_DECODINGS = 3
# Longer than any app's URL; decoding until stable costs a round per nesting level.
MAX_URL_CHARS = 16_384
# What browsers drop from a typed URL before parsing it (WHATWG URL: tab and newlines
# anywhere, C0 controls and spaces at the ends).
_IGNORED_IN_URL = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_HOST_AND_PORT = re.compile(r"^[\w.-]+:\d+")

# Runs before any page script in every frame and popup. WebRTC's ICE traffic (STUN/TURN)
# goes straight to sockets, past request interception, so the page simply has no
# RTCPeerConnection (no app uses it).
PAGE_LOCKDOWN_JS = """(() => {
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel',
                      'RTCIceTransport']) {
    try { delete window[name]; } catch (e) { /* not configurable: leave it */ }
  }
})();"""


class NavigationBlocked(ValueError):
    """The agent asked for a URL outside the benchmark's apps."""


def bench_path(url: str) -> bool:
    """True if the URL leads into the bench API, however it is spelled.

    Looks at the path and the query: a query can carry a path the app redirects to
    (`/login?next=/%5Fbench/...`), and the browser follows redirects unchecked, so the
    request carrying the target is the one to refuse. Decodes until stable (a server
    decodes once, each redirect once more), folds the separators browsers and servers
    treat as `/`, and ignores letter case.
    """
    try:
        parts = urlsplit(url)
        text = f"{parts.path}?{parts.query}"
    except ValueError:
        text = url
    while (decoded := unquote(text)) != text:  # each round shortens it: it ends
        text = decoded
    return "/" + BENCH_SEGMENT in text.lower().replace("\\", "/")


def api_path(url: str) -> bool:
    """True if the URL's path leads into an app's API: decoded until stable, `\\` read as
    `/`, dot segments applied, its first segment one of API_SEGMENTS (any letter case)."""
    try:
        path = urlsplit(url).path
    except ValueError:
        path = url
    while (decoded := unquote(path)) != path:
        path = decoded
    resolved = posixpath.normpath("/" + path.replace("\\", "/").lstrip("/"))
    return resolved.strip("/").split("/", 1)[0].lower() in API_SEGMENTS


def check_navigation(url: str, allowed_ports: Iterable[int]) -> str:
    """The URL the agent may open (a bare host:port gets http://), else NavigationBlocked.

    Never raises anything else, whatever the text: it is what an agent typed.
    """
    if not isinstance(url, str):
        raise NavigationBlocked(f"a URL must be text, not {type(url).__name__}")
    if len(url) > MAX_URL_CHARS:
        raise NavigationBlocked(f"a URL of {len(url)} characters is longer than any app's "
                                f"(at most {MAX_URL_CHARS})")
    url = _IGNORED_IN_URL.sub("", url).strip(" \x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b"
                                               "\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17"
                                               "\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f")
    if url == BLANK:
        return url
    if not _SCHEME.match(url) or _HOST_AND_PORT.match(url):
        url = "http://" + url  # typed without a scheme, as people do in an address bar
    # Browsers read "\" as "/" in http(s) URLs: "http://evil\@127.0.0.1:P" goes to evil.
    url = url.replace("\\", "/")
    try:
        parts = urlsplit(url)
        port, host = parts.port, parts.hostname
    except ValueError as exc:
        raise NavigationBlocked(f"not a valid URL ({exc}): {url[:200]!r}") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise NavigationBlocked(f"{parts.scheme}: URLs are not allowed")
    if "@" in parts.netloc:
        raise NavigationBlocked("URLs with a user name or password are not allowed")
    if host not in LOOPBACK_HOSTS or port not in set(allowed_ports):
        raise NavigationBlocked(f"{parts.netloc or '(no host)'} is not one of the "
                                "benchmark's apps")
    if bench_path(url):
        raise NavigationBlocked("the bench API is not reachable from the browser")
    if api_path(url):
        raise NavigationBlocked("the apps' APIs are the tool channel's (--channel api), not the browser's")
    rebuilt = f"{parts.scheme.lower()}://{host}:{port}{parts.path or '/'}"
    if parts.query:
        rebuilt += "?" + parts.query
    if parts.fragment:
        rebuilt += "#" + parts.fragment
    return rebuilt


@lru_cache(maxsize=None)
def _spelled(char: str, decodings: int) -> str:
    """Regex for whatever turns into `char` within `decodings` rounds of percent-decoding
    (`_`, `%5F`, `%255F`, `%25%35F`, ...), used case-insensitively (letters and hex digits)."""
    if decodings == 0:
        return re.escape(char)
    below = decodings - 1
    codes = sorted({f"{ord(variant):02x}" for variant in {char.lower(), char.upper()}})
    options = [re.escape(char)] + [_spelled("%", below) + _spelled(code[0], below) + _spelled(code[1], below)
                                   for code in codes]
    return "(?:" + "|".join(options) + ")"


def blocked_request_pattern(allowed_ports: Iterable[int]) -> re.Pattern:
    """Matches every request the page must not make (checked inside the browser driver).

    Anything not on an allowed loopback origin, any URL with `_bench` after a separator
    anywhere (path or query), and any path whose first segment is an API's, each spelled
    with up to PATTERN_DECODINGS rounds of percent-encoding: what `bench_path` and
    `api_path` find by decoding. The driver does not show a page's redirects to this check,
    so a redirect target is refused in the request that carries it.
    """
    hosts = "|".join(re.escape(host) for host in LOOPBACK_HOSTS)
    ports = "|".join(str(port) for port in sorted(allowed_ports))
    separator = f"(?:{_spelled('/', PATTERN_DECODINGS)}|{_spelled(chr(92), PATTERN_DECODINGS)})"
    segment = "".join(_spelled(char, PATTERN_DECODINGS) for char in BENCH_SEGMENT)
    apis = "|".join("".join(_spelled(char, PATTERN_DECODINGS) for char in name) for name in API_SEGMENTS)
    api_start = rf"^https?://[^/?#]+(?:{separator})+(?:{apis})(?:{separator}|[?#]|$)"
    return re.compile(rf"^(?!https?://(?:{hosts}):(?:{ports})/)|{separator}{segment}|{api_start}", re.IGNORECASE)
