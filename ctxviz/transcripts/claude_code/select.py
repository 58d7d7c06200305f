"""Choosing Claude Code sessions: by id, by project (read back from its folder's name). Pure over
``SessionFile`` lists."""

from __future__ import annotations

import re
from collections.abc import Callable

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
