"""Finds the controls of a page that have no accessible name.

An agent reading the accessibility tree sees an unnamed field or button as a bare
"textbox" or "button": it cannot tell what it does. Every form control, button, link and
image must therefore be named by a label, its text, `aria-label`/`aria-labelledby`,
`title`, a submit button's `value`, or an image's `alt`.
"""
from __future__ import annotations

from html.parser import HTMLParser

UNNAMED_INPUT_TYPES = {"hidden"}
VALUE_NAMED_INPUT_TYPES = {"submit", "reset", "button"}
ARIA_NAMING = ("aria-label", "aria-labelledby", "title")


class _Controls(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.label_targets: set[str] = set()
        self.labelled_by_wrapping: set[int] = set()
        self.fields: list[tuple[int, str, dict]] = []  # (index, description, attrs) needing a label
        self.unnamed: list[str] = []
        self._label_depth = 0
        self._text_owners: list[tuple[str, dict, list[str]]] = []  # open buttons/links and their text

    def handle_starttag(self, tag, attrs):
        attrs = {name: value or "" for name, value in attrs}
        for _, _, text in self._text_owners:
            if tag == "img" and attrs.get("alt"):
                text.append(attrs["alt"])  # an image inside a link or button names it
        if tag == "label":
            self._label_depth += 1
            if attrs.get("for"):
                self.label_targets.add(attrs["for"])
        elif tag in ("button", "a") and not (tag == "a" and "href" not in attrs):
            self._text_owners.append((tag, attrs, []))
        elif tag == "img" and "alt" not in attrs:
            self.unnamed.append(f"img src={attrs.get('src', '')!r} without alt")
        elif tag in ("input", "select", "textarea"):
            self._field(tag, attrs)

    def _field(self, tag: str, attrs: dict):
        kind = (attrs.get("type") or "text").lower() if tag == "input" else tag
        if kind in UNNAMED_INPUT_TYPES or any(attrs.get(a, "").strip() for a in ARIA_NAMING):
            return
        if kind in VALUE_NAMED_INPUT_TYPES:
            if not attrs.get("value", "").strip():
                self.unnamed.append(f"input type={kind} name={attrs.get('name')!r} without a value")
            return
        index = len(self.fields)
        self.fields.append((index, f"{kind} name={attrs.get('name')!r} id={attrs.get('id')!r}", attrs))
        if self._label_depth:
            self.labelled_by_wrapping.add(index)

    def handle_data(self, data):
        for _, _, text in self._text_owners:
            text.append(data)

    def handle_endtag(self, tag):
        if tag == "label":
            self._label_depth = max(0, self._label_depth - 1)
        elif tag in ("button", "a") and self._text_owners and self._text_owners[-1][0] == tag:
            _, attrs, text = self._text_owners.pop()
            if not "".join(text).strip() and not any(attrs.get(a, "").strip() for a in ARIA_NAMING):
                self.unnamed.append(f"{tag} {attrs.get('href') or attrs.get('name') or ''!r} without text")


def unnamed_controls(html: str) -> list[str]:
    """Descriptions of the page's controls that have no accessible name."""
    parser = _Controls()
    parser.feed(html)
    unlabelled = [description for index, description, attrs in parser.fields
                  if index not in parser.labelled_by_wrapping and attrs.get("id") not in parser.label_targets]
    return parser.unnamed + unlabelled
