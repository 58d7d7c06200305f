"""Agent versions as the sessions record them ("2.1.39"), compared number by number."""

from __future__ import annotations

import re

_NUMBERS = re.compile(r"\d+")


def version_key(version: str) -> tuple[int, ...]:
    """``"2.1.39"`` → (2, 1, 39); a suffix ("-beta") and anything not a number are ignored."""
    return tuple(int(part) for part in _NUMBERS.findall(version.split("-", 1)[0]))


def at_least(version: str, since: str) -> bool:
    return version_key(version) >= version_key(since)
