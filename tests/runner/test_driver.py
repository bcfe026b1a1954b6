"""The parallel driver's failure handling, with stand-in workers (no apps, no browser):
infra errors retried on fresh workers up to a bound, timeouts scored apart, episodes
installed whole; with episodes in flight per worker, a worker holds up to that many."""
from __future__ import annotations

import time

from admindesk.harness.running.pool import Job, WorkerLost, drive
from admindesk.schema.task_model import Task


class StandInWorker:
    def __init__(self, number: int) -> None:
        self.number, self.jobs, self.killed, self.closed = number, [], False, False
        self.most_in_flight = 0

    def submit(self, job: Job) -> None:
        self.jobs.append(job)
        self.most_in_flight = max(self.most_in_flight, len(self.jobs))

    def kill(self) -> None:
        self.killed = True

    def close(self) -> None:
        self.closed = True


class StandInBackend:
    """Replies per task id: ok, infra (the Env broke), lost (the worker vanished), hang."""

    def __init__(self, behaviour: dict[str, list[str]]) -> None:
        self.behaviour = behaviour
        self.workers: list[StandInWorker] = []

    def start_worker(self) -> StandInWorker:
        self.workers.append(StandInWorker(len(self.workers)))
        return self.workers[-1]

    def wait(self, handles, timeout):
        replies = []
        for handle in handles:
            for job in list(handle.jobs):
                plan = self.behaviour[job.task.id]
                kind = plan[min(job.attempt, len(plan) - 1)]
                summary = {"task_id": job.task.id, "trial": job.trial, "result": "pass",
                           "subtask_pass_rate": 1.0, "steps": 1, "wall_s": 0.1, "worker": handle.number,
                           "attempt": job.attempt}
                if kind == "hang":
                    continue
                if kind == "ok-after-a-while":
                    time.sleep(0.1)
                    kind = "ok"
                handle.jobs.remove(job)
                if kind == "ok":
                    replies.append((handle, {"episode": job.name, "summary": summary, "infra": None,
                                             "files": {"record.json": b"{}", "scores.json": b"{}"}}))
                elif kind == "infra":
                    replies.append((handle, {"episode": job.name, "summary": summary,
                                             "infra": "app process died: fax", "files": {}}))
                elif kind == "lost":  # the worker vanished: nothing else of it answers
                    replies.insert(0, (handle, WorkerLost("worker process exited")))
        if not replies:
            time.sleep(timeout)
        return replies

    def shutdown(self) -> None:
        pass


def task(task_id: str) -> Task:
    return Task(id=task_id)


def test_infra_errors_are_retried_on_fresh_workers_then_scored(tmp_path):
    backend = StandInBackend({"a": ["infra", "lost", "ok"], "b": ["ok"]})
    state = drive(backend, [Job(task("a"), 0), Job(task("b"), 0)], 1, tmp_path, max_infra_retries=2)
    assert state.summaries["a-t0"]["result"] == "pass" and state.summaries["b-t0"]["result"] == "pass"
    assert [(r["episode"], r["attempt"]) for r in state.retried] == [("a-t0", 0), ("a-t0", 1)]
    # The broken workers were closed or killed; the retry ran on a worker started after them.
    assert backend.workers[0].closed and backend.workers[1].killed
    assert state.summaries["a-t0"]["worker"] == 2
    assert (tmp_path / "a-t0" / "scores.json").is_file() and (tmp_path / "b-t0" / "record.json").is_file()


def test_infra_retries_are_bounded_and_never_scored_as_agent_failures(tmp_path):
    backend = StandInBackend({"a": ["infra"]})
    state = drive(backend, [Job(task("a"), 0)], 2, tmp_path, max_infra_retries=1)
    assert len(state.retried) == 2 and len(backend.workers) == 2
    assert state.summaries["a-t0"]["result"] == "infra_error"
    assert not (tmp_path / "a-t0").exists()


def test_a_hanging_episode_times_out_and_its_worker_is_killed(tmp_path):
    backend = StandInBackend({"slow": ["hang"], "quick": ["ok"]})
    state = drive(backend, [Job(task("slow"), 0), Job(task("quick"), 0)], 2, tmp_path,
                  episode_timeout_s=0.3)
    assert state.summaries["slow-t0"]["result"] == "timeout" and "0.3 s" in state.summaries["slow-t0"]["error"]
    assert state.summaries["quick-t0"]["result"] == "pass"
    assert [w.killed for w in backend.workers] == [True, False]
    assert state.retried == []


def test_a_worker_holds_up_to_its_concurrency_of_episodes(tmp_path):
    backend = StandInBackend({name: ["ok"] for name in "abcde"})
    state = drive(backend, [Job(task(name), 0) for name in "abcde"], 1, tmp_path, concurrency=3)
    assert len(backend.workers) == 1 and backend.workers[0].most_in_flight == 3
    assert all(state.summaries[f"{name}-t0"]["result"] == "pass" for name in "abcde")
    assert backend.workers[0].closed and not backend.workers[0].killed


def test_a_lost_worker_retries_every_episode_it_had_in_flight(tmp_path):
    backend = StandInBackend({"a": ["lost", "ok"], "b": ["hang", "ok"]})
    state = drive(backend, [Job(task("a"), 0), Job(task("b"), 0)], 1, tmp_path, concurrency=2)
    assert sorted((r["episode"], r["attempt"]) for r in state.retried) == [("a-t0", 0), ("b-t0", 0)]
    assert backend.workers[0].killed
    assert {state.summaries[name]["worker"] for name in ("a-t0", "b-t0")} == {1}


def test_an_infra_error_in_flight_retries_that_episode_and_keeps_the_worker(tmp_path):
    backend = StandInBackend({"a": ["infra", "ok"], "b": ["ok"]})
    state = drive(backend, [Job(task("a"), 0), Job(task("b"), 0)], 1, tmp_path, concurrency=2)
    # The others in flight go on: the lanes' next reset restarts what broke.
    assert len(backend.workers) == 1 and not backend.workers[0].killed
    assert state.summaries["a-t0"]["attempt"] == 1 and state.summaries["b-t0"]["attempt"] == 0


def test_a_timeout_in_flight_kills_the_worker_and_retries_the_episodes_beside_it(tmp_path):
    # "beside" starts 0.1 s after "slow" (when "quick" frees its lane), so it is not late yet
    # when "slow" is.
    backend = StandInBackend({"slow": ["hang"], "quick": ["ok-after-a-while"], "beside": ["hang", "ok"]})
    state = drive(backend, [Job(task("slow"), 0), Job(task("quick"), 0), Job(task("beside"), 0)], 1, tmp_path,
                  concurrency=2, episode_timeout_s=0.3)
    assert state.summaries["slow-t0"]["result"] == "timeout"
    assert state.summaries["beside-t0"]["result"] == "pass" and state.summaries["beside-t0"]["worker"] == 1
    assert [r["reason"] for r in state.retried] == ["worker killed: an episode in flight beside it exceeded 0.3 s"]
    assert backend.workers[0].killed
