"""Short forms for display: a token count as ``/context`` writes it, a model's name without its date.
Imports nothing of ctxviz, so that the status line (answered before anything else is imported) and
the warm ``sessions --json`` share them with the reports and the TUI."""

from __future__ import annotations

import re

_DATE_SUFFIX = re.compile(r"-\d{8}$")  # claude-sonnet-4-5-20250929 → claude-sonnet-4-5


def humanize(tokens: int) -> str:
    """``/context``-style short figures: 980, 4.2k, 33k, 17.2k, 146k, 1.2M."""
    if abs(tokens) < 1000:
        return str(tokens)
    if abs(tokens) < 100_000:
        return f"{tokens / 1000:.1f}".removesuffix(".0") + "k"
    if abs(tokens) < 1_000_000:
        return f"{tokens / 1000:.0f}k"
    return f"{tokens / 1_000_000:.1f}".removesuffix(".0") + "M"


def undated(model: str) -> str:
    """A model's name without the release date some agents append (``-YYYYMMDD``)."""
    return _DATE_SUFFIX.sub("", model)


def with_article(name: str) -> str:
    """``a codex``, ``an opencode``: an agent's name after the indefinite article it reads with."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
