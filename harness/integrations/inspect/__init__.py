"""AdminDesk in Inspect AI: `inspect eval admindesk/admindesk --model PROVIDER/MODEL`.

Needs the optional extra: `pip install -e '.[inspect]'` (PyPI `inspect-ai`). The package's
`inspect_ai` entry point names this module; importing it registers the task
(`admindesk/admindesk`, task.py) and the `admindesk` sandbox type that keeps the eval's Env
workers (sandbox.py, host.py). The solver (solver.py, tools.py) plays each sample's task
with the eval's model through tool calls; the scorer (scoring.py) scores it with our
verifiers; `admindesk import-inspect LOG --out DIR` (importer.py) writes a run folder from
the eval log. docs/inspect.md has the whole story.
"""
try:
    import inspect_ai  # noqa: F401
except ImportError as exc:  # the optional extra is missing
    raise ImportError("the Inspect integration needs inspect-ai: pip install -e '.[inspect]'") from exc

from admindesk.harness.integrations.inspect.task import admindesk

__all__ = ["admindesk"]
