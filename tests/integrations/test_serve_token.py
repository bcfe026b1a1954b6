"""`admindesk serve` hands its bench token to the apps through their environment: a token
typed as `--token` is on the serve command's own command line only, never an app's."""
from __future__ import annotations

from click.testing import CliRunner

from admindesk.harness.cli import main as cli_main
from admindesk.harness.env.services import BENCH_TOKEN_ENV, ServiceError
from tests.harness.test_token_privacy import command_lines_holding


def test_a_typed_token_is_on_no_apps_command_line(served_apps):
    assert set(command_lines_holding(served_apps.token)) == {served_apps.pid}


def test_serve_takes_its_token_from_the_environment(monkeypatch):
    given = {}

    class RecordingServices:
        def __init__(self, **options):
            given.update(options)

        def __enter__(self):
            raise ServiceError("recorded, not started")

        def __exit__(self, *exc_info):
            return None

    monkeypatch.setattr(cli_main, "Services", RecordingServices)
    result = CliRunner().invoke(cli_main.main, ["serve"], env={BENCH_TOKEN_ENV: "from-the-environment"})
    assert given["token"] == "from-the-environment"
    assert result.exit_code == 1 and "recorded, not started" in result.output
