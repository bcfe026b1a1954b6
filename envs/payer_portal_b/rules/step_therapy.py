"""Keystone Mutual's step-therapy answers (medical policy KM-RX-505, golimumab IV).

A non-preferred biologic is covered after two steps: a conventional agent (step 1) and a
preferred biologic (step 2), each taken for the policy's weeks with an inadequate response,
or stopped earlier for intolerance, or never started for a documented contraindication. The
request states each step's drug, start and stop dates and outcome; the weeks the policy's
`clinical_rules` read are counted here from those dates, so a trial is as long as its dates
say, whatever the summary claims. A drug stopped for another reason (cost, insurance, supply)
is not a failed trial: its outcome meets no rule.
"""
from __future__ import annotations

from datetime import date

CONVENTIONAL_AGENTS = ("Methotrexate", "Leflunomide", "Sulfasalazine")
PREFERRED_BIOLOGICS = ("Adalimumab", "Etanercept", "Infliximab")
# Drugs a request may name that no step accepts (so the form can say what was tried).
OTHER_AGENTS = ("Hydroxychloroquine", "Apremilast", "Tofacitinib", "Other")
INADEQUATE_RESPONSE = "Inadequate response"
STEP_EXCEPTIONS = ("Intolerance", "Contraindication")
OTHER_REASON = "Stopped for another reason"
STEP_OUTCOMES = (INADEQUATE_RESPONSE, *STEP_EXCEPTIONS, OTHER_REASON)
STEPS = ("step1", "step2")


def trial_weeks(start: date | None, stop: date | None) -> int | None:
    """Whole weeks from a trial's start date to its stop date (None without both)."""
    return (stop - start).days // 7 if start and stop else None
