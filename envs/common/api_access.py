"""Bearer tokens for an app's APIs (FHIR, PAS): issued for a staff account, void after a reset.

`POST /oauth/token` (OAuth 2.0 resource-owner password grant, form or JSON body) takes the
same staff credentials as the login page and answers an access token. The token is signed
with the app's secret and names the account and the reset generation, so it needs no table
and dies with the episode exactly as a browser session does. API blueprints (an app's
`AppSpec.api_blueprints`) are exempt from the login redirect and from CSRF, and call
`require_bearer` first: their requests are audited like page views, under the account.
"""
from __future__ import annotations

from flask import Blueprint, current_app, g, jsonify, request
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import select
from werkzeug.security import check_password_hash

from admindesk.envs.common.state.kit_models import StaffUser

TOKEN_SALT = "admindesk-api-token"
# Matches a browser session's reach: the token is void at the next reset anyway.
TOKEN_LIFETIME_S = 3600

oauth = Blueprint("api_oauth", __name__, url_prefix="/oauth")


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=TOKEN_SALT)


def _token_error(status: int, error: str, description: str):
    """An RFC 6749 error body."""
    response = jsonify(error=error, error_description=description)
    response.status_code = status
    if status == 401:
        response.headers["WWW-Authenticate"] = f'Bearer error="{error}"'
    return response


@oauth.post("/token")
def issue_token():
    """The password grant: `grant_type=password&username=...&password=...`."""
    body = request.get_json(silent=True) if request.is_json else request.form
    if not isinstance(body, dict) and not hasattr(body, "get"):
        return _token_error(400, "invalid_request", "the body must be a form or a JSON object")
    grant = body.get("grant_type")
    if grant != "password":
        return _token_error(400, "unsupported_grant_type", "grant_type must be 'password' (the staff account's "
                                                            "username and password)")
    username, password = body.get("username"), body.get("password")
    if not isinstance(username, str) or not isinstance(password, str) or not username or not password:
        return _token_error(400, "invalid_request", "username and password are required")
    kit = current_app.extensions["admindesk"]
    user = kit.db.request_session().scalar(select(StaffUser).where(StaffUser.username == username))
    if user is None or not check_password_hash(user.password_hash, password):
        g.audit = {"username": username, "action": "api_login_failed"}
        return _token_error(400, "invalid_grant", "the username or password is incorrect")
    g.audit = {"username": username, "action": "api_login"}
    token = _serializer().dumps({"u": user.username, "g": kit.db.pinned().generation})
    return jsonify(access_token=token, token_type="Bearer", expires_in=TOKEN_LIFETIME_S)


def bearer_user() -> StaffUser | None:
    """The staff account whose token this request carries, if it is valid for this reset."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    try:
        claims = _serializer().loads(token.strip())
    except BadSignature:
        return None
    kit = current_app.extensions["admindesk"]
    if not isinstance(claims, dict) or claims.get("g") != kit.db.pinned().generation:
        return None
    return kit.db.request_session().scalar(select(StaffUser).where(StaffUser.username == claims.get("u")))


def require_bearer(refusal):
    """A before_request for an API blueprint: sets `g.user` and the audit account from the
    bearer token, or answers `refusal(description)` (the API's own error body, status 401)."""

    def check():
        user = bearer_user()
        if user is None:
            response = refusal("a valid bearer token is required (POST /oauth/token; tokens end at a reset)")
            response.status_code = 401
            response.headers["WWW-Authenticate"] = 'Bearer error="invalid_token"'
            return response
        g.user = user
        g.setdefault("audit", {})["username"] = user.username
        return None

    return check


def is_api_endpoint(endpoint: str) -> bool:
    """API blueprints are named `api_*`: they authenticate by bearer token, not by session."""
    return endpoint.startswith("api_")
