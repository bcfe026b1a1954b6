"""Maps the top-level folders onto the one import namespace `admindesk`.

pyproject.toml cannot list remapped sub-packages, so they are found here.
"""
from pathlib import Path

from setuptools import setup

ROOTS = {"admindesk": "admindesk", "admindesk.envs": "envs",
         "admindesk.harness": "harness", "admindesk.verifiers": "verifiers"}


def remapped_packages() -> list[str]:
    found = []
    for name, folder in ROOTS.items():
        for init in sorted(Path(folder).rglob("__init__.py")):
            rel = init.parent.relative_to(folder).parts
            found.append(".".join((name, *rel)))
    return found


# The task suite (task files, templates, guidance, the judge's calibration set) is data: it
# ships inside the package as admindesk/tasks, so an installed copy has its tasks too (its
# files are package data: pyproject.toml).
TASKS = {"admindesk.tasks": "tasks"}

setup(packages=[*remapped_packages(), *TASKS], package_dir={**ROOTS, **TASKS})
