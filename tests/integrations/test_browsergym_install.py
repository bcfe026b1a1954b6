"""The README's BrowserGym install command resolves in a fresh virtual environment, and the
README's BrowserGym snippet runs there and scores 0 (its actions do none of the task's work):
an installed (not editable) copy brings the task suite with it.

Slow: it installs the package and its dependencies from the package registries into a new
environment, from a copy of the checkout (so the checkout's own files stay untouched).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
INSTALL = "pip install '.[browsergym]'"


def readme_snippet() -> str:
    """The README's Python block that makes a BrowserGym env of a task."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    (snippet,) = [block for block in blocks if 'gym.make("browsergym/admindesk.' in block]
    return snippet


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(1500)
def test_the_readme_install_command_and_snippet_work_in_a_fresh_environment(tmp_path):
    assert INSTALL in README.read_text(encoding="utf-8")
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(
        ".git", ".venv", "runs", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"))
    venv.create(tmp_path / "env", with_pip=True)
    python = tmp_path / "env" / "bin" / "python"
    command = [str(python), "-m", *INSTALL.split()[:-1], ".[browsergym]"]
    install = subprocess.run(command, cwd=checkout, capture_output=True, text=True, timeout=1200, check=False)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]

    (tmp_path / "snippet.py").write_text(readme_snippet(), encoding="utf-8")
    ran = subprocess.run([str(python), str(tmp_path / "snippet.py")], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300, check=False)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-3000:]
    reward, outcome = ran.stdout.split()[:2]
    assert (float(reward), outcome) == (0.0, "fail")
