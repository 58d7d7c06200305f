"""Shrink a Claude Code session for vendoring: in every long string, past its first characters, each ASCII
letter and digit becomes ``x``; spaces, line breaks, punctuation and other characters stay, so each string
keeps its length in characters and in escaped UTF-8 bytes. Keys, numbers, ids and short strings are
untouched, and a line is written back as Claude Code writes it (compact JSON, non-ASCII left as is).

    python tests/shrink_session.py SESSION.jsonl OUT.jsonl.gz

The importer sizes text by its length (4 chars a token), or a tool's input and result by their raw JSON,
and never by their words, so ``ctxviz fidelity``
gives the same report for the shrunk file as for the original (checked for each vendored session when
it was made; see tests/fixtures/SOURCES.md). The filler compresses to almost nothing under gzip.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

KEEP = 160  # characters kept at the start of a long string: record markers and result heads live there
# what the importer shows or classifies by: a tool's command, path, pattern, description, skill name
KEEP_WHOLE = frozenset({"command", "file_path", "filePath", "path", "pattern", "description", "skill"})
_LETTER_OR_DIGIT = re.compile(r"[A-Za-z0-9]")


def shrink(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) <= KEEP:
            return value
        return value[:KEEP] + _LETTER_OR_DIGIT.sub("x", value[KEEP:])
    if isinstance(value, list):
        return [shrink(v) for v in value]
    if isinstance(value, dict):
        return {k: v if k in KEEP_WHOLE and isinstance(v, str) else shrink(v) for k, v in value.items()}
    return value


def shrink_file(source: Path, target: Path) -> None:
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        lines.append(
            json.dumps(shrink(json.loads(line)), ensure_ascii=False, separators=(",", ":")) if line.strip() else line
        )
    with gzip.open(target, "wt", encoding="utf-8", compresslevel=9) as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    shrink_file(Path(sys.argv[1]), Path(sys.argv[2]))
