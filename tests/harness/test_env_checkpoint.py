"""Against the real apps: an episode taken up from a checkpoint (Env.checkpoint, Env.resume)
ends exactly as the episode it was kept from: the same final state in every app, steps,
downloads, uploads and trajectory."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from admindesk.harness.agents.demo import DEMO_FAX_NUMBER
from admindesk.harness.agents.scripted import ScriptedActor
from admindesk.harness.env.checkpoint import ResumeFailed
from admindesk.harness.env.services import available_apps
from admindesk.harness.running.local import snapshot_hash

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not {"ehr_web", "fax"} <= set(available_apps()),
                                 reason="needs the EHR and fax apps")]

TASK = {"id": "checkpoint-demo", "goal": "Fax a chart document", "max_steps": 60,
        "start": {"app": "ehr_web", "path": "/patients", "login": True}}


def download_and_open_fax(env) -> str:
    """In the EHR, download a clinical document; then the fax app in a new tab, signed in."""
    document = next(d for d in env.initial_snapshots["ehr_web"]["documents"] if d["source"] == "Clinical")
    script = ScriptedActor(env)
    script.fill("input[name=mrn]", document["mrn"])
    script.do({"type": "key", "keys": "Enter"})
    script.click("main table tbody tr td:first-child a")
    script.click("a:text-is('Documents')")
    script.click(f"a[aria-label^='Download {document['id']} ']")
    script.open_app("Fax", new_tab=True)
    script.login()
    script.click("a:has-text('Drafts')")
    return env.downloaded_files()[0].name


def fax_it(env, file_name: str, *, finish: bool = True) -> None:
    """Compose a fax with the downloaded file attached, send it, and (`finish`) end the episode."""
    script = ScriptedActor(env)
    script.click("button:text('Compose a new fax')")
    script.fill("input[name=to_number]", DEMO_FAX_NUMBER)
    script.fill("input[name=recipient_name]", "Demo Recipient")
    script.click("input[name=attachment]")
    script.choose_file(file_name)
    script.click("button[value=send]")
    if finish:
        script.do({"type": "done", "answer": f"faxed {file_name}"})


@pytest.fixture(scope="module")
def real_env(tmp_path_factory):
    from admindesk.harness.env.environment import Env

    with Env("none", record_dir=tmp_path_factory.mktemp("episodes")) as env:
        yield env


def test_an_episode_resumed_from_a_checkpoint_ends_as_the_one_it_was_kept_from(real_env, tmp_path):
    env = real_env
    env.reset(TASK)
    file_name = download_and_open_fax(env)
    checkpoint = env.checkpoint(tmp_path / "kept")
    assert checkpoint is not None and len(checkpoint.tabs) == 2 and checkpoint.downloads
    fax_it(env, file_name)
    kept_from = env.record()

    env.reset(TASK)
    env.resume(checkpoint)
    assert env.downloaded_files() == kept_from.downloads and len(env.trajectory) == checkpoint.steps + 1
    fax_it(env, file_name)
    resumed = env.record()

    assert {app: snapshot_hash(s) for app, s in resumed.final_snapshots.items()} == \
        {app: snapshot_hash(s) for app, s in kept_from.final_snapshots.items()}
    assert resumed.uploads == kept_from.uploads and resumed.downloads == kept_from.downloads
    assert [entry["action"] for entry in resumed.trajectory] == [entry["action"] for entry in kept_from.trajectory]
    lines = sorted(env.record_dir.glob("checkpoint-demo-*"))[-1].joinpath("trajectory.jsonl").read_text().splitlines()
    assert [json.loads(line)["step"] for line in lines] == list(range(len(resumed.trajectory)))


def test_a_page_that_answers_a_form_post_reopens_with_its_flash_message(real_env, tmp_path):
    env = real_env
    env.reset(TASK)
    fax_it(env, download_and_open_fax(env), finish=False)
    shown = env.page_locator("[role=status], .flash, .alert").all_inner_texts()
    assert shown  # the send's result, a flash message the session held for this page
    checkpoint = env.checkpoint(tmp_path / "kept")
    assert checkpoint is not None and checkpoint.tabs[checkpoint.active].cookie_header is not None
    env.step({"type": "done", "answer": "sent"})
    kept_from = env.record()

    env.reset(TASK)
    env.resume(checkpoint)
    assert env.page_locator("[role=status], .flash, .alert").all_inner_texts() == shown
    env.step({"type": "done", "answer": "sent"})
    resumed = env.record()
    assert {app: snapshot_hash(s) for app, s in resumed.final_snapshots.items()} == \
        {app: snapshot_hash(s) for app, s in kept_from.final_snapshots.items()}


def test_no_checkpoint_where_a_reload_would_lose_what_the_page_shows(real_env, tmp_path):
    env = real_env
    env.reset(TASK)
    download_and_open_fax(env)
    script = ScriptedActor(env)
    script.click("button:text('Compose a new fax')")
    script.fill("input[name=recipient_name]", "Demo Recipient")
    assert env.checkpoint(tmp_path / "typed") is None  # a field holds what was typed
    script.click("button[value=send]")  # no number: the post's own answer lists the errors
    assert env.page_locator(".field-error, .error, [role=alert]").count()
    assert env.checkpoint(tmp_path / "refused") is None


def test_a_checkpoint_is_taken_up_only_right_after_a_reset_to_its_task(real_env, tmp_path):
    env = real_env
    env.reset(TASK)
    checkpoint = env.checkpoint(tmp_path / "kept")
    env.step({"type": "scroll", "x": 600, "y": 400, "dy": 200})
    with pytest.raises(ResumeFailed, match="right after a reset"):
        env.resume(checkpoint)
    env.reset({**TASK, "id": "another-task"})
    with pytest.raises(ResumeFailed, match="right after a reset"):
        env.resume(checkpoint)


def test_a_tab_that_reopens_differently_is_refused(real_env, tmp_path):
    env = real_env
    env.reset(TASK)
    kept = env.checkpoint(tmp_path / "kept")
    altered = replace(kept, tabs=[replace(kept.tabs[0], digest="0" * 64)])
    env.reset(TASK)
    with pytest.raises(ResumeFailed, match="tab 0 is not the page kept"):
        env.resume(altered)
