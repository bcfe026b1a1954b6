"""Each payer's administrative rules (appeal review times, filing limits, retro
authorization, peer-to-peer), loaded from `policy/payer_rules.yaml`.

The appeal window is not here: it is the payer's `timely_appeal_days` column, the one
number the remittances, letters and fax directory all quote.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

RULES_FILE = Path(__file__).resolve().parents[1] / "policy" / "payer_rules.yaml"


class PayerRules(BaseModel):
    """One payer's rules (see the YAML file's header for what each one means)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    immediate_reconsideration: bool
    immediate_preservice_appeal: bool
    appeal_review_days: int = Field(gt=0)
    claim_filing_days: int = Field(gt=0)
    corrected_claim_days: int = Field(gt=0)
    retro_auth_days: int = Field(ge=0)
    retro_emergent_only: bool
    peer_to_peer_days: int = Field(gt=0)
    medical_directors: tuple[str, ...] = Field(min_length=1)
    allowed_percent: int = Field(gt=0, le=100)

    def retro_rule_text(self) -> str:
        """The retro-authorization rule as the payer states it."""
        if self.retro_auth_days == 0:
            return "This payer does not accept retro-authorization requests; authorization must be obtained before the service."
        scope = "emergent services only" if self.retro_emergent_only else "any service"
        return (f"Retro-authorization is accepted within {self.retro_auth_days} calendar days after the date of "
                f"service, for {scope}.")


class CommonTiming(BaseModel):
    """Timing rules every payer follows (utilization-management decision clocks)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    expedited_hours: int
    standard_days: int
    external_review_days: int
    expedited_appeal_hours: int
    standard_preservice_appeal_days: int


class RuleBook(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    payers: dict[str, PayerRules]
    common: CommonTiming


@lru_cache(maxsize=1)
def rule_book() -> RuleBook:
    """Parse the rules file once per process (a bad file fails loudly naming the field)."""
    return RuleBook.model_validate(yaml.safe_load(RULES_FILE.read_text(encoding="utf-8")))


def rules_for(payer_id: str) -> PayerRules:
    """The rules of one payer; a payer without rules is a configuration error."""
    try:
        return rule_book().payers[payer_id]
    except KeyError:
        raise LookupError(f"payer {payer_id!r} has no entry in {RULES_FILE.name}") from None


def timing() -> CommonTiming:
    return rule_book().common
