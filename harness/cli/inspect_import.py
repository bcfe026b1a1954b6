"""`admindesk import-inspect LOG --out DIR`: a run folder from an Inspect eval log of
`inspect eval admindesk/admindesk`, for `admindesk report` and `admindesk leaderboard`."""
from __future__ import annotations

from pathlib import Path

import click


@click.command("import-inspect")
@click.argument("log", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The run folder to write (run.json and one folder per episode).")
def import_inspect(log: Path, out_dir: Path) -> None:
    """Write the run folder of an Inspect eval log of the admindesk/admindesk task."""
    try:
        from admindesk.harness.integrations.inspect.importer import InspectLogError, import_log
    except ImportError as exc:
        raise click.ClickException(str(exc)) from exc
    if (out_dir / "run.json").exists():
        raise click.ClickException(f"{out_dir} already holds a run (run.json): choose another --out")
    try:
        run_json = import_log(log, out_dir)
    except InspectLogError as exc:
        raise click.ClickException(str(exc)) from exc
    metrics = run_json["metrics"]
    click.echo(f"{len(run_json['episodes'])} episode(s) of {run_json['agent_options']['model']} into {out_dir}: "
               f"e2e success {metrics['e2e_success']:.3f}, subtask pass rate {metrics['subtask_pass_rate']:.3f}")
