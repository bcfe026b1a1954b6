"""Token prices per model (the data file `prices.json` beside this module) and call costs."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from admindesk.harness.agents.base import Usage

PRICES_FILE = Path(__file__).with_name("prices.json")


@lru_cache(maxsize=1)
def price_table() -> dict[str, dict[str, float]]:
    """Model name -> {"input", "cached_input", "output"} dollars per million tokens."""
    table = json.loads(PRICES_FILE.read_text(encoding="utf-8"))
    return {name: prices for name, prices in table.items() if not name.startswith("_")}


def model_prices(model: str) -> dict[str, float] | None:
    """The prices of `model`: exact name first, else the longest listed prefix (so a dated
    snapshot such as `claude-sonnet-4-5-20250929` is priced as its family); None if unlisted."""
    table = price_table()
    if model in table:
        return table[model]
    prefixes = [name for name in table if model.startswith(name + "-")]
    return table[max(prefixes, key=len)] if prefixes else None


def call_usage(model: str, input_tokens: int, output_tokens: int,
               cached_input_tokens: int = 0) -> Usage:
    """The usage of one call, priced (cached input tokens are part of `input_tokens`)."""
    prices = model_prices(model)
    cost = None
    if prices is not None:
        fresh = max(input_tokens - cached_input_tokens, 0)
        cost = round((fresh * prices["input"] + cached_input_tokens * prices["cached_input"]
                      + output_tokens * prices["output"]) / 1_000_000, 6)
    return Usage(input_tokens=input_tokens, output_tokens=output_tokens,
                 cached_input_tokens=cached_input_tokens, calls=1, cost_usd=cost)
