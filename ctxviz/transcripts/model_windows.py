"""Windows by model name, for agents whose sessions do not record the window (opencode, pi).

Always a guess, and the timeline says so: the same model can be served with another window by another
provider, and these agents let a user configure the window themselves.
"""

from __future__ import annotations

FALLBACK_WINDOW = 200_000
# Longest prefix wins. Published context lengths of the model families.
_BY_PREFIX = {
    "claude-": 200_000,
    "gpt-4o": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-5": 400_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "gemini-": 1_048_576,
}


def guessed_window(model: str) -> int:
    """The usual window of a model family; ``FALLBACK_WINDOW`` for a model not listed."""
    name = model.rsplit("/", 1)[-1].lower()
    matches = [prefix for prefix in _BY_PREFIX if name.startswith(prefix)]
    return _BY_PREFIX[max(matches, key=len)] if matches else FALLBACK_WINDOW


def guess_notice(model: str, window: int) -> str:
    return f"the session does not record the window: {window:,} for {model!r} is a guess"
