"""Calendar days of sessions, for every agent: the ``--since``/``--until`` argument and the local day a
recorded timestamp falls on. Pure."""

from __future__ import annotations

from datetime import date, datetime


def parse_day(text: str) -> date:
    """``YYYYMMDD`` (as ccusage takes it) or ``YYYY-MM-DD``."""
    for layout in ("%Y%m%d", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, layout).date()
        except ValueError:
            continue
    raise ValueError(f"{text!r} is not a date (YYYYMMDD or YYYY-MM-DD)")


def local_day(timestamp: str | None) -> date | None:
    """The local calendar day of an ISO timestamp (logs write UTC ``…Z``)."""
    if not timestamp:
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).astimezone().date()
    except ValueError:
        return None
