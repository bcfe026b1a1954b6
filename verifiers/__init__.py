"""Verifiers: pure functions of an EpisodeRecord (never imports the harness or the apps)."""
from admindesk.schema.task_model import StartPage, Task, load_tasks
from admindesk.verifiers.records import CheckResult, EpisodeRecord, FileDigest
from admindesk.verifiers.scoring import TaskResult, score_task, summarise

__all__ = ["CheckResult", "EpisodeRecord", "FileDigest", "StartPage", "Task", "TaskResult", "load_tasks",
           "score_task", "summarise"]
