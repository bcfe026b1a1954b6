"""A scripted episode across apps, acting only through the public action space.

EHR: log in, find a patient, open the Documents tab, download a PDF. Then a new tab (the
drawn "+"), the Fax bookmark, the fax app's login form, a new fax, the PDF attached through
the drawn file dialog, send. Element boxes are looked up only to compute click coordinates,
as a reference solution may do.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from admindesk.harness.env import DEFAULT_PASSWORD, DEFAULT_USERNAME, Env
from admindesk.harness.observation import Observation
from admindesk.verifiers.records import EpisodeRecord

DEMO_FAX_NUMBER = "7175550123"


class DemoFailed(RuntimeError):
    """A scripted step did not have the effect it should have had."""


@dataclass
class DemoResult:
    """What the demo did: the record, the downloaded and the faxed file hashes."""

    record: EpisodeRecord
    downloaded_sha256: str
    faxed_sha256: list[str]

    @property
    def hashes_match(self) -> bool:
        """True when the fax carried exactly the downloaded file."""
        return self.faxed_sha256 == [self.downloaded_sha256]


class _Script:
    """Small helpers so each demo line reads like what a person does."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.obs: Observation | None = None

    def do(self, action: dict) -> Observation:
        self.obs, *_ = self.env.step(action)
        if self.obs.last_action_error:
            raise DemoFailed(f"{action}: {self.obs.last_action_error}")
        return self.obs

    def click(self, selector: str) -> Observation:
        x, y = self.env.element_center(selector)
        return self.do({"type": "click", "x": x, "y": y})

    def fill(self, selector: str, text: str) -> None:
        self.click(selector)
        self.do({"type": "key", "keys": "Control+A"})
        self.do({"type": "type", "text": text})

    def click_chrome(self, box: tuple[int, int, int, int]) -> Observation:
        return self.do({"type": "click", "x": (box[0] + box[2]) // 2, "y": (box[1] + box[3]) // 2})


def run_demo(out_dir: Path) -> DemoResult:
    """Run the scripted episode, recording trajectory and screenshots under `out_dir`."""
    with Env("screenshot", record_dir=out_dir) as env:
        missing = {"ehr_web", "fax"} - set(env.services.processes)
        if missing:
            raise DemoFailed(f"the demo needs the EHR and fax apps; missing: {sorted(missing)}")
        env.reset({"id": "demo", "goal": "Fax a chart document", "max_steps": 60,
                   "start": {"app": "ehr_web", "path": "/patients", "login": True}})
        document = next(d for d in env.initial_snapshots["ehr_web"]["documents"]
                        if d["source"] == "Clinical")
        script = _Script(env)
        # EHR: find the patient by MRN, open their documents, download one.
        script.fill("input[name=mrn]", document["mrn"])
        script.do({"type": "key", "keys": "Enter"})
        script.click("main table tbody tr td:first-child a")
        script.click("a:text-is('Documents')")
        obs = script.click(f"a[aria-label^='Download {document['id']} ']")
        if len(obs.downloads) != 1:
            raise DemoFailed(f"expected one download, got {obs.downloads}")
        downloaded = env.downloaded_files()[0]
        # A new tab through the drawn "+", then the Fax bookmark, then the fax login form.
        chrome = env.chrome_layout()
        script.click_chrome(chrome.new_tab_box())
        fax_bookmark = next(box for box, (label, _url) in
                            zip(chrome.bookmark_boxes(), chrome.bookmarks) if label == "Fax")
        script.click_chrome(fax_bookmark)
        script.fill("input[name=username]", DEFAULT_USERNAME)
        script.fill("input[name=password]", DEFAULT_PASSWORD)
        script.do({"type": "key", "keys": "Enter"})
        # Fax: compose, address, attach through the drawn file dialog, send.
        script.click("a:text-is('Drafts')")
        script.click("button:text('Compose a new fax')")
        script.fill("input[name=to_number]", DEMO_FAX_NUMBER)
        script.fill("input[name=recipient_name]", "Demo Recipient")
        script.fill("input[name=cover_from]", "Prior Authorization Desk")
        obs = script.click("input[name=attachment]")
        if not obs.file_dialog_open:
            raise DemoFailed("clicking the file input did not open the file dialog")
        row = next(box for box, (name, _size) in
                   zip(env.chrome_layout().dialog_row_boxes(), env.chrome_layout().dialog_files)
                   if name == downloaded.name)
        script.click_chrome(row)
        script.click("button[value=send]")
        script.do({"type": "done", "answer": f"faxed {downloaded.name}"})
        record = env.record()
    faxed = [a["sha256"] for a in record.final_snapshots["fax"].get("fax_attachments", [])
             if a["sha256"] not in _initial_hashes(record)]
    return DemoResult(record=record, downloaded_sha256=downloaded.sha256, faxed_sha256=faxed)


def _initial_hashes(record: EpisodeRecord) -> set[str]:
    return {a["sha256"] for a in record.initial_snapshots["fax"].get("fax_attachments", [])}
