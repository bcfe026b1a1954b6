"""Reading the stored JSON files of a run folder a stranger may have written (records,
scores.json, run.json): regular files only, bounded in size and in memory, strict JSON."""
from __future__ import annotations

import gzip
import json
import os
import tracemalloc

import pytest

from admindesk.verifiers.record_files import (
    RecordFileError,
    load_record,
    read_json,
    read_json_bytes,
    record_digest,
    write_record,
)
from tests.report.hostile_submissions import nested, write_gzip_bomb
from tests.unit.fixtures.episodes import good_record, untouched_record


def test_a_gzip_bomb_is_refused_without_holding_what_it_decompresses_to(tmp_path):
    bomb = write_gzip_bomb(tmp_path / "record.json.gz", 1536 * 2**20)  # 1.5 GiB of zeros
    assert bomb.stat().st_size < 4 * 2**20
    tracemalloc.start()
    try:
        with pytest.raises(RecordFileError, match="record.json.gz: decompresses to more than 256 MiB"):
            read_json_bytes(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_a_file_over_the_limit_is_refused_plain_or_compressed(tmp_path):
    plain = tmp_path / "scores.json"
    plain.write_text(json.dumps({"notes": "x" * 2_000}))
    with pytest.raises(RecordFileError, match="scores.json: holds more than 1000 bytes"):
        read_json_bytes(plain, limit=1_000)
    packed = tmp_path / "record.json.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    with pytest.raises(RecordFileError, match="record.json.gz: decompresses to more than 1000 bytes"):
        read_json_bytes(packed, limit=1_000)
    assert read_json(packed, limit=3_000) == {"notes": "x" * 2_000}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", ["scores.json", "record.json.gz"])
def test_a_named_pipe_is_refused_at_once(tmp_path, name):
    os.mkfifo(tmp_path / name)
    with pytest.raises(RecordFileError, match=f"{name}: not a regular file"):
        read_json(tmp_path / name)


@pytest.mark.parametrize("text, reason", [
    ('{"rate": NaN}', "NaN is not a number JSON allows"),
    ('{"rate": Infinity}', "Infinity is not a number JSON allows"),
    ('[-Infinity]', "-Infinity is not a number JSON allows"),
    ('{"rate": 1e999}', "1e999 is not a finite number"),
    ('[-2E+400]', "-2E+400 is not a finite number"),
    (nested(100_000), "nested too deeply"),
    ("[1" + "0" * 5_000 + "]", "Exceeds the limit (4300 digits)"),
    ("{'rate': 1}", "not JSON (Expecting property name enclosed in double quotes at line 1)"),
])
def test_json_is_parsed_strictly_naming_the_file_and_the_reason(tmp_path, text, reason):
    path = tmp_path / "scores.json"
    path.write_text(text)
    with pytest.raises(RecordFileError) as caught:
        read_json(path)
    assert caught.value.path == path and reason in caught.value.reason
    assert str(caught.value).startswith(f"{path}: ")


def test_a_record_holding_nan_is_refused(tmp_path):
    record = good_record()
    text = record.model_dump_json().replace('"task_id":', '"score": NaN, "task_id":', 1)
    path = tmp_path / "record.json.gz"
    path.write_bytes(gzip.compress(text.encode()))
    with pytest.raises(RecordFileError, match="NaN is not a number JSON allows"):
        load_record(path)


def test_a_records_digest_is_its_content_however_it_was_stored(tmp_path):
    record = good_record()
    stored = load_record(write_record(tmp_path, record))
    respaced = tmp_path / "record.json"
    respaced.write_text(json.dumps(json.loads(record.model_dump_json()), indent=3))
    assert record_digest(stored) == record_digest(load_record(respaced)) == record_digest(record)
    assert record_digest(untouched_record()) != record_digest(record)
