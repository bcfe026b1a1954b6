"""Keystone Mutual's hospital bed criteria (policy KM-DME-404, on Medicare's LCD L33820 structure).

A hospital bed (fixed height E0250, semi-electric E0260) is covered when the member has at
least one of: a condition needing positioning of the body not feasible in an ordinary bed
(to relieve pain, prevent contractures, avoid respiratory infections); a need to keep the
head of the bed elevated more than 30 degrees most of the time (congestive heart failure,
chronic pulmonary disease, aspiration); or a need for traction equipment attachable only to
a hospital bed. A semi-electric bed also needs frequent changes in body position and/or an
immediate need for a change in body position. Comfort or convenience alone does not qualify.
The face-to-face and written-order-before-delivery rules are the DME requirements' own.
"""
from __future__ import annotations

BED_INDICATIONS = ("Positioning not feasible in an ordinary bed", "Head of bed elevated more than 30 degrees",
                   "Traction equipment", "None documented")
POSITION_CHANGES = ("Frequent or immediate changes in body position", "Not documented")
SEMI_ELECTRIC = frozenset({"E0260", "E0261", "E0265", "E0266"})
BED_CRITERION = ("positioning not feasible in an ordinary bed, the head of the bed elevated more than 30 degrees "
                 "most of the time, or traction equipment; comfort or convenience alone does not qualify")


def bed_problem(code: str, indication: str | None, position_changes: str | None) -> str | None:
    """The failed criterion in words, "missing" when the form leaves a bed answer out, or None."""
    if not indication or (code in SEMI_ELECTRIC and not position_changes):
        return "missing"
    if indication not in BED_INDICATIONS[:3]:
        return f"No qualifying condition is documented for a hospital bed: {BED_CRITERION} (policy KM-DME-404)."
    if code in SEMI_ELECTRIC and position_changes != POSITION_CHANGES[0]:
        return (f"A semi-electric bed ({code}) also needs frequent changes in body position or an immediate need "
                "for a change in body position; a fixed-height bed (E0250) may be requested instead (policy "
                "KM-DME-404).")
    return None
