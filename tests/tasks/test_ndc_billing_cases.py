"""The cases of template appeals/ndc_billing hold together: a Keystone drug line denied CO-16/M119
beside a paid administration line; the administration record prints a 10-digit NDC whose 11-digit
form (the short segment padded) is the NDC the checks expect; the HCPCS units are the dose over the
code's descriptor amount while the NDC quantity is the packages given; and each case's trap is there
(the order's drug-master NDC names another package; a 5-3-2 NDC that padding on the left gets wrong)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from admindesk.envs.world.codes import load_codes
from admindesk.schema.task_model import TASKS_ROOT

TABLE = Path(TASKS_ROOT) / "templates" / "appeals" / "ndc_billing.cases.yml"
PRINTED = re.compile(r"NDC (\d{4,5})-(\d{3,4})-(\d{1,2})\b")


@pytest.fixture(scope="module")
def rows():
    return {row["id"]: row for row in yaml.safe_load(TABLE.read_text())["rows"]}


def _record(row) -> str:
    [record] = [d for d in row["case"]["documents"] if d["key"] == "mar"]
    return record["narrative"]


def _padded(segments: tuple[str, ...]) -> str:
    return "".join(segment.zfill(width) for segment, width in zip(segments, (5, 4, 2)))


def test_the_template_converts_two_hard_fax_appeal_ids(rows):
    assert set(rows) == {"appeal-hard-05", "appeal-hard-06"}
    assert all(row["difficulty"] == "hard" and row["template"] == "ndc_billing" for row in rows.values())


@pytest.mark.parametrize("task_id", ["appeal-hard-05", "appeal-hard-06"])
def test_the_drug_line_is_denied_for_its_ndc_and_the_record_gives_the_right_one(rows, task_id):
    row = rows[task_id]
    [claim] = row["case"]["claims"]
    drug, other = [line for line in claim["lines"] if line["code"] == row["vars"]["drug"]][0], claim["lines"][0]
    assert claim["status"] == "Partially Paid" and row["case"]["coverages"][0]["payer"] == "PYR-KMH"
    assert drug["adjustments"] == [{"group": "CO", "carc": "16", "rarc": "M119"}] and other["paid"] > 0
    [printed] = PRINTED.findall(_record(row))
    assert len("".join(printed)) == 10 and _padded(printed) == row["vars"]["ndc"]
    # HCPCS units: the dose given over the amount the code's descriptor bills per unit.
    per_unit = int(re.search(r"per (\d+) mg", load_codes().procedures[drug["code"]].description).group(1))
    dose = int(re.search(r"Dose given: (\d+) mg", _record(row)).group(1))
    assert drug["units"] == dose // per_unit and dose % per_unit == 0
    packages = int(re.search(r"quantity (\d+) (?:vial|syringe)", _record(row)).group(1))
    assert ["UN", packages] in row["vars"]["ndc_quantities"] and packages != drug["units"]


def test_the_bevacizumab_order_names_another_package_than_the_one_given(rows):
    row = rows["appeal-hard-05"]
    [ordered] = PRINTED.findall(row["case"]["orders"][0]["description"])
    [given] = PRINTED.findall(_record(row))
    assert ordered[:1] == given[:1] and _padded(ordered) != _padded(given)


def test_the_denosumab_ndc_is_5_3_2_so_a_left_pad_is_wrong(rows):
    row = rows["appeal-hard-06"]
    [printed] = PRINTED.findall(_record(row))
    assert [len(segment) for segment in printed] == [5, 3, 2]
    assert "".join(printed).zfill(11) != row["vars"]["ndc"]
