"""The gymnasium wrapper passes gymnasium's checker; the CLI wires its commands."""
from __future__ import annotations

import json
import warnings

import pytest
from click.testing import CliRunner

from tests.harness.conftest import adhoc, fixture_services

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_gym_wrapper_passes_check_env():
    from gymnasium.utils.env_checker import check_env

    from admindesk.harness.integrations.gym import AdminDeskGymEnv

    env = AdminDeskGymEnv(adhoc("/"), services=fixture_services(["ehr_web"]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its advice on unbounded Box/Text spaces
            check_env(env, skip_render_check=False)
        obs, _ = env.reset(seed=1)
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, _ = env.step(json.dumps({"type": "done"}))
        assert terminated and reward == 0.0 and env.observation_space.contains(obs)
    finally:
        env.close()


def test_cli_lists_its_commands():
    from admindesk.harness.cli.main import main

    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0 and "serve" in result.output and "demo" in result.output


@pytest.mark.parametrize("args,message", [
    (["serve", "--base-port", "70000"], "not in the range"),
    (["serve", "--base-port", "abc"], "is not a valid integer"),
    (["demo"], "Missing option '--out'"),
])
def test_cli_refuses_bad_flags_with_a_clear_message(args, message):
    from admindesk.harness.cli.main import main

    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and message in result.output
