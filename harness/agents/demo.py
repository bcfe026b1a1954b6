"""A scripted episode across apps, acting only through the public action space.

EHR: log in, find a patient, open the Documents tab, download a PDF. Then a new tab (the
drawn "+"), the Fax bookmark, the fax app's login form, a new fax, the PDF attached through
the drawn file dialog, send. Element boxes are looked up only to compute click coordinates,
as a reference solution may do.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from admindesk.harness.agents.scripted import ScriptedActor, ScriptFailed
from admindesk.harness.env.environment import Env
from admindesk.verifiers.records import EpisodeRecord

DEMO_FAX_NUMBER = "7175550123"


class DemoFailed(ScriptFailed):
    """The demo could not run, or a step did not have the effect it should have had."""


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
        script = ScriptedActor(env)
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
        script.open_app("Fax", new_tab=True)
        script.login()
        # Fax: compose, address, attach through the drawn file dialog, send.
        script.click("a:has-text('Drafts')")  # its label may carry a count
        script.click("button:text('Compose a new fax')")
        script.fill("input[name=to_number]", DEMO_FAX_NUMBER)
        script.fill("input[name=recipient_name]", "Demo Recipient")
        script.fill("input[name=cover_from]", "Prior Authorization Desk")
        obs = script.click("input[name=attachment]")
        if not obs.file_dialog_open:
            raise DemoFailed("clicking the file input did not open the file dialog")
        script.choose_file(downloaded.name)
        script.click("button[value=send]")
        script.do({"type": "done", "answer": f"faxed {downloaded.name}"})
        record = env.record()
    faxed = [a["sha256"] for a in record.final_snapshots["fax"].get("fax_attachments", [])
             if a["sha256"] not in _initial_hashes(record)]
    return DemoResult(record=record, downloaded_sha256=downloaded.sha256, faxed_sha256=faxed)


def _initial_hashes(record: EpisodeRecord) -> set[str]:
    return {a["sha256"] for a in record.initial_snapshots["fax"].get("fax_attachments", [])}
