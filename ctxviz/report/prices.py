"""Prices per model, in US dollars per million tokens, and what a session's input cost at them. Pure.

The table ships with its source and the date it was read; ``--prices FILE`` replaces it (a JSON object
of the same shape). A model that is not in the table has no price: the audit says "no price known"
rather than guessing from a similar name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PRICES_SOURCE = "https://platform.claude.com/docs/en/about-claude/pricing"
PRICES_DATE = "2026-12-01"


@dataclass(frozen=True, slots=True)
class Price:
    """Dollars per million tokens: base input, 5-minute cache write, cache read, output."""

    input: float
    cache_write: float
    cache_read: float
    output: float


_OPUS_45 = Price(5.00, 6.25, 0.50, 25.00)
_OPUS_4 = Price(15.00, 18.75, 1.50, 75.00)
_SONNET_4 = Price(3.00, 3.75, 0.30, 15.00)
_HAIKU_45 = Price(1.00, 1.25, 0.10, 5.00)

PRICES: dict[str, Price] = {
    "claude-opus-4-6": _OPUS_45,
    "claude-opus-4-5": _OPUS_45,
    "claude-opus-4-5-20251101": _OPUS_45,
    "claude-opus-4-1": _OPUS_4,
    "claude-opus-4-1-20250805": _OPUS_4,
    "claude-opus-4-20250514": _OPUS_4,
    "claude-sonnet-4-6": _SONNET_4,
    "claude-sonnet-4-5": _SONNET_4,
    "claude-sonnet-4-5-20250929": _SONNET_4,
    "claude-sonnet-4-20250514": _SONNET_4,
    "claude-haiku-4-5": _HAIKU_45,
    "claude-haiku-4-5-20251001": _HAIKU_45,
}

_FIELDS = ("input", "cache_write", "cache_read", "output")


def parse_prices(document: Any, where: str) -> dict[str, Price]:
    """A ``--prices`` file's content: ``{"model": {"input": 5, "cache_write": 6.25, "cache_read": 0.5,
    "output": 25}}``. Raises ValueError naming the model and field that is wrong."""
    if not isinstance(document, dict):
        raise ValueError(f"{where}: expected an object of models, each with {', '.join(_FIELDS)}")
    table: dict[str, Price] = {}
    for model, fields in document.items():
        if not isinstance(fields, dict):
            raise ValueError(f"{where}: {model}: expected an object with {', '.join(_FIELDS)}")
        values: list[float] = []
        for name in _FIELDS:
            value = fields.get(name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{where}: {model}.{name}: expected a price ≥ 0 in $ per million tokens")
            values.append(float(value))
        table[model] = Price(*values)
    return table


@dataclass(frozen=True, slots=True)
class InputCost:
    """What the calls' input cost, as prompt caching bills a growing conversation: each call's growth
    written to the cache, the rest read from it; after a compaction the whole window is written again (an
    estimate: the log's own cache split is not kept). Output tokens are not in the window: not priced."""

    model: str
    written: int
    read: int
    dollars: float


def input_cost(model: str, call_sizes: Sequence[int], table: Mapping[str, Price]) -> InputCost | None:
    """None when ``model`` has no price in ``table``."""
    price = table.get(model)
    if price is None:
        return None
    written = read = 0
    before = 0
    for size in call_sizes:
        # a smaller window than before (a compaction) starts a new prefix: all of it is written again
        grown = size - before if 0 < before <= size else size
        written += grown
        read += size - grown
        before = size
    dollars = (written * price.cache_write + read * price.cache_read) / 1_000_000
    return InputCost(model, written, read, dollars)
