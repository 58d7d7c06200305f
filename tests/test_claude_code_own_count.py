"""Claude Code's own count before a call, as the importer rebuilds it from a transcript: the last call's
usage and output plus, for each text block sent since, its length in UTF-16 units / 4, rounded
(tokens.ts tokenCountWithEstimation, roughTokenCountEstimation). A compaction boundary records that count
as preTokens, so hand-made transcripts here state it by hand arithmetic and the importer must match."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxviz.importer import session_to_scenario
from ctxviz.profiles.limits import rounded_tokens, utf16_length


def _usage(used: int, output: int) -> dict[str, int]:
    return {"input_tokens": used, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
            "output_tokens": output}  # fmt: skip


def _assistant(uuid: str, parent: str, message_id: str, used: int, output: int, block: dict[str, Any]) -> Any:
    message = {"id": message_id, "model": "claude-sonnet-4-5", "role": "assistant", "content": [block],
               "usage": _usage(used, output)}  # fmt: skip
    return {"type": "assistant", "uuid": uuid, "parentUuid": parent, "version": "2.1.17", "message": message}


def _result(uuid: str, parent: str, tool_id: str, content: Any) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    return {"type": "user", "uuid": uuid, "parentUuid": parent, "message": {"role": "user", "content": [block]}}


def _session(tmp_path: Path, result: Any, pre_tokens: int) -> Path:
    """A prompt, one call answered in two records (its output grows from 1 to 300 on the second), a tool
    result, then a compaction whose preTokens is given."""
    tool = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat notes.txt"}}
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        _assistant("a0", "u0", "m0", 150_000, 1, {"type": "text", "text": "Reading it."}),
        _assistant("a1", "a0", "m0", 150_000, 300, tool),
        _result("r1", "a1", "t1", result),
        {"type": "system", "subtype": "compact_boundary", "uuid": "b1", "parentUuid": None,
         "logicalParentUuid": "r1", "compactMetadata": {"trigger": "auto", "preTokens": pre_tokens}},
        {"type": "user", "uuid": "s1", "parentUuid": "b1", "isCompactSummary": True,
         "message": {"role": "user", "content": "Summary: " + "s" * 4_000}},
        _assistant("a2", "s1", "m2", 30_000, 5, {"type": "text", "text": "Continuing."}),
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _count_at_compaction(path: Path) -> int:
    draft = session_to_scenario(path).draft
    ((segment, _, _),) = draft.compactions
    return draft.counts[segment]


def test_a_result_is_counted_in_characters_not_utf8_bytes(tmp_path: Path) -> None:
    # 2,000 arrows: 2,000 characters (6,000 bytes in UTF-8) are 500 tokens; the call's last record says
    # output 300: 150,000 + 300 + 500
    path = _session(tmp_path, "→" * 2_000, 150_800)
    assert _count_at_compaction(path) == 150_800


def test_each_text_block_is_rounded_on_its_own(tmp_path: Path) -> None:
    # blocks of 6, 2 and 2 characters: round(1.5) + round(0.5) + round(0.5) = 2 + 1 + 1 = 4 (halves up,
    # as Math.round); one rounding of their 10 characters would give 3
    blocks = [{"type": "text", "text": "abcdef"}, {"type": "text", "text": "ab"}, {"type": "text", "text": "cd"}]
    path = _session(tmp_path, blocks, 150_304)
    assert _count_at_compaction(path) == 150_304


def test_a_character_past_u_ffff_counts_twice() -> None:
    assert utf16_length("a😀") == 3 and utf16_length("→") == 1 and utf16_length("abc") == 3
    assert [rounded_tokens(n) for n in (0, 1, 2, 5, 6, 7, 8)] == [0, 0, 1, 1, 2, 2, 2]
