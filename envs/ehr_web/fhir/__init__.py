"""The EHR's FHIR R4 API (`/fhir`): its rows as R4 resources for tool-calling agents, and the
writes a coordinator makes (notes, work-item status, a payer's decision on an order, a
coverage's eligibility check), each through the screens' own services. See docs/apis.md."""
from __future__ import annotations

from admindesk.envs.ehr_web.fhir.routes import fhir_api

__all__ = ["fhir_api"]
