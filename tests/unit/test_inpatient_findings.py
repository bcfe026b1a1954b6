"""Keystone's continued-stay findings (KM-UM-201) read a clinical update the way its nurses write it:
the shorthand of a progress note counts as much as the long form, and a treatment that was stopped
or a normal value states no finding."""
from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_b.rules.inpatient_rules import decide_review, findings_stated

SHORTHAND = [
    ("O2 4L NC, IV pip-tazo q8h, HR 112, T 38.6", {"oxygen", "intravenous_treatment", "unstable_vital_signs"}),
    ("on 3 liters of oxygen, IV vancomycin", {"oxygen", "intravenous_treatment"}),
    ("2 lpm via NC; RR 26; BP 84/50", {"oxygen", "unstable_vital_signs"}),
    ("4L NC, SpO2 89% on 4L", {"oxygen", "unstable_vital_signs"}),
    ("Desaturated to 85% overnight, back on 4 L/min nasal cannula; temperature 38.6 C, heart rate 112",
     {"oxygen", "new_findings", "unstable_vital_signs"}),
]
NOTHING_CURRENT = [
    "Room air, SpO2 96%, afebrile, HR 78, oral antibiotics, switched from IV to oral",
    "weaned off oxygen, off IV antibiotics, T 37.1, O2 sat 97% on RA",
    "IV access removed; saline lock; tolerating diet",
]


@pytest.mark.parametrize(("update", "groups"), SHORTHAND)
def test_shorthand_states_the_same_findings_as_the_long_form(update, groups):
    assert set(findings_stated(update)) == groups
    assert decide_review(update, 2).outcome == "Approved"


@pytest.mark.parametrize("update", NOTHING_CURRENT)
def test_stopped_treatment_and_normal_values_state_no_finding(update):
    assert findings_stated(update) == []
    assert decide_review(update, 2).outcome == "Pended"
