"""Helpers every app's views use: the request's database session, the signed-in user, lookups."""
from __future__ import annotations

from flask import abort, current_app, g
from sqlalchemy.orm import Session


def db() -> Session:
    """The database session of the current request."""
    return current_app.extensions["admindesk"].db.request_session()


def current_username() -> str:
    """The signed-in staff member's user name."""
    return g.user.username


def get_or_404(model, key):
    """The row with primary key `key`, or the kit's 404 page (an empty or missing key is not found)."""
    row = db().get(model, key) if key is not None and key != "" else None
    if row is None:
        abort(404)
    return row
