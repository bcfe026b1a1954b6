"""What the agent's browser may reach: this Env's app ports on loopback, nothing else.

Two layers: URLs the agent asks for (goto, address bar, new tab) are checked here before
any navigation; requests the page makes are matched against `blocked_request_pattern`
inside the browser driver and aborted.
"""
from __future__ import annotations

import re
from typing import Iterable
from urllib.parse import unquote, urlsplit

LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
BLANK = "about:blank"


class NavigationBlocked(ValueError):
    """The agent asked for a URL outside the benchmark's apps."""


def bench_path(url: str) -> bool:
    """True if the URL points into the bench API, however the path is spelled."""
    return "/_bench" in unquote(urlsplit(url).path).lower().replace("\\", "/")


def check_navigation(url: str, allowed_ports: Iterable[int]) -> str:
    """The URL the agent may open (a bare host:port gets http://), else NavigationBlocked."""
    url = url.strip()
    if url == BLANK:
        return url
    if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url) or re.match(r"^[\w.-]+:\d+", url):
        url = "http://" + url  # typed without a scheme, as people do in an address bar
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise NavigationBlocked(f"{parts.scheme}: URLs are not allowed")
    try:
        port = parts.port
    except ValueError:
        raise NavigationBlocked(f"invalid port in {url!r}") from None
    if parts.hostname not in LOOPBACK_HOSTS or port not in set(allowed_ports):
        raise NavigationBlocked(f"{parts.hostname}:{port} is not one of the benchmark's apps")
    if bench_path(url):
        raise NavigationBlocked("the bench API is not reachable from the browser")
    return url


def blocked_request_pattern(allowed_ports: Iterable[int]) -> re.Pattern:
    """Matches every request the page must not make (checked inside the browser driver)."""
    hosts = "|".join(re.escape(host) for host in LOOPBACK_HOSTS)
    ports = "|".join(str(port) for port in sorted(allowed_ports))
    return re.compile(rf"^(?!https?://(?:{hosts}):(?:{ports})/)|/(?:_|%5f)bench", re.IGNORECASE)
