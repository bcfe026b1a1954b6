"""Static HTML reports of run folders: summary and charts, a trajectory viewer per episode,
and a side-by-side comparison of several runs (see build.write_report)."""
from admindesk.harness.report.build import write_report
from admindesk.harness.report.run_data import RunFolderError, load_run

__all__ = ["RunFolderError", "load_run", "write_report"]
