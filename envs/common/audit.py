"""Server-side audit trail: one row per authenticated page view or action.

Views enrich the automatic row with `describe(...)` (which record, which tab, what
action) so that process checks can ask "did the user open the remittance of claim X".
"""
from __future__ import annotations

from flask import current_app, g, request, session

from admindesk.envs.common import clock
from admindesk.envs.common.state.kit_models import AuditEvent

# Asset requests say nothing about what the user looked at.
STATIC_ENDPOINTS = {"static", "common.static", "favicon"}


def describe(*, record_type: str | None = None, record_id: str | None = None,
             tab: str | None = None, action: str | None = None, **detail) -> None:
    """Say what the current request concerned; merged into its audit row."""
    audit = g.setdefault("audit", {})
    for key, value in (("record_type", record_type), ("record_id", record_id),
                       ("tab", tab), ("action", action)):
        if value is not None:
            audit[key] = value
    if detail:
        audit.setdefault("detail", {}).update(detail)


def also_viewed(*, record_type: str, record_id: str, **detail) -> None:
    """Record that the current request showed this record too, in a row of its own.

    An API search answers whole resources, so each one it returns is as seen as a record
    opened by id (as an EHR's access log lists every record an API call disclosed)."""
    g.setdefault("audit_views", []).append({"record_type": record_type, "record_id": record_id,
                                            "detail": detail or None})


def record_request(response):
    """after_request hook: write the audit row of an authenticated, non-bench request."""
    endpoint = request.endpoint or ""
    db = current_app.extensions["admindesk"].db
    # A login from before a reset is void: its requests (even of public pages) are anonymous.
    signed_in = session.get("generation") == db.pinned().generation
    username = (session.get("username") if signed_in else None) or g.get("audit", {}).get("username")
    if username is None or endpoint in STATIC_ENDPOINTS or endpoint.startswith("bench."):
        return response
    audit = g.get("audit", {})
    event = AuditEvent(
        at=clock.now(), username=username, method=request.method, endpoint=endpoint or None,
        path=request.full_path.rstrip("?"),
        action=audit.get("action") or ("view" if request.method == "GET" else "submit"),
        record_type=audit.get("record_type"), record_id=audit.get("record_id"),
        tab=audit.get("tab"), status_code=response.status_code, detail=audit.get("detail"))
    disclosed = [AuditEvent(at=event.at, username=username, method=request.method, endpoint=event.endpoint,
                            path=event.path, action="view", status_code=response.status_code, **view)
                 for view in g.get("audit_views", [])]
    # A separate session: the view's own transaction may have been rolled back.
    with db.request_side_session() as audit_session:
        audit_session.add_all([event, *disclosed])
        audit_session.commit()
    return response
