"""After a compaction, reading a restored file again returns its content, not the "unchanged" stub:
real sessions (Claude Code 2.1.39) measured the whole file at such reads."""

from __future__ import annotations

from engine_helpers import P, added_tokens, steps_of_kind, timeline


def test_a_restored_file_read_again_comes_back_whole() -> None:
    tl = timeline(
        "files: {a.py: 1000}\n"
        "events:\n  - prompt: {text: x, size: 50}\n  - read: a.py\n  - read: a.py\n  - compact:\n  - read: a.py\n"
    )
    reads = steps_of_kind(tl, "read")
    assert added_tokens(tl, reads[1].index) == P.tool_call + P.read_unchanged_stub  # before: unchanged, a stub
    assert added_tokens(tl, reads[2].index) == P.tool_call + 1000  # after the compaction restored it: whole again
