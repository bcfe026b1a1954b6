"""Times scoring 135 synthetic records (one per task) without a judge; target <= 1 s.

Each record is the check tests' prior-auth episode, padded with a background world of
the size the apps seed (patients, coverages, documents, audit history, faxes) so that
queries and diffs run over realistic snapshots. Each task has 9 checks and 5 guards.

    python3 bench/score_bench.py [--tasks 135] [--world-patients 400]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from admindesk.schema.task_model import Task
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.scoring import score_task, summarise

# The episode fixture lives with the tests (repository root), not in the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.unit.fixtures.episodes import good_final_snapshots, initial_snapshots, task_data  # noqa: E402


def pad_world(snapshots: dict, patients: int) -> None:
    """Add a background world: `patients` patients with coverage, 2 documents and 5 audit rows each."""
    ehr, fax = snapshots["ehr_web"], snapshots["fax"]
    for n in range(patients):
        mrn = f"E1{n:06d}"
        ehr["patients"].append({"mrn": mrn, "first_name": f"First{n}", "last_name": f"Last{n}", "dob": "1970-01-01"})
        ehr["coverages"].append({"id": f"COV-1{n:05d}", "mrn": mrn, "payer_id": "PYR-NWH",
                                 "member_id": f"NWH1{n:06d}"})
        ehr["documents"] += [{"id": f"DOC-1{n:05d}{k}", "mrn": mrn, "title": f"Note {k}",
                              "sha256": f"{n:060d}{k:04d}"} for k in range(2)]
        ehr["audit_events"] += [{"id": 1000 + n * 5 + k, "record_type": "patient", "record_id": mrn, "tab": "summary"}
                                for k in range(5)]
        fax["inbound_faxes"].append({"id": f"FAX-1{n:05d}", "sha256": f"{n:064d}"})
    # Snapshots list rows in primary-key order, as the apps' /_bench/snapshot does.
    ehr["audit_events"].sort(key=lambda row: row["id"])


def synthetic(index: int, world_patients: int) -> tuple[Task, EpisodeRecord]:
    """Task `index` (its own id) and a record of it: every third one left untouched."""
    task_id = f"pa-medium-{index:03d}"
    task = Task.model_validate(task_data(id=task_id))
    initial = initial_snapshots()
    final = good_final_snapshots() if index % 3 else initial_snapshots()
    pad_world(initial, world_patients)
    pad_world(final, world_patients)
    return task, EpisodeRecord(task_id=task_id, initial_snapshots=initial, final_snapshots=final,
                               answer="Approved: auth NWH2601234 from Nov 17, 2026." if index % 3 else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=135)
    parser.add_argument("--world-patients", type=int, default=400)
    args = parser.parse_args()
    episodes = [synthetic(i, args.world_patients) for i in range(args.tasks)]
    n_checks = sum(len(task.checks()) + len(task.guards) for task, _ in episodes)
    start, cpu_start = time.perf_counter(), time.process_time()
    results = [score_task(task, record) for task, record in episodes]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    summary = summarise(results)
    print(f"scored {len(results)} records, {n_checks} checks and guards "
          f"({args.world_patients} background patients each) in {elapsed:.3f} s "
          f"({elapsed / len(results) * 1000:.2f} ms a record; {cpu:.3f} s of CPU, which a busy machine "
          f"does not inflate); "
          f"outcomes: {summary.tasks.passed} pass, {summary.tasks.unjudged} unjudged, {summary.tasks.failed} fail")
    print("target <= 1 s:", "met" if elapsed <= 1.0 else "MISSED" + (" (CPU time within it: the machine is "
                                                                  "busy)" if cpu <= 1.0 else ""))


if __name__ == "__main__":
    main()
