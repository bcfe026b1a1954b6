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


setup(packages=remapped_packages(), package_dir=ROOTS)
