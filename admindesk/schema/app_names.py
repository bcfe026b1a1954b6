"""The four apps by name (shared by task files, checks and guards without import cycles)."""
from __future__ import annotations

from typing import Literal

AppName = Literal["ehr_web", "payer_portal_a", "payer_portal_b", "fax"]
APP_NAMES: tuple[str, ...] = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
