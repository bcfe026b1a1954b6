"""The words the kit itself shows (sign-in errors, error pages, the double-submit notice).

Every vendor words these its own way, so each app may replace any of them through
`AppSpec.messages`; what an app does not replace reads as below.
"""
from __future__ import annotations

from flask import current_app

DEFAULT_MESSAGES: dict[str, str] = {
    "login_missing": "Enter your user name and password.",
    "login_incorrect": "The user name or password is incorrect.",
    "form_expired_title": "Form expired",
    "form_expired": "This form is no longer valid. Reload the page and submit it again.",
    "not_found_title": "Not found",
    "not_found": "The page or record you asked for does not exist.",
    "file_too_large_title": "File too large",
    "file_too_large": "Uploads are limited to 10 MB. Choose a smaller file.",
    "text_too_long_title": "Text too long",
    "text_too_long": "This form holds more text than it can take. Go back, shorten the long field and submit again.",
    "field_too_long": ("The field \u201c{field}\u201d holds {length:,} characters; forms take at most {limit:,}. "
                       "Go back, shorten it and submit again."),
    "double_submit": "This form was already submitted a moment ago; it was saved once, not twice.",
}


def check_messages(messages: dict[str, str]) -> None:
    """An app may only replace messages the kit has (a typo would silently do nothing)."""
    unknown = sorted(set(messages) - set(DEFAULT_MESSAGES))
    if unknown:
        raise ValueError(f"unknown kit message key(s): {', '.join(unknown)}")


def message(key: str, **values) -> str:
    """The current app's wording of kit message `key`, filled with `values`."""
    text = current_app.extensions["admindesk"].spec.messages.get(key) or DEFAULT_MESSAGES[key]
    return text.format(**values) if values else text
