"""The package's layout keeps its architecture: import rules hold on an installed copy, and
no folder grows past a size a reader can take in."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tasks.suite_files import task_file_ids

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_FOLDERS = ("admindesk", "envs", "harness", "verifiers")
MAX_MODULES_PER_FOLDER = 20


@pytest.mark.slow
def test_import_rules_hold_on_a_non_editable_install(tmp_path):
    """The contracts in .importlinter, checked on the package as pip installs it (an editable
    install maps the folders in a way import-linter cannot follow)."""
    lint_imports = shutil.which("lint-imports")
    assert lint_imports, "import-linter is a test dependency: pip install -e '.[test]'"
    build = tmp_path / "source"
    shutil.copytree(ROOT, build, ignore=shutil.ignore_patterns(".git", "runs", "build", "*.egg-info",
                                                                "__pycache__", ".pytest_cache", "tests"))
    site = tmp_path / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                              str(build)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-3000:]
    done = subprocess.run([lint_imports, "--config", str(ROOT / ".importlinter")], cwd=site,
                          env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout and "kept" in done.stdout.lower()
    kept = [line for line in done.stdout.splitlines() if line.endswith(" KEPT")]
    assert len(kept) >= 5, done.stdout


def test_no_package_folder_holds_more_than_twenty_modules():
    crowded = {}
    for top in PACKAGE_FOLDERS:
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
            if len(modules) > MAX_MODULES_PER_FOLDER:
                crowded[str(folder.relative_to(ROOT))] = len(modules)
    assert not crowded, f"split these folders by concern: {crowded}"


def test_documented_public_imports_keep_working():
    import admindesk
    from admindesk.harness.env import Env
    from admindesk.harness.env.environment import Env as EnvClass
    from admindesk.harness.gym import AdminDeskGymEnv
    from admindesk.harness.integrations.gym import AdminDeskGymEnv as GymClass

    assert admindesk.Env is Env is EnvClass
    assert AdminDeskGymEnv is GymClass
    # The suite is the task files of the workflow folders, however many there are.
    files = set().union(*(task_file_ids(workflow) for workflow in ("prior_auth", "appeals", "dme")))
    assert files and {task.id for task in admindesk.load_tasks()} == files


def test_the_browsergym_entry_point_registers_every_task():
    pytest.importorskip("browsergym.core")
    import gymnasium

    import admindesk.harness.browsergym_adapter  # noqa: F401  (registers on import)

    assert "browsergym/admindesk.pa-easy-09" in gymnasium.registry
