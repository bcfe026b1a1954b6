"""Where a post's result is shown: the state `_macros.post_feedback` hands to feedback.js."""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import request, session


def _reload_url() -> str:
    """The GET address that shows the same form again (the post itself must not repeat)."""
    rule = request.url_rule
    if rule is not None and "GET" in (rule.methods or ()):
        return request.full_path.rstrip("?")
    referrer = urlsplit(request.referrer or "")
    if referrer.netloc == request.host and referrer.path.startswith("/"):
        return referrer.path + (f"?{referrer.query}" if referrer.query else "")
    return "/"


def post_feedback_state() -> dict:
    """Is this page a post's result, and which URL reloads it safely (for the layouts)."""
    if request.method == "POST":
        return {"post_result": True, "post_reload_url": _reload_url()}
    # After a successful post the apps redirect to a page that shows a flash message.
    return {"post_result": bool(session.get("_flashes")), "post_reload_url": None}
