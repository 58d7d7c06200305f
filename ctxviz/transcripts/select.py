"""Choosing sessions: by id, the latest, by project, by date. Pure over ``SessionFile`` lists."""

from __future__ import annotations

import re
from datetime import date, datetime

from ctxviz.errors import InputError
from ctxviz.transcripts.discover import SessionFile, decode_project

_ENCODED = re.compile(r"[/.\s~\\:]")  # what Claude Code turns into "-" in a project folder's name


def project_matches(file: SessionFile, project: str | None) -> bool:
    """A case-insensitive substring of the project's path (either spelling: ``app`` or ``/home/me/app``)."""
    if not project:
        return True
    name = file.project_dir.name.lower()
    wanted = project.lower()
    return _ENCODED.sub("-", wanted) in name or wanted in decode_project(file.project_dir.name).lower()


def by_session(files: list[SessionFile], wanted: str) -> SessionFile:
    """The session whose id is ``wanted`` or starts with it (unique)."""
    exact = [f for f in files if f.session == wanted]
    found = exact or [f for f in files if f.session.startswith(wanted)]
    if not found:
        raise InputError(f"no session {wanted!r} found (try `ctxviz sessions`)")
    if len(found) > 1:
        ids = ", ".join(f.session for f in found[:5])
        raise InputError(f"session {wanted!r} is ambiguous: {ids}")
    return found[0]


def latest(files: list[SessionFile], cwd: str | None = None) -> SessionFile:
    """The most recently written session; one of the current directory's project wins if there is one."""
    if not files:
        raise InputError("no Claude Code sessions found (looked in ~/.claude, ~/.config/claude, CLAUDE_CONFIG_DIR)")
    if cwd:
        here = _ENCODED.sub("-", cwd)
        local = [f for f in files if f.project_dir.name == here]
        files = local or files
    return max(files, key=lambda f: (f.mtime, f.path.name))


def parse_day(text: str) -> date:
    """``YYYYMMDD`` (as ccusage takes it) or ``YYYY-MM-DD``."""
    for layout in ("%Y%m%d", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, layout).date()
        except ValueError:
            continue
    raise ValueError(f"{text!r} is not a date (YYYYMMDD or YYYY-MM-DD)")


def local_day(timestamp: str | None) -> date | None:
    """The local calendar day of an ISO timestamp (transcripts write UTC ``…Z``)."""
    if not timestamp:
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).astimezone().date()
    except ValueError:
        return None
