"""Choosing sessions: by id, by project, by date. Pure over ``SessionFile`` lists."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime

from ctxviz.transcripts.claude_code.discover import SessionFile, decode_project, peek_ids
from ctxviz.transcripts.safe import safe_text

_ENCODED = re.compile(r"[/.\s~\\:]")  # what Claude Code turns into "-" in a project folder's name


def encoded_project(path: str) -> str:
    """A project path as Claude Code names its folder under ``projects/``."""
    return _ENCODED.sub("-", path)


def recorded_ids(file: SessionFile) -> tuple[str | None, str | None]:
    """The sessionId and cwd the file's first records name (what ``sessions`` shows)."""
    return peek_ids(file.path)


def project_matches(file: SessionFile, project: str | None) -> bool:
    """A case-insensitive substring of the project path ``sessions`` shows: the cwd the records name,
    else the path read back from the folder's name (either spelling: ``app`` or ``/home/me/app``)."""
    if not project:
        return True
    wanted = project.lower()
    _, cwd = recorded_ids(file)
    if cwd is not None:
        return wanted in cwd.lower() or wanted in safe_text(cwd).lower()
    name = file.project_dir.name.lower()
    return _ENCODED.sub("-", wanted) in name or wanted in decode_project(file.project_dir.name).lower()


def sessions_named(files: list[SessionFile], wanted: str) -> list[SessionFile]:
    """The sessions whose id is ``wanted`` (or else starts with it): the id in its file name, or the
    sessionId its records name (which ``sessions`` shows, and which a renamed file keeps)."""
    return _matching(files, wanted, lambda f: f.session) or _matching(files, wanted, lambda f: recorded_ids(f)[0] or "")


def _matching(files: list[SessionFile], wanted: str, key: Callable[[SessionFile], str]) -> list[SessionFile]:
    exact = [f for f in files if key(f) == wanted]
    return exact or [f for f in files if key(f).startswith(wanted)]


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


PROJECT_LABEL_CHARS = 30


def project_labels(projects: list[str], limit: int = PROJECT_LABEL_CHARS) -> dict[str, str]:
    """A short label per project path that still tells them apart: the last two folders, more while two
    projects share them (worktrees of one repository), cut on the left when long — the end is what
    differs."""
    parts = {p: [x for x in p.replace("\\", "/").split("/") if x] for p in set(projects)}
    depth = dict.fromkeys(parts, 2)
    while True:
        tails: dict[str, list[str]] = {}
        for project, names in parts.items():
            tails.setdefault("/".join(names[-depth[project] :]), []).append(project)
        clashes = [p for group in tails.values() if len(group) > 1 for p in group if depth[p] < len(parts[p])]
        if not clashes:
            break
        for project in clashes:
            depth[project] += 1
    labels: dict[str, str] = {}
    for project, names in parts.items():
        label = "/".join(names[-depth[project] :]) or project
        labels[project] = label if len(label) <= limit else "…" + label[-(limit - 1) :]
    return labels
