"""The vendored spotter sessions shrunk by ``shrink_session.py``: gzip-compressed, unpacked for a test
into a folder with the same layout (each session beside its ``subagents/`` folder), since the importer
reads a session's subagent files from beside it."""

from __future__ import annotations

import gzip
from pathlib import Path

SHRUNK = Path(__file__).parent / "fixtures" / "claude-code" / "spotter-shrunk"


def unpack(target: Path) -> dict[str, Path]:
    """Every shrunk file written out under ``target``; returns each main session by its first 8 characters."""
    sessions: dict[str, Path] = {}
    for packed in sorted(SHRUNK.rglob("*.jsonl.gz")):
        out = target / packed.relative_to(SHRUNK).with_suffix("")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(gzip.decompress(packed.read_bytes()))
        if out.parent == target:
            sessions[out.name[:8]] = out
    return sessions
