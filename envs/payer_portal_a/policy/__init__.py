"""The payers' medical policy, loaded from `medical_policy.yaml`.

Policy is data: which codes need authorization (by plan product and place of service),
which questions the wizard asks, which diagnoses are covered, which documents must be
attached, the criteria over the answers, and what an approval grants. Each payer's own
rules are data too: an exception may name the payers it is for (`payers:`), so one payer
can stop reviewing a service without changing what the others require.

A key the loader does not know is an error naming where it is: a misspelt key would
otherwise be silently ignored and the policy would not say what its author meant.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

POLICY_FILE = Path(__file__).resolve().parent / "medical_policy.yaml"
TOP_LEVEL_KEYS = {"document_types", "questionnaires", "services", "general_services"}
QUESTIONNAIRE_KEYS = {"title", "questions"}
QUESTION_KEYS = {"id", "label", "type", "required", "choices", "min", "max", "decimal", "max_length"}
SERVICE_KEYS = {"questionnaire", "auth_required", "exceptions", "covered_diagnoses", "required_documents",
                "criteria", "approval"}
EXCEPTION_KEYS = {"payers", "products", "places_of_service"}
CRITERION_KEYS = {"id", "require", "deny_reason"}
APPROVAL_KEYS = {"units", "days"}
GENERAL_KEYS = {"codes", "required_documents", "approval"}
GENERAL_APPROVAL_KEYS = {"units_requested", "days"}
# Categories of code a payer never reviews in advance.
NEVER_REVIEWED_CATEGORIES = {"lab", "office"}


@dataclass(frozen=True)
class Question:
    """One clinical question of a questionnaire."""

    id: str
    label: str
    type: str  # number, choice, yesno, date, text
    required: bool = True
    choices: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None
    decimal: bool = False
    max_length: int = 200


@dataclass(frozen=True)
class Questionnaire:
    id: str
    title: str
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class Criterion:
    """A rule over the answers; when `require` is false the request is denied."""

    id: str
    require: dict
    deny_reason: str


@dataclass(frozen=True)
class ServicePolicy:
    """What the policy says about one CPT/HCPCS code."""

    code: str
    questionnaire: str
    auth_required: bool
    exceptions: tuple[dict, ...]
    covered_diagnoses: tuple[str, ...]  # empty: any diagnosis
    required_documents: tuple[str, ...]
    criteria: tuple[Criterion, ...]
    approval_units: int | None  # None: the units requested
    approval_days: int

    def requires_auth(self, product: str, place_of_service: str, payer: str | None = None) -> bool:
        """Whether the code needs authorization under a plan of `product` from `payer` at
        `place_of_service`: an exception exempts it when each key it gives matches (one
        naming payers applies only when the payer is known and named)."""
        if not self.auth_required:
            return False
        for exception in self.exceptions:
            payers = exception.get("payers")
            products, places = exception.get("products"), exception.get("places_of_service")
            if ((payers is None or payer in payers) and (products is None or product in products)
                    and (places is None or place_of_service in places)):
                return False
        return True

    def covers(self, diagnosis_code: str) -> bool:
        return not self.covered_diagnoses or any(diagnosis_code.startswith(p) for p in self.covered_diagnoses)


@dataclass(frozen=True)
class MedicalPolicy:
    """All of the policy: document types, questionnaires and per-code rules."""

    document_types: tuple[str, ...]
    questionnaires: dict[str, Questionnaire]
    services: dict[str, ServicePolicy]

    def service(self, code: str) -> ServicePolicy | None:
        return self.services.get(code.strip().upper())

    def questionnaire_for(self, codes: list[str]) -> Questionnaire:
        """The questions of every line's service, in line order, each question once.

        A request for two services (e.g. a brain MRI and a sleep study) answers both
        services' questions; its id joins the ids with "+".
        """
        ids: list[str] = []
        for code in codes:
            service = self.service(code)
            qid = service.questionnaire if service else "general"
            if qid not in ids:
                ids.append(qid)
        return self.questionnaire("+".join(ids or ["general"]))

    def questionnaire(self, questionnaire_id: str) -> Questionnaire | None:
        """A questionnaire by id, including the merged ids of multi-service requests."""
        parts = [self.questionnaires.get(part) for part in questionnaire_id.split("+")]
        if not questionnaire_id or None in parts:
            return None
        if len(parts) == 1:
            return parts[0]
        questions: dict[str, Question] = {}
        for part in parts:
            for question in part.questions:
                questions.setdefault(question.id, question)
        return Questionnaire(questionnaire_id, " / ".join(part.title for part in parts), tuple(questions.values()))


class PolicyError(ValueError):
    """The policy file says something the loader does not understand (the message says where)."""


def _known_keys(raw: object, allowed: set[str], where: str) -> dict:
    """`raw` as a mapping with only `allowed` keys; PolicyError naming `where` otherwise."""
    if not isinstance(raw, dict):
        raise PolicyError(f"{POLICY_FILE.name}: {where}: expected a mapping, found {type(raw).__name__}")
    unknown = sorted(str(key) for key in raw if key not in allowed)
    if unknown:
        raise PolicyError(f"{POLICY_FILE.name}: {where}: unknown key {unknown[0]!r} "
                          f"(known keys: {', '.join(sorted(allowed))})")
    return raw


def _question(raw: dict, where: str = "question") -> Question:
    _known_keys(raw, QUESTION_KEYS, where)
    return Question(id=raw["id"], label=raw["label"], type=raw["type"], required=raw.get("required", True),
                    choices=tuple(raw.get("choices", ())), min=raw.get("min"), max=raw.get("max"),
                    decimal=raw.get("decimal", False), max_length=raw.get("max_length", 200))


def _service(code: str, raw: dict) -> ServicePolicy:
    where = f"services.{code}"
    _known_keys(raw, SERVICE_KEYS, where)
    for number, exception in enumerate(raw.get("exceptions", ())):
        _known_keys(exception, EXCEPTION_KEYS, f"{where}.exceptions[{number}]")
    for number, criterion in enumerate(raw.get("criteria", ())):
        _known_keys(criterion, CRITERION_KEYS, f"{where}.criteria[{number}]")
    approval = _known_keys(raw.get("approval", {}), APPROVAL_KEYS, f"{where}.approval")
    return ServicePolicy(
        code=code, questionnaire=raw["questionnaire"], auth_required=raw.get("auth_required", True),
        exceptions=tuple(raw.get("exceptions", ())), covered_diagnoses=tuple(raw.get("covered_diagnoses", ())),
        required_documents=tuple(raw.get("required_documents", ())),
        criteria=tuple(Criterion(c["id"], c["require"], c["deny_reason"]) for c in raw.get("criteria", ())),
        approval_units=approval.get("units"), approval_days=approval["days"])


@lru_cache(maxsize=1)
def load_policy() -> MedicalPolicy:
    """Parse the policy file once per process."""
    return parse_policy(yaml.safe_load(POLICY_FILE.read_text(encoding="utf-8")))


def parse_policy(data: dict) -> MedicalPolicy:
    """The policy a policy file's data describes; PolicyError names an unknown key."""
    # A top-level key starting with `_` only holds YAML anchors for the services to share.
    _known_keys({key: value for key, value in data.items() if not str(key).startswith("_")},
                TOP_LEVEL_KEYS, "(top level)")
    questionnaires = {}
    for qid, raw in data["questionnaires"].items():
        _known_keys(raw, QUESTIONNAIRE_KEYS, f"questionnaires.{qid}")
        questionnaires[qid] = Questionnaire(qid, raw["title"], tuple(
            _question(q, f"questionnaires.{qid}.questions[{n}]") for n, q in enumerate(raw["questions"])))
    services = {str(code): _service(str(code), raw) for code, raw in data["services"].items()}
    general = _known_keys(data["general_services"], GENERAL_KEYS, "general_services")
    _known_keys(general["approval"], GENERAL_APPROVAL_KEYS, "general_services.approval")
    for code in general["codes"]:
        services.setdefault(code, ServicePolicy(
            code=code, questionnaire="general", auth_required=True, exceptions=(), covered_diagnoses=(),
            required_documents=tuple(general["required_documents"]), criteria=(), approval_units=None,
            approval_days=general["approval"]["days"]))
    for service in services.values():
        if service.questionnaire not in questionnaires:
            raise PolicyError(f"policy for {service.code}: unknown questionnaire {service.questionnaire!r}")
    return MedicalPolicy(tuple(data["document_types"]), questionnaires, services)


def condition_holds(condition: dict, answers: dict) -> bool:
    """Evaluate one rule condition over the answers (a missing answer never satisfies)."""
    if "any" in condition:
        return any(condition_holds(c, answers) for c in condition["any"])
    if "all" in condition:
        return all(condition_holds(c, answers) for c in condition["all"])
    value, expected, op = answers.get(condition["question"]), condition["value"], condition["op"]
    if value is None or value == "":
        return False
    if op in ("gte", "lte", "gt", "lt"):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return False
        return {"gte": number >= expected, "lte": number <= expected,
                "gt": number > expected, "lt": number < expected}[op]
    if op == "eq":
        return value == expected
    if op == "ne":
        return value != expected
    if op == "in":
        return value in expected
    if op == "not_in":
        return value not in expected
    raise ValueError(f"unknown rule operator {op!r}")
