"""The vendored spotter sessions shrunk by ``shrink_session.py``: gzip-compressed, unpacked for a test
into a folder with the same layout (each session beside its ``subagents/`` folder), since the importer
reads a session's subagent files from beside it."""

from __future__ import annotations

import gzip
import json
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


def recorded(path: Path) -> tuple[list[int], list[tuple[str, int, int]]]:
    """Read straight from the file: each API call's context (main chain, deduplicated by message id) and
    each compaction boundary as (trigger, preTokens, calls before it)."""
    seen: set[str] = set()
    calls: list[int] = []
    boundaries: list[tuple[str, int, int]] = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("subtype") == "compact_boundary":
            meta = record["compactMetadata"]
            boundaries.append((meta["trigger"], meta["preTokens"], len(calls)))
        message = record.get("message") or {}
        usage = message.get("usage") if isinstance(message, dict) else None
        if record.get("type") != "assistant" or not usage or record.get("isSidechain") or message["id"] in seen:
            continue
        if message.get("model") == "<synthetic>":
            continue
        seen.add(message["id"])
        calls.append(usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"])
    return calls, boundaries
