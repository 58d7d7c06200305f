"""Reading real agents' transcripts into the Timeline every face of ctxviz shows."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline


def open_transcript(path: Path) -> Timeline:
    """The timeline of any agent's session file (``InputError`` when nothing at all could be read)."""
    from ctxviz.transcripts.registry import open_session
    from ctxviz.transcripts.safe import safe_timeline

    reader, ref = open_session(Path(path))
    return safe_timeline(reader.timeline(ref))


# A transcript's compaction step keeps the boundary's own "before" figure (preTokens) in its first note:
# these two read and write it, so that every view shows that one figure, not the last call's.
_PRE_TOKENS = re.compile(r"([\d,]+) tokens before it")
AFTER_ESTIMATED_NOTE = "size after compaction estimated until the next call measures it"


def pre_tokens_note(pre_tokens: int) -> str:
    """Whose figure it is: Claude Code's, not a measurement (the window view's "before" is the last call's)."""
    return (
        f"Claude Code counted {pre_tokens:,} tokens before it: the last call's measured size plus its "
        "estimate of what came after"
    )


# A compaction whose transcript does not say whether it was automatic or /compact (Codex, pi) keeps the
# auto-compact step kind and this note: every view reads the note and says "not recorded", not "auto".
TRIGGER_NOT_RECORDED_NOTE = "the transcript does not record whether this compaction was automatic or /compact"


def compaction_trigger(kind: str, notes: Iterable[str]) -> str:
    """A compaction step's trigger: "auto", "manual", or "unknown" when its transcript does not say."""
    if TRIGGER_NOT_RECORDED_NOTE in notes:
        return "unknown"
    return "auto" if kind == "auto-compact" else "manual"


def pre_tokens_in(notes: Iterable[str]) -> int | None:
    """The compaction boundary's preTokens, from its step's notes (None when it recorded none)."""
    for note in notes:
        if found := _PRE_TOKENS.search(note):
            return int(found.group(1).replace(",", ""))
    return None


__all__ = [
    "AFTER_ESTIMATED_NOTE",
    "TRIGGER_NOT_RECORDED_NOTE",
    "compaction_trigger",
    "open_transcript",
    "pre_tokens_in",
    "pre_tokens_note",
]
