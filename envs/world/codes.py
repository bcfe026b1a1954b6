"""Code sets loaded from the CSV files in `data/`.

ICD-10-CM descriptions are the public CMS titles; CPT/HCPCS, CARC and RARC
descriptions are short paraphrases written for this project.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

from admindesk.envs.world.models import CodeSets, Procedure

DATA_DIR = Path(__file__).parent / "data"


def _rows(name: str) -> list[dict[str, str]]:
    with open(DATA_DIR / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@lru_cache(maxsize=1)
def load_codes() -> CodeSets:
    """Read every code file once; the result is shared by all worlds."""
    return CodeSets(
        icd10={r["code"]: r["description"] for r in _rows("icd10cm.csv")},
        procedures={
            r["code"]: Procedure(r["code"], r["system"], r["description"], r["category"])
            for r in _rows("procedures.csv")
        },
        carc={r["code"]: r["description"] for r in _rows("carc.csv")},
        rarc={r["code"]: r["description"] for r in _rows("rarc.csv")},
    )
