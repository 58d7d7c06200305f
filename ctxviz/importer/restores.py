"""What a transcript shows of what each compaction put back.

Claude Code from 2.1.97 writes it after the boundary: ``recorded_restore`` sizes each piece from the text
recorded (never from a call after it). Before, only the session's own later events show part of it
(``known_restores``). Claude Code's read-file cache starts over at a compaction with just the files it
re-read whole, and an Edit of a file missing from that cache is refused ("File has not been read yet"), as
is a Write over an existing one. So the first time a file is touched after a compaction, an Edit that went
through (or was refused for a reason checked only after that: the file changed since it was read, the text
to replace not found or found more than once) or a Write over the file shows it came back whole; such a
call refused as unread shows it did not. Versions that answer a Read of an unchanged file already in the
cache with a short stub show it too: a stub means the file came back. Transcripts up to 2.1.96 record
nothing else of the choice, which Claude Code makes by the stamps its cache keeps. Subagents keep caches of
their own, so their calls show nothing here.
"""

from __future__ import annotations

from typing import Any

from ctxviz.importer.paths import PathStyle
from ctxviz.importer.rules import read_tokens_of_file, tool_call_tokens
from ctxviz.importer.session import Compaction, Restored, Session, Tools, is_unchanged_stub
from ctxviz.kinds import AgentName, EventKind, RestoredPiece
from ctxviz.profiles import get_profile
from ctxviz.tokens import estimate

_EDITS = frozenset({"Edit", "MultiEdit"})
_FILE_TOOLS = _EDITS | {"Read", "Write", "NotebookEdit"}
_NOT_READ = "has not been read yet"  # FileEditTool: the file is not in the read-file cache
# refusals Claude Code's FileEditTool gives only once the file passed that check: it was in the cache
_PAST_THE_CHECK = (
    "has been modified since read",  # it is, but the file changed on disk since
    "String to replace not found",
    "matches of the string to replace",
)


def known_restores(session: Session, style: PathStyle) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """For each compaction in turn, automatic or typed: the files shown to have come back whole, and those
    shown not to have (paths as the scenario writes them)."""
    found: list[tuple[list[str], list[str]]] = []
    seen: set[str] = set()
    current: tuple[list[str], list[str]] | None = None
    for segment in session.segments:
        for item in segment.items:
            if isinstance(item, Compaction):
                current = ([], [])  # each compaction starts the cache over: what follows tells of this one
                found.append(current)
                seen = set()
            elif isinstance(item, Tools) and current is not None:
                back, not_back = current
                for use in item.calls:
                    path = use.args.file_path or use.args.notebook_path
                    if not path or use.agent is not None or use.name not in _FILE_TOOLS:
                        continue
                    key = style.path(path)
                    if key in seen:
                        continue
                    seen.add(key)
                    if use.error and _NOT_READ in use.result_head:
                        not_back.append(key)  # an Edit, or a Write over an existing file
                    elif (
                        (use.name in _EDITS and (not use.error or any(t in use.result_head for t in _PAST_THE_CHECK)))
                        or (use.overwrote and not use.error)
                        or is_unchanged_stub(use)
                    ):
                        back.append(key)
    return [(tuple(back), tuple(not_back)) for back, not_back in found]


def recorded_restore(item: Restored, style: PathStyle) -> tuple[str, dict[str, Any], dict[str, int], int]:
    """The event (kind, fields, sizes, tokens it adds) for one piece a compaction put back, sized from the
    text the transcript records: a file as a Read of it, the plan as the plan, a reference or the skills as
    the text sent."""
    if item.piece is RestoredPiece.FILE:
        tokens = read_tokens_of_file(AgentName.CLAUDE_CODE, item.chars) or estimate(item.chars)
        fields: dict[str, Any] = {"name": "Read", "reads": style.path(item.label)}
        sizes = {"call": 0, "output": tokens}
        return EventKind.TOOL, fields, sizes, tokens + tool_call_tokens(get_profile(AgentName.CLAUDE_CODE))
    tokens = estimate(item.chars)
    if item.piece is RestoredPiece.PLAN:
        return EventKind.PLAN, {}, {"plan": tokens}, tokens
    restored = "Referenced file" if item.piece is RestoredPiece.FILE_REFERENCE else "Skills restored:"
    text = style.text(f"{restored} {item.label}") or item.piece.value
    return EventKind.PROMPT, {"text": text, "visibility": "hidden"}, {"size": tokens}, tokens
