"""Reading real agents' transcripts into the Timeline every face of ctxviz shows: one package per agent
(``transcripts/<agent>/``), the reader protocol and the registry that chooses among them here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline


def open_transcript(path: Path) -> Timeline:
    """The timeline of any agent's session file (``InputError`` when nothing at all could be read)."""
    from ctxviz.transcripts.registry import open_session

    reader, ref = open_session(Path(path))
    return reader.timeline(ref)


__all__ = ["open_transcript"]
