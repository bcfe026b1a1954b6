"""A therapy record's visit dates (the weeks a payer counts are computed from them) are coherent:
both given, the first on or before the last, the last on or before the record's date; and the
chart text states them with the site treated."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from admindesk.envs.world.cases.documents import fact_sentences, world_facts
from admindesk.schema.case_model import DocumentSpec

RECORD = {"key": "pt", "type": "pt_note", "date": "2026-10-20", "author": "Physical Therapy"}


@pytest.mark.parametrize("facts,message", [
    ({"therapy_first_visit": "2026-09-08"}, "gives both"),
    ({"therapy_first_visit": "2026-10-21", "therapy_last_visit": "2026-10-20"}, "on or before its therapy_last_visit"),
    ({"therapy_first_visit": "2026-09-08", "therapy_last_visit": "2026-10-27"}, "on or before the record's date"),
])
def test_incoherent_visit_dates_do_not_load(facts, message):
    with pytest.raises(ValidationError, match=message):
        DocumentSpec.model_validate({**RECORD, "facts": facts})


def test_the_record_states_its_site_and_visit_dates():
    spec = DocumentSpec.model_validate({**RECORD, "facts": {
        "therapy_site": "left knee osteoarthritis (M17.12)", "therapy_first_visit": "2026-09-08",
        "therapy_last_visit": "2026-10-20", "physical_therapy_sessions": 8}})
    text = fact_sentences(world_facts(spec.facts.model_dump()))
    for sentence in ("Treated for: left knee osteoarthritis (M17.12).", "First therapy visit (evaluation): 09/08/2026.",
                     "Last therapy visit: 10/20/2026.", "Physical therapy sessions attended: 8."):
        assert sentence in text
