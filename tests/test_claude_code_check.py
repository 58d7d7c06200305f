"""Claude Code's check before a call, as the importer rebuilds it from a transcript. Its own count: the
last call's usage and output plus, for each text block sent since, its length in UTF-16 units / 4,
rounded (tokens.ts tokenCountWithEstimation, roughTokenCountEstimation). A compaction boundary records
that count as preTokens, so hand-made transcripts here state it by hand arithmetic and the importer must
match. Where: only before a call, so everything that came in since the last call is summarised."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxviz.importer import session_to_scenario
from ctxviz.importer.replay import replay
from ctxviz.kinds import EventKind
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
    """A first call (100,000), a long prompt, a call measured at 155,200 (over the 155,000 line of 2.1.17,
    sent because Claude Code's count before it, 100,000 and chars/4 of the prompt, was under it) answered
    in two records (output 1, then 300), a tool result, and a compaction whose preTokens is given."""
    tool = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat notes.txt"}}
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        _assistant("p0", "u0", "m-1", 100_000, 10, {"type": "text", "text": "Ready."}),
        {"type": "user", "uuid": "u1", "parentUuid": "p0", "message": {"role": "user", "content": "x" * 8_000}},
        _assistant("a0", "u1", "m0", 155_200, 1, {"type": "text", "text": "Reading it."}),
        _assistant("a1", "a0", "m0", 155_200, 300, tool),
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
    # output 300: 155,200 + 300 + 500
    path = _session(tmp_path, "→" * 2_000, 156_000)
    assert _count_at_compaction(path) == 156_000


def test_each_text_block_is_rounded_on_its_own(tmp_path: Path) -> None:
    # blocks of 6, 2 and 2 characters: round(1.5) + round(0.5) + round(0.5) = 2 + 1 + 1 = 4 (halves up,
    # as Math.round); one rounding of their 10 characters would give 3
    blocks = [{"type": "text", "text": "abcdef"}, {"type": "text", "text": "ab"}, {"type": "text", "text": "cd"}]
    path = _session(tmp_path, blocks, 155_504)
    assert _count_at_compaction(path) == 155_504


def test_a_character_past_u_ffff_counts_twice() -> None:
    assert utf16_length("a😀") == 3 and utf16_length("→") == 1 and utf16_length("abc") == 3
    assert [rounded_tokens(n) for n in (0, 1, 2, 5, 6, 7, 8)] == [0, 0, 1, 1, 2, 2, 2]


def test_the_check_waits_for_the_call_so_the_whole_stretch_is_summarised(tmp_path: Path) -> None:
    # the call before the compaction is already over the line, so the window is over it from the reply
    # on; Claude Code checks only before its next call, after the tool result: both are summarised
    path = _session(tmp_path, "→" * 2_000, 156_000)
    result = session_to_scenario(path)
    flat = [e for top in result.draft.events for e in top.flat()]
    ((segment, _, _),) = result.draft.compactions
    stretch = [e for e in flat if e.segment == segment]
    assert [(e.kind, e.call_follows) for e in stretch] == [(EventKind.REPLY, False), (EventKind.BASH, True)]
    run = replay(result.scenario, len(flat))
    ((after, _),) = run.compactions()
    assert flat[after] is stretch[-1]
