"""Reference solution of template peer_to_peer: the request on file at portal A was denied
and the ordering physician's office asked, by fax, for a peer-to-peer. Read the denied
case and the office's latest fax (a later fax replaces an earlier one's times), request the
peer-to-peer on the case with the callback number the fax gives, book the offered time the
physician can take, record the denial on the order and leave the physician the call's
details in an order comment."""
from __future__ import annotations

import re
from datetime import date, datetime, time

from admindesk.harness.agents.reference import ehr_steps, fax_steps, portal_a
from admindesk.harness.agents.reference.prior_auth.auth_on_file.denied_request import (
    hand_on,
    read_denied_case,
    record_denial,
)
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

# "she can take the call on Wednesday 11/18 between 1:00 and 5:00 PM", "He can take it
# Thursday 11/19 after 3:30 PM only", "He can take the call Tuesday 11/17 before 11:00 AM".
AVAILABILITY = re.compile(r"can take (?:the call|it)[^.]*?(?P<month>\d{1,2})/(?P<day>\d{1,2})[^.]*?"
                          r"(?P<how>after|before|between) (?P<h1>\d{1,2}):(?P<m1>\d{2})"
                          r"(?: and (?P<h2>\d{1,2}):(?P<m2>\d{2}))? (?P<half>AM|PM)")
CALLBACK = re.compile(r"[Cc]allback[^0-9]*?(\d{3}-\d{3}-\d{4})")


def _clock(hour: str, minute: str, half: str) -> time:
    return time(int(hour) % 12 + (12 if half == "PM" else 0), int(minute))


def availability(text: str, year: int) -> tuple[date, time, time, str]:
    """The day, the window (from, to) and the callback number a clinic's fax gives."""
    found, callback = AVAILABILITY.search(" ".join(text.split())), CALLBACK.search(text)
    if found is None or callback is None:
        raise ScriptFailed(f"the fax gives no time the physician can take or no callback: {text[:200]!r}")
    day = date(year, int(found["month"]), int(found["day"]))
    first = _clock(found["h1"], found["m1"], found["half"])
    if found["how"] == "between":
        window = (first, _clock(found["h2"], found["m2"], found["half"]))
    else:
        window = (first, time(23, 59)) if found["how"] == "after" else (time(0, 0), first)
    return day, window[0], window[1], re.sub(r"\D", "", callback.group(1))


def read_clinic_fax(work: Work) -> None:
    """The newest fax about the patient from the ordering physician's office (the inbox lists
    newest first), found by the office's fax number and read from its pages."""
    number = fax_steps.case_fax_number(work, work.case["faxes"][0]["key"])  # the office sends from one number
    _row, _file, text = fax_steps.find_fax(work, number, lambda text: work.patient_name in " ".join(text.split()),
                                           f"about {work.patient_name}")
    day, start, end, callback = availability(text, int(work.task.now.year))
    work.notes.update(available_day=day.isoformat(), available_from=start.isoformat(),
                      available_to=end.isoformat(), callback=callback)


def book_call(work: Work) -> None:
    """Request the peer-to-peer on the case (the ordering physician, the callback number),
    then pick the offered time inside the physician's window."""
    actor = work.actor
    portal_a.open_case(work, work.need("case_number"))
    actor.click("a:text-is('Request peer-to-peer')")
    actor.fill("input[name=physician_name]", work.need("provider").split(",")[0])
    actor.fill("input[name=callback_phone]", work.need("callback"))
    actor.click("main form button:text-is('Request peer-to-peer')")
    if not actor.count("main h2:text-is('Choose a time')"):
        raise ScriptFailed(f"the peer-to-peer was not requested: {actor.text('main')[:400]}")
    day = date.fromisoformat(work.need("available_day"))
    start, end = time.fromisoformat(work.notes["available_from"]), time.fromisoformat(work.notes["available_to"])
    offered = work.env.page_locator("input[name=slot]").evaluate_all("els => els.map(e => e.value)")
    fits = [slot for slot in offered if (when := datetime.fromisoformat(slot)).date() == day
            and start <= when.time() <= end]
    if not fits:
        raise ScriptFailed(f"no offered time ({offered}) falls on {day} between {start} and {end}")
    actor.click(f"input[name=slot][value='{fits[0]}']")
    actor.click("button:text-is('Book this time')")
    if not actor.count("xpath=//dt[normalize-space()='Payer reviewer']"):
        raise ScriptFailed(f"the time was not booked: {actor.text('main')[:400]}")
    work.notes.update(call=actor.text("main h1").split()[1], scheduled=actor.fact("Scheduled"),
                      reviewer=actor.fact("Payer reviewer"))


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    ehr_steps.open_chart(work)
    ehr_steps.open_order(work)
    if work.doing("read_denial"):
        read_denied_case(work)
        read_clinic_fax(work)
    if work.doing("book_call"):
        book_call(work)
    if work.doing("record_denial"):
        record_denial(work)
    if work.doing("tell_physician"):
        hand_on(work, f"As {work.notes['provider']}'s office asked by fax, peer-to-peer {work.need('call')} is "
                      f"booked for {work.notes['scheduled']} with {work.notes['reviewer']}; the payer will call "
                      f"{work.notes['provider']} at {work.notes['callback']}. Follow up on the outcome after the call "
                      f"({us_date(work.notes['available_day'])}).", "Peer-to-Peer Requested")
    work.finish(f"Case {work.notes.get('case_number', '?')} was denied; peer-to-peer "
                f"{work.notes.get('call', 'not booked')} "
                f"is booked for {work.notes.get('scheduled', '?')} with {work.notes.get('reviewer', '?')}, and the "
                "time is in an order comment for the ordering physician.")
