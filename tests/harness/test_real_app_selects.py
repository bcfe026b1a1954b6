"""Every `<select>` of one real form per app, chosen by clicks on the drawn list alone; each
choice is read back from the page and, after the form is sent, from the app's snapshot."""
from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
from PIL import Image

from admindesk.harness.env.drawing.dropdown import ROW_HEIGHT
from admindesk.harness.env.services import available_apps

APPS = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not set(APPS) <= set(available_apps()), reason="needs the four apps")]


@pytest.fixture(scope="module")
def env():
    from admindesk.harness.env.environment import Env

    with Env("screenshot", apps=list(APPS)) as shared:
        yield shared


@pytest.fixture()
def actor(env):
    from admindesk.harness.agents.scripted import ScriptedActor

    return ScriptedActor(env)


def start(env, app: str, path: str, now: str | None = None) -> None:
    task = {"id": "adhoc", "goal": "choose by clicks", "start": {"app": app, "path": path}}
    env.reset({**task, "now": now} if now else task)


def choose_by_clicks(env, actor, selector: str, label: str) -> str:
    """Open the select with a click, wheel the drawn list to `label` if needed, click it;
    returns the value the page then has."""
    actor.click(selector)
    for _ in range(20):
        drawn = env.chrome_layout().dropdown
        assert drawn is not None, f"{selector}: the click drew no list"
        rows = {row.label: box for box, row in drawn.row_boxes()}
        if label in rows:
            break
        left, top, right, bottom = drawn.box()
        actor.do({"type": "scroll", "x": (left + right) // 2, "y": (top + bottom) // 2,
                  "dy": 5 * ROW_HEIGHT})
    box = rows[label]
    actor.do({"type": "click", "x": (box[0] + box[2]) // 2, "y": (box[1] + box[3]) // 2})
    assert env.chrome_layout().dropdown is None
    chosen = actor.read(selector).evaluate("s => [s.options[s.selectedIndex].label, s.value]")
    assert chosen[0] == label, (selector, chosen)
    return chosen[1]


def choose_all(env, actor, choices: dict[str, str]) -> dict[str, str]:
    """Choose every (selector -> label), then check the page still shows each choice."""
    values = {selector: choose_by_clicks(env, actor, selector, label) for selector, label in choices.items()}
    for selector, value in values.items():
        assert actor.read(selector).input_value() == value, selector
    return values


def attach_pdf(env, actor, file_input: str, name: str) -> None:
    """Put a one-page PDF in Downloads (as if downloaded earlier) and attach it through the
    drawn file dialog."""
    buffer = io.BytesIO()
    Image.new("RGB", (200, 260), (255, 255, 255)).save(buffer, "PDF")
    (env.downloads_dir / name).write_bytes(buffer.getvalue())
    actor.click(file_input)
    actor.choose_file(name)


def new_rows(env, app: str, table: str) -> list[dict]:
    before = {str(row) for row in env.initial_snapshots[app][table]}
    return [row for row in env.record().final_snapshots[app][table] if str(row) not in before]


def submit(env, actor, button: str, app: str, table: str) -> dict:
    """Press the form's button; the one row it added to `table` (the page's alerts otherwise)."""
    actor.click(button)
    rows = new_rows(env, app, table)
    alerts = env.page_locator("[role=alert], .error").all_inner_texts()
    assert len(rows) == 1, f"{table} got {len(rows)} new rows; the page says {alerts}"
    return rows[0]


def other_label(actor, selector: str) -> str:
    """The label of the last option the select does not show now (a choice that changes it)."""
    return actor.read(selector).evaluate(
        "s => Array.from(s.options).filter(o => !o.selected && !o.disabled).pop().label")


def test_ehr_coverage_verification_by_clicks(env, actor):
    start(env, "ehr_web", "/")
    by_patient: dict[str, list[dict]] = {}
    for coverage in env.initial_snapshots["ehr_web"]["coverages"]:
        by_patient.setdefault(coverage["mrn"], []).append(coverage)
    mrn, coverages = next((mrn, rows) for mrn, rows in by_patient.items() if len(rows) > 1)
    actor.do({"type": "goto", "url": env.app_url("ehr_web", f"/patients/{mrn}/coverage")})
    target = coverages[-1]
    label = actor.read("#coverage_id").evaluate(
        "(s, id) => Array.from(s.options).find(o => o.value === id).label", target["id"])
    values = choose_all(env, actor, {"#coverage_id": label, "#result": "Unable to verify"})
    assert values == {"#coverage_id": target["id"], "#result": "Unable to verify"}
    changed = submit(env, actor, "#verify button[type=submit]", "ehr_web", "coverages")
    assert (changed["id"], changed["verification_status"]) == (target["id"], "Unable to Verify")


def test_portal_a_appeal_by_clicks(env, actor):
    start(env, "payer_portal_a", "/appeals")
    claim = actor.text("[aria-labelledby=appealable-heading] tbody tr td a")
    actor.do({"type": "goto", "url": env.app_url("payer_portal_a", f"/appeals/new?claim_number={claim}")})
    level = actor.read("#level").evaluate("s => s.options[s.selectedIndex].label")
    values = choose_all(env, actor, {"#appeal_type": "Formal Appeal", "#level": level,
                                     "#reason": "Medical necessity",
                                     "#attachment_type": "Clinical notes"})
    actor.fill("#contact_name", "Dana Coordinator")
    actor.fill("#contact_phone", "7175550100")
    actor.fill("#letter_text", "Please reconsider: the record shows the service was medically necessary.")
    attach_pdf(env, actor, "#attachment_file", "clinical-notes.pdf")
    appeal = submit(env, actor, "form button[type=submit].btn-primary", "payer_portal_a", "appeals")
    assert (appeal["appeal_type"], appeal["level"], appeal["reason"]) == (
        values["#appeal_type"], values["#level"], values["#reason"])
    attachment, = new_rows(env, "payer_portal_a", "appeal_attachments")
    assert attachment["document_type"] == values["#attachment_type"]


def test_portal_b_pre_service_appeal_by_clicks(env, actor):
    start(env, "payer_portal_b", "/")
    denied = next(row for row in env.initial_snapshots["payer_portal_b"]["precert_requests"]
                  if row["status"] == "Denied")
    # The clock a week after the denial (the day of the last update when no denial date is
    # kept): well inside the 60-day filing window.
    denied_on = date.fromisoformat(denied["denied_on"] or denied["updated_at"][:10])
    week_later = (denied_on + timedelta(days=7)).isoformat()
    start(env, "payer_portal_b", f"/appeals/precertification/{denied['reference_number']}",
          now=f"{week_later}T09:00:00")
    values = choose_all(env, actor, {"#level": "Level 1", "#kind": "Formal appeal",
                                     "#appellant_relationship": "Billing office staff",
                                     "#document_type_1": "Clinical notes"})
    actor.fill("#appellant_name", "Dana Coordinator")
    actor.fill("#explanation", "The denial overlooked the documented failure of six weeks of "
                               "conservative therapy; the clinical notes attached show it.")
    actor.click("#attestation")
    attach_pdf(env, actor, "#attachment_1", "clinical-notes.pdf")
    appeal = submit(env, actor, "form button[type=submit].btn-primary", "payer_portal_b", "appeals")
    assert (appeal["level"], appeal["kind"], appeal["appellant_relationship"]) == (
        values["#level"], values["#kind"], values["#appellant_relationship"])
    attachment, = new_rows(env, "payer_portal_b", "attachments")
    assert attachment["document_type"] == values["#document_type_1"]


def test_fax_cover_sheet_by_clicks(env, actor):
    start(env, "fax", "/drafts")
    actor.click("form button.btn-primary")  # Compose a new fax
    values = choose_all(env, actor, {"#from_number": other_label(actor, "#from_number"),
                                     "#cover_template": other_label(actor, "#cover_template")})
    draft = submit(env, actor, "button[name=action][value=save]", "fax", "compose_drafts")
    assert (draft["from_number"], draft["cover_template"]) == (values["#from_number"],
                                                               values["#cover_template"])
