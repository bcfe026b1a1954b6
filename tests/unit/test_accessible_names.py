"""The accessible-name checker the page crawl relies on finds what it should, and only that."""
from __future__ import annotations

import pytest

from tests.app.accessible_names import unnamed_controls


@pytest.mark.parametrize("html", [
    '<label for="mrn">MRN</label><input id="mrn" name="mrn">',
    '<input id="dob" name="dob"><label for="dob">Date of birth</label>',
    '<label>Payer <select name="payer"><option>A</option></select></label>',
    '<textarea name="note" aria-label="Note text"></textarea>',
    '<input type="hidden" name="csrf_token" value="x">',
    '<input type="submit" value="Search">',
    '<button type="submit">Save</button>',
    '<button aria-label="Close dialog">&times;</button>',
    '<a href="/x"><img src="/i.png" alt="Home"></a>',
    '<a name="top"></a>',
])
def test_named_controls_pass(html):
    assert unnamed_controls(html) == []


@pytest.mark.parametrize("html,found", [
    ('<input name="mrn">', "text name='mrn'"),
    ('<label for="other">X</label><select name="payer"></select>', "select name='payer'"),
    ('<textarea name="note"></textarea>', "textarea name='note'"),
    ('<input type="submit">', "input type=submit"),
    ('<button type="button"> </button>', "button"),
    ('<a href="/patients/1"></a>', "a '/patients/1' without text"),
    ('<img src="/logo.png">', "without alt"),
])
def test_unnamed_controls_are_reported(html, found):
    (problem,) = unnamed_controls(html)
    assert found in problem
