"""Keystone Mutual's FHIR API for tool-calling agents: Da Vinci PAS prior authorization
(`Claim/$submit`, `Claim/$inquire`), a coverage requirements lookup and the eligibility exchange
(`CoverageEligibilityRequest/$submit`), over the portal's own rules and rows (see api.py;
docs/apis.md for the calls)."""
from admindesk.envs.payer_portal_b.pas.api import pas

__all__ = ["pas"]
