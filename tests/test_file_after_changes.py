"""A Write or an Edit changes a file's size: later reads, and the re-read after a compaction, send the file
as the change left it (``file_after``), not as it was first read. The importer follows each file through
the session's Writes (their text is recorded) and Edits (the original file and the old and new strings)."""

from __future__ import annotations

import json
from pathlib import Path

from engine_helpers import P, added_tokens, steps_of_kind, timeline

from ctxviz.importer.load import load_session
from ctxviz.importer.session import ToolUse

FOLDER = Path(__file__).parent / "fixtures" / "claude-code" / "spotter-4d5611e5"
SPOTTER = FOLDER / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
RENDERER = "lib/spotter/services/transcript_renderer.ex"


def test_a_read_after_an_edit_sends_the_file_as_the_edit_left_it() -> None:
    tl = timeline(
        "files: {a.py: 1000}\nevents:\n  - prompt: {text: x, size: 50}\n  - read: a.py\n"
        "  - edit: {path: a.py, change: 300, file_after: 2500}\n  - compact:\n  - read: a.py\n"
    )
    (read_after,) = steps_of_kind(tl, "read")[1:]
    assert added_tokens(tl, read_after.index) == P.tool_call + 2500


def test_the_compaction_re_reads_the_file_at_its_size_after_the_write() -> None:
    tl = timeline(
        "files: {a.py: {tokens: 1000, lines: 100}}\nevents:\n  - prompt: {text: x, size: 50}\n  - read: a.py\n"
        "  - write: {path: a.py, content: 2000, file_after: {tokens: 2400, lines: 200}}\n  - compact:\n"
    )
    (compaction,) = steps_of_kind(tl, "compact")
    restored = [f for f in compaction.fates if f.label == "a.py" and f.fate == "restored"]
    assert [f.tokens for f in restored] == [2400]


def test_without_file_after_an_edit_leaves_the_size_as_it_was() -> None:
    tl = timeline(
        "files: {a.py: 1000}\nevents:\n  - prompt: {text: x, size: 50}\n  - read: a.py\n"
        "  - edit: {path: a.py, change: 300}\n  - compact:\n  - read: a.py\n"
    )
    (read_after,) = steps_of_kind(tl, "read")[1:]
    assert added_tokens(tl, read_after.index) == P.tool_call + 1000


def _recorded_shapes(path: Path, suffix: str) -> list[tuple[int, int]]:
    """(chars, lines) of the file after each Write and Edit of it, worked out from the records alone."""
    shapes = []
    for line in path.read_text().splitlines():
        result = json.loads(line).get("toolUseResult")
        if not isinstance(result, dict) or not str(result.get("filePath", "")).endswith(suffix):
            continue
        if result.get("type") in ("create", "update"):
            text = result["content"]
        elif "oldString" in result:
            text = result["originalFile"].replace(result["oldString"], result["newString"], 1)
        else:
            continue
        shapes.append((len(text), text.count("\n") + (0 if text.endswith("\n") else 1)))
    return shapes


def _changes(uses: list[ToolUse], suffix: str) -> list[tuple[int, int] | None]:
    return [u.file_after for u in uses if u.name in ("Write", "Edit") and (u.args.file_path or "").endswith(suffix)]


def test_each_change_of_the_renderer_is_followed_as_the_records_give_it() -> None:
    session = load_session(SPOTTER).session
    uses = [use for seg in session.segments for item in seg.items for use in getattr(item, "calls", ())]
    expected = _recorded_shapes(SPOTTER, RENDERER)
    # an Edit (13,068 chars + 711 - 64), the Write (17,758), an Edit (17,902 - 460 + 450)
    assert [chars for chars, _ in expected] == [13_715, 17_758, 17_892]
    assert _changes(uses, RENDERER) == expected
