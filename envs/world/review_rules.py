"""The payers' prior-authorization review rules as the world applies them.

Decisions already on file (approved, denied) and claim denials for a missing auth must
follow the payer's own policy, so the world evaluates each order's chart facts with the
criteria of the portal that serves the payer: portal "a" payers share one medical policy
(`payer_portal_a/policy/medical_policy.yaml`), portal "b" is Keystone Mutual with its own
(`payer_portal_b/data/policies.yaml`, `dme_requirements.yaml`). The criteria and deny
reasons below restate those files in terms of the world's document facts; the world
audit re-runs them over the built world.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

NOT_REVIEWED, MET, NOT_MET, COVERAGE_INACTIVE = "not_reviewed", "met", "not_met", "coverage_inactive"
MEDICARE_PRODUCTS = frozenset({"Medicare", "Medicare Advantage"})

Facts = Mapping[str, str]


def _number(facts: Facts, key: str) -> float | None:
    value = facts.get(key)
    if value is None:
        return None
    try:
        return float(value.rstrip("%"))
    except ValueError:
        return None


def _at_least(key: str, threshold: float) -> Callable[[Facts], bool]:
    return lambda facts: (_number(facts, key) or 0) >= threshold


def _at_most(key: str, threshold: float) -> Callable[[Facts], bool]:
    return lambda facts: (value := _number(facts, key)) is not None and value <= threshold


def _stated(key: str) -> Callable[[Facts], bool]:
    """The fact is present and says something other than 'none'."""
    return lambda facts: facts.get(key, "none") not in ("none", "")


def _any(*tests: Callable[[Facts], bool]) -> Callable[[Facts], bool]:
    return lambda facts: any(test(facts) for test in tests)


def _all(*tests: Callable[[Facts], bool]) -> Callable[[Facts], bool]:
    return lambda facts: all(test(facts) for test in tests)


@dataclass(frozen=True)
class Criterion:
    """One rule of a policy; when `holds` is false the request is denied with `deny_reason`."""

    id: str
    holds: Callable[[Facts], bool]
    deny_reason: str


@dataclass(frozen=True)
class ServiceRule:
    """How the payers review one service code.

    `criteria` maps a portal to its criteria; a portal missing from it does not review
    the code. `not_reviewed_products` lists plan products a portal waives review for.
    `records_needed` is what a request for information asks for.
    """

    family: str
    records_needed: str
    criteria: Mapping[str, tuple[Criterion, ...]]
    not_reviewed_products: Mapping[str, frozenset[str]]

    def reviewed(self, portal: str, product: str) -> bool:
        return portal in self.criteria and product not in self.not_reviewed_products.get(portal, frozenset())


@dataclass(frozen=True)
class Review:
    """The outcome of applying a payer's rules to an order's facts."""

    outcome: str  # NOT_REVIEWED, MET, NOT_MET or COVERAGE_INACTIVE
    criterion_id: str | None
    reason: str


_LUMBAR_FACTS = _any(_at_least("conservative_therapy_weeks", 6), _stated("red_flags"))
_KNEE_MECHANICAL = _any(_stated("mechanical_symptoms"), lambda f: f.get("mcmurray_test") == "positive")
_PRETEST = _any(_at_least("stop_bang_score", 3), _at_least("epworth_score", 10))
_CGM_A = (Criterion("insulin_or_hypoglycemia", _any(_at_least("insulin_injections_per_day", 1), _stated("hypoglycemia")),
                    "Criteria not met: a continuous glucose monitor requires insulin treatment or problematic "
                    "hypoglycemia."),)
_BIOLOGIC_A = (
    Criterion("step_therapy", _at_least("prior_therapy_weeks", 12),
              "Criteria not met: step therapy requires at least 12 weeks of a conventional therapy before a biologic."),
    Criterion("tb_negative", lambda f: f.get("tb_screen") == "negative",
              "Criteria not met: a negative tuberculosis screen is required before starting a biologic."),
)
_BIOLOGIC_B = (Criterion("KM-RX-501", _at_least("prior_therapy_weeks", 12),
                         "Clinical criteria of medical policy KM-RX-501 are not met: the policy requires 12 or more "
                         "weeks of a conventional agent."),)


def _documented(key: str) -> Callable[[Facts], bool]:
    """The fact's first clause says something other than 'none' ("none; mammogram negative" is none)."""
    return lambda facts: facts.get(key, "none").split(";")[0].strip().lower() not in ("none", "")


# Keystone's KM-LAB-701: completed pre-test counseling (a referral is not), a personal or family
# history criterion, a result that changes management, no earlier germline test of the same genes.
def _counseled(facts: Facts) -> bool:
    """Pre-test genetic counseling completed (a referral or an appointment to come is not)."""
    return facts.get("genetic_counseling", "").startswith("pre-test counseling completed")


_GENETIC_B = (Criterion("KM-LAB-701", _all(_counseled,
                                           _any(_documented("personal_cancer_history"), _documented("family_history")),
                                           _stated("management_impact"),
                                           lambda f: not _documented("prior_genetic_testing")(f)),
                        "Clinical criteria of medical policy KM-LAB-701 are not met: the policy requires documented "
                        "pre-test genetic counseling and one of the policy's personal or family history criteria and "
                        "a result that will change the member's management and no earlier germline testing of the "
                        "same genes."),)
_GENETIC_RECORDS = "the pre-test genetic counseling note and the pedigree (three-generation family history)"
_CGM_RECORDS = "the face-to-face note documenting insulin use or hypoglycemia, with the most recent HbA1c"
_BIOLOGIC_RECORDS = "the medication history with the conventional therapy trial, and the tuberculosis screen result"
_ONCOLOGY_RECORDS = "the oncology note with the pathology and the treatment plan (regimen, dose, cycles)"


def _rule(family, records, a=None, b=None, a_waived=(), b_waived=()) -> ServiceRule:
    criteria = {portal: tuple(c) for portal, c in (("a", a), ("b", b)) if c is not None}
    return ServiceRule(family, records, criteria, {"a": frozenset(a_waived), "b": frozenset(b_waived)})


_RULES: dict[str, ServiceRule] = {
    "72148": _rule("lumbar_mri", "office notes documenting the weeks of conservative therapy or the red-flag findings",
                   a=[Criterion("conservative_or_red_flag", _LUMBAR_FACTS,
                                "Criteria not met: lumbar MRI requires at least 6 weeks of documented conservative "
                                "therapy or a red-flag symptom.")],
                   b=[Criterion("KM-RAD-101", _LUMBAR_FACTS,
                                "Clinical criteria of medical policy KM-RAD-101 are not met: the policy requires 6 or "
                                "more weeks of conservative therapy or documented red-flag symptoms.")]),
    # Keystone's lumbar imaging policy KM-RAD-101 also governs CT (ordered when MRI is contraindicated);
    # portal A's payers do not review a lumbar CT.
    "72131": _rule("lumbar_imaging", "office notes documenting the weeks of conservative therapy or the red-flag "
                   "findings", b=[Criterion("KM-RAD-101", _LUMBAR_FACTS,
                                           "Clinical criteria of medical policy KM-RAD-101 are not met: the policy "
                                           "requires 6 or more weeks of conservative therapy or documented red-flag "
                                           "symptoms.")]),
    "73721": _rule("knee_mri", "the office note with the knee examination and the knee X-ray report",
                   a=[Criterion("conservative_or_mechanical",
                                _any(_at_least("conservative_therapy_weeks", 4), _KNEE_MECHANICAL),
                                "Criteria not met: knee MRI requires 4 weeks of conservative therapy or mechanical "
                                "symptoms on examination.")],
                   b=[Criterion("KM-RAD-104", _all(_stated("prior_imaging_date"),
                                                   _any(_at_least("conservative_therapy_weeks", 4), _KNEE_MECHANICAL)),
                                "Clinical criteria of medical policy KM-RAD-104 are not met: the policy requires prior "
                                "X-rays of the joint and 4 or more weeks of conservative therapy or prior X-rays of the "
                                "joint and mechanical symptoms or instability.")]),
    "70553": _rule("brain_mri", "the neurology note with the neurological examination and the symptom duration",
                   a=[Criterion("deficit_or_known_condition_or_duration",
                                _any(_stated("focal_neurologic_deficit"), _at_least("symptom_duration_months", 3)),
                                "Criteria not met: brain MRI requires a focal deficit, a known condition under "
                                "follow-up, or symptoms for 3 months or more.")], b=[]),
    "78452": _rule("cardiac_testing", "the cardiology note with exercise capacity and the baseline ECG",
                   a=[Criterion("cannot_exercise_or_abnormal_ecg",
                                _any(lambda f: f.get("able_to_exercise") == "no",
                                     lambda f: f.get("baseline_ecg", "normal sinus rhythm") != "normal sinus rhythm"),
                                "Criteria not met: a nuclear stress test requires inability to exercise or an "
                                "uninterpretable baseline ECG; a treadmill stress test is appropriate.")], b=[]),
    "75574": _rule("cardiac_testing", "the cardiology note with the symptoms and risk factors", a=[], b=[]),
    "95810": _rule("sleep_study", "the sleep medicine consultation with the Epworth, STOP-BANG and comorbidities",
                   a=[Criterion("high_pretest_probability", _PRETEST,
                                "Criteria not met: a sleep study requires a STOP-BANG score of 3 or more or an "
                                "Epworth score of 10 or more."),
                      Criterion("in_lab_needs_comorbidity", _stated("cardiopulmonary_comorbidity"),
                                "Criteria not met: a home sleep apnea test (95800, 95806 or G0399) comes first; an "
                                "attended in-lab study requires a significant comorbidity the consultation documents "
                                "(congestive heart failure, moderate-to-severe COPD or neuromuscular disease).")], b=[]),
    "95806": _rule("sleep_study", "the sleep medicine consultation with the Epworth, STOP-BANG and comorbidities",
                   a=[Criterion("high_pretest_probability", _PRETEST,
                                "Criteria not met: a sleep study requires a STOP-BANG score of 3 or more or an "
                                "Epworth score of 10 or more.")], b=[], a_waived=("PPO", "EPO")),
    "E0601": _rule("cpap", "the diagnostic sleep study report stating the AHI",
                   a=[Criterion("ahi_threshold", _any(_at_least("ahi", 15),
                                                      _all(_at_least("ahi", 5), _stated("qualifying_symptoms"))),
                                "Criteria not met: CPAP requires an AHI of 15 or more, or an AHI of 5 to 14.9 with "
                                "qualifying symptoms.")],
                   b=[Criterion("KM-DME-401", _at_least("ahi", 15),
                                "The qualifying test value does not meet the requirement Apnea-Hypopnea Index "
                                "(AHI) >= 15.")]),
    "E1390": _rule("oxygen", "the qualifying oximetry (SpO2 at rest and with exertion) and the face-to-face note",
                   a=[Criterion("qualifying_saturation", _any(_at_most("spo2_rest", 88), _at_most("spo2_exertion", 88)),
                                "Criteria not met: home oxygen requires an SpO2 of 88% or less on room air at rest "
                                "or with exertion.")],
                   b=[Criterion("KM-DME-402", _at_most("spo2_rest", 88),
                                "The qualifying test value does not meet the requirement Resting SpO2 (%) <= 88.")]),
    "E2103": _rule("glucose_monitor", _CGM_RECORDS, a=_CGM_A, b=[]),
    "A9276": _rule("glucose_monitor", _CGM_RECORDS, a=_CGM_A, b=[]),
    "A4239": _rule("glucose_monitor", _CGM_RECORDS, a=_CGM_A, b=[]),
    "K0001": _rule("mobility", "the face-to-face evaluation and the standard written order",
                   a=[Criterion("cane_insufficient", lambda f: f.get("can_use_cane_safely") == "no",
                                "Criteria not met: a wheelchair is not covered when a cane or walker resolves the "
                                "limitation.")], b=[]),
    "E0260": _rule("mobility", "the face-to-face evaluation and the standard written order", a=[], b=[]),
    "E0143": _rule("mobility", "the face-to-face evaluation and the standard written order", b=[]),
    "J0135": _rule("specialty_drug", _BIOLOGIC_RECORDS, a=_BIOLOGIC_A, b=_BIOLOGIC_B),
    "J1745": _rule("specialty_drug", _BIOLOGIC_RECORDS, a=_BIOLOGIC_A, b=_BIOLOGIC_B),
    "J3262": _rule("specialty_drug", _BIOLOGIC_RECORDS, a=_BIOLOGIC_A, b=_BIOLOGIC_B),
    "J2350": _rule("specialty_drug", _BIOLOGIC_RECORDS, a=_BIOLOGIC_A, b=[]),
    "J9312": _rule("specialty_drug", _ONCOLOGY_RECORDS, a=[], b=[]),
    "J9271": _rule("specialty_drug", _ONCOLOGY_RECORDS, a=[], b=[]),
    "J9355": _rule("specialty_drug", _ONCOLOGY_RECORDS, a=[], b=[]),
    "78815": _rule("pet_scan", "the oncology note and the prior CT report", a=[], b=[]),
    **{code: _rule("genetic_testing", _GENETIC_RECORDS, b=_GENETIC_B)
       for code in ("81162", "81432", "81433", "81435", "81292", "81295")},
    "97110": _rule("routine_outpatient", "the therapy plan of care and the referring office note", a=[],
                   a_waived=("PPO", "EPO", "Medicare Advantage")),
}
# Codes the world orders that no payer reviews, by scenario family (for the audit's counts).
_UNREVIEWED_FAMILIES = {"93306": "cardiac_testing", "80053": "routine_outpatient", "83036": "routine_outpatient",
                        "71046": "routine_outpatient", "77080": "routine_outpatient",
                        # An inpatient stay is no prior-authorization request: the payer's inpatient
                        # notification and concurrent review (envs/world/audit_rules/inpatient.py) decide it.
                        "99223": "inpatient", "99233": "inpatient"}


def service_rule(code: str) -> ServiceRule | None:
    """The review rule of `code`, or None when no payer reviews it."""
    return _RULES.get(code)


def restated(code: str) -> bool:
    """Whether these rules say how the payers review `code`: a rule, or a code the world
    orders that no payer reviews. The portals' policies review more codes than the world
    orders (their general questionnaire's surgery and imaging codes); a task's case may
    use one, and then the world's rules cannot judge a decision on it."""
    return code in _RULES or code in _UNREVIEWED_FAMILIES


def family_of(code: str) -> str:
    """The scenario family an ordered code belongs to ("office_visit" for anything else)."""
    rule = _RULES.get(code)
    return rule.family if rule else _UNREVIEWED_FAMILIES.get(code, "office_visit")


def review(code: str, portal: str, product: str, facts: Facts, coverage_active: bool) -> Review:
    """Apply the payer's rules, in the payer's order: review needed, coverage, then each criterion."""
    rule = _RULES.get(code)
    if rule is None or not rule.reviewed(portal, product):
        return Review(NOT_REVIEWED, None, f"Prior authorization is not required for {code} under this plan.")
    if not coverage_active:
        return Review(COVERAGE_INACTIVE, "coverage_active",
                      "Member coverage is not active on the requested start date.")
    for criterion in rule.criteria[portal]:
        if not criterion.holds(facts):
            return Review(NOT_MET, criterion.id, criterion.deny_reason)
    return Review(MET, None, "Criteria met. The request is approved as shown.")
