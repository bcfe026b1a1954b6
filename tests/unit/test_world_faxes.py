"""Each world fax carries what its stored PDF is made from: the fax app's file for it is
the same bytes in every build, and no two faxes share a file hash (file checks compare by hash)."""

from __future__ import annotations

from admindesk.envs.fax.fax_files import received_fax_file
from admindesk.envs.world import build_world, generate_world


def test_fax_files_are_deterministic_and_distinct():
    faxes = build_world().faxes
    files = [received_fax_file(fax) for fax in faxes]
    rebuilt = [received_fax_file(fax) for fax in generate_world().faxes]
    assert [f["sha256"] for f in files] == [f["sha256"] for f in rebuilt]
    assert len({f["sha256"] for f in files}) == len(faxes)
    for fax, stored in zip(faxes, files):
        assert stored["content"].startswith(b"%PDF") and stored["pages"] == len(fax.pages_text)
        assert stored["file_name"] == f"fax-{fax.id}.pdf"
