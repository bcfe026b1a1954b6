"""Episode records on disk: gzip'd JSON, byte-stable, plain record.json still read."""
from __future__ import annotations

import gzip

import pytest

from admindesk.harness.running.folder import is_finished
from admindesk.verifiers.record_files import (
    PLAIN_RECORD_FILE,
    RECORD_FILE,
    RecordFileError,
    load_record,
    record_file,
    write_record,
)
from tests.unit.fixtures.episodes import good_record


def test_a_record_round_trips_compressed_and_equal_records_give_equal_files(tmp_path):
    record = good_record()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = write_record(tmp_path / "a", record), write_record(tmp_path / "b", record)
    assert first.name == RECORD_FILE and first.read_bytes() == second.read_bytes()
    assert gzip.decompress(first.read_bytes()) == record.model_dump_json().encode()
    assert load_record(first) == record


def test_the_compressed_record_wins_and_a_plain_one_is_still_read(tmp_path):
    record = good_record()
    assert record_file(tmp_path) is None
    (tmp_path / PLAIN_RECORD_FILE).write_text(record.model_dump_json(), encoding="utf-8")
    assert record_file(tmp_path) == tmp_path / PLAIN_RECORD_FILE
    assert load_record(tmp_path / PLAIN_RECORD_FILE) == record
    write_record(tmp_path, record)
    assert record_file(tmp_path) == tmp_path / RECORD_FILE


def test_an_episode_is_finished_once_it_has_a_record_and_its_scores(tmp_path):
    write_record(tmp_path, good_record())
    assert not is_finished(tmp_path)
    (tmp_path / "scores.json").write_text("{}")
    assert is_finished(tmp_path)


def test_a_truncated_record_names_the_file(tmp_path):
    path = write_record(tmp_path, good_record())
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(RecordFileError, match=f"{RECORD_FILE}: not a complete gzip file"):
        load_record(path)
