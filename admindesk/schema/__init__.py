"""The task and case schema: task files, cases, case ids and the check kinds' declarations.

The apps (which build a task's case) and the verifiers (which score its checks) both import
it; it imports neither.
"""
