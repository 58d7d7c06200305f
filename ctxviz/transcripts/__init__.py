"""Reading real Claude Code transcripts into the Timeline every face of ctxviz shows."""

from __future__ import annotations

from pathlib import Path

from ctxviz.timeline import Timeline


def open_transcript(path: Path) -> Timeline:
    """The timeline of a session file (``InputError`` when nothing at all could be read)."""
    from ctxviz.transcripts.load import read_transcript

    return read_transcript(Path(path)).timeline


__all__ = ["open_transcript"]
