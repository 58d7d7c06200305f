"""What real logs of other agents hold that the samples did not: calls that never reached the API (all-zero
usage), pi's older compaction entries, Codex subagents and rollouts written one object over several lines."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ctxviz.timeline import Category, Timeline
from ctxviz.transcripts.protocol import Reads, SessionSummary, ref_for
from ctxviz.transcripts.registry import reader_for

FIXTURES = Path(__file__).parent / "fixtures" / "other-agents"
OPENCODE = FIXTURES / "opencode" / "agent-sessions_storage_v2"


def _read(path: Path) -> tuple[Timeline, SessionSummary]:
    reader = reader_for(path)
    assert reader is not None, path
    ref = ref_for(reader.name, path)
    return reader.timeline(ref), reader.summarise(ref, Reads())


def _calls(timeline: Timeline) -> list[int]:
    return [s.used for s in timeline.steps if s.kind == "api-call"]


def _pi_message(role: str, text: str, usage: dict[str, int] | None = None, stop: str = "stop") -> dict[str, object]:
    message: dict[str, object] = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 0}
    if usage is not None:
        message |= {"model": "claude-opus-4-5", "usage": {"output": 10, "totalTokens": 0, **usage}, "stopReason": stop}
    return {"type": "message", "timestamp": "2025-12-08T22:41:05.306Z", "message": message}


def _pi_older_session(path: Path) -> Path:
    """A session in pi's older layout (no ids, as pi wrote until its v2 migration): a compaction naming the
    first entry it keeps by position, then an aborted reply with all-zero usage as real pi sessions have."""
    zero = {"input": 0, "cacheRead": 0, "cacheWrite": 0}
    entries = [
        {"type": "session", "id": "s1", "timestamp": "2025-12-08T22:41:00.000Z", "cwd": "/tmp/demo"},
        _pi_message("user", "Read the old notes."),  # entry 1
        _pi_message("assistant", "The old notes say " + "x" * 4000, {"input": 5, "cacheRead": 0, "cacheWrite": 3000}),
        _pi_message("user", "Now the new plan."),  # entry 3
        _pi_message("assistant", "The new plan is " + "y" * 800, {"input": 5, "cacheRead": 4000, "cacheWrite": 300}),
        {
            "type": "compaction",
            "timestamp": "2025-12-08T22:45:00.000Z",
            "summary": "Notes read, plan made.",
            "firstKeptEntryIndex": 3,
            "tokensBefore": 4_420,
        },  # fmt: skip
        _pi_message("assistant", "", zero, stop="aborted"),
        _pi_message("user", "Go on."),
        _pi_message("assistant", "Going on.", {"input": 5, "cacheRead": 3300, "cacheWrite": 40}),
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def test_pi_aborted_message_is_no_call_and_the_older_compaction_keeps_from_its_index(tmp_path: Path) -> None:
    timeline, row = _read(_pi_older_session(tmp_path / "session.jsonl"))
    # input + cacheRead + cacheWrite of the three answered messages; the aborted one (all zeros) is not a call
    assert _calls(timeline) == [3_005, 4_305, 3_345]
    assert (row.calls, row.last, row.peak) == (3, 3_345, 4_305)
    assert any("1 assistant message without usage or with all-zero usage" in n for n in timeline.notices)
    # firstKeptEntryIndex 3: the file's fourth entry (the header is entry 0), the prompt "Now the new plan."
    compaction = timeline.steps[timeline.compaction_indices()[0]]
    kept = [b.label for b in timeline.state_at(compaction.index) if b.category is Category.MESSAGES]
    assert kept[0] == "Now the new plan." and "Read the old notes." not in kept
    assert kept[-1] == "compaction summary"
    assert [c.pre_tokens for c in row.compactions] == [4_420]  # tokensBefore


def test_gemini_reply_with_zero_input_is_no_call(tmp_path: Path) -> None:
    lines = (FIXTURES / "gemini-cli" / "agent-sessions_jsonl_v040.jsonl").read_text().splitlines()
    failed = {"id": "g-failed", "type": "gemini", "content": "", "tokens": {"input": 0, "output": 0, "total": 0}}
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([*lines, json.dumps(failed)]) + "\n")
    timeline, row = _read(path)
    assert _calls(timeline) == [11_855, 12_069]  # tokens.input of the two answered messages
    assert row.last == 12_069
    assert "1 gemini replies without token counts (not counted as calls)" in timeline.notices


def test_opencode_unfinished_message_with_zero_tokens_is_no_call(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(OPENCODE, storage)
    message = storage / "message" / "s_stage0_large" / "msg_0004.json"
    record = json.loads(message.read_text())
    record["tokens"] = {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}
    message.write_text(json.dumps(record))
    timeline, row = _read(storage / "session" / "proj_test" / "ses_s_stage0_large.json")
    assert _calls(timeline) == [120] and row.last == 120  # the one finished step's tokens.input
    assert "1 assistant message without tokens (not counted as calls)" in timeline.notices


def _codex_rollout(path: Path, meta: dict[str, object], *items: dict[str, object]) -> Path:
    usage = {"input_tokens": 12_000, "cached_input_tokens": 0, "output_tokens": 50, "total_tokens": 12_050}
    info = {"last_token_usage": usage, "total_token_usage": usage, "model_context_window": 258_400}
    records = [
        {"type": "session_meta", "payload": {"cwd": "/tmp/demo", **meta}},
        *({"type": "response_item", "payload": item} for item in items),
        {"type": "event_msg", "payload": {"type": "token_count", "info": info}},
    ]
    path.write_text("".join(json.dumps({"timestamp": "2026-06-18T07:55:31.403Z", **r}) + "\n" for r in records))
    return path


def test_codex_subagent_started_with_spawn_agent_is_counted_and_linked(tmp_path: Path) -> None:
    # a version that records the spawn_agent call and its result, and no collab_agent_spawn_end event
    call = {"type": "function_call", "name": "spawn_agent", "call_id": "c1", "arguments": '{"message": "look"}'}
    started = {"type": "function_call_output", "call_id": "c1", "output": '{"agent_id": "child-1"}'}
    refused = {"type": "function_call", "name": "spawn_agent", "call_id": "c2", "arguments": "{}"}
    error = {"type": "function_call_output", "call_id": "c2", "output": "agent depth limit reached"}
    parent = _codex_rollout(tmp_path / "parent.jsonl", {"id": "parent-1"}, call, started, refused, error)
    _, row = _read(parent)
    assert row.subagents == 1  # the call whose result names a started agent; the refused one started none
    # the child names its parent only inside source.subagent.thread_spawn
    source = {"subagent": {"thread_spawn": {"parent_thread_id": "parent-1", "depth": 1}}}
    _, child = _read(_codex_rollout(tmp_path / "child.jsonl", {"id": "child-1", "source": source}))
    assert child.parent == "parent-1"


def test_codex_rollout_written_one_object_over_several_lines_is_read(tmp_path: Path) -> None:
    one_a_line = FIXTURES / "codex" / "agent-sessions_stage0_small.jsonl"
    records = [json.loads(line) for line in one_a_line.read_text().splitlines() if line.strip()]
    pretty = tmp_path / "rollout.jsonl"
    pretty.write_text("\n".join(json.dumps(r, indent=2) for r in records) + "\n")
    timeline, row = _read(pretty)
    assert timeline.agent == "codex"
    assert _calls(timeline) == [16_341]  # last_token_usage.input_tokens, as in the one-a-line file
    assert (row.calls, row.subagents) == (1, 1)


def test_codex_rollout_with_a_long_first_line_is_still_read_one_record_a_line(tmp_path: Path) -> None:
    # real rollouts open with a session_meta of ~22 KB (its base instructions): one line, not a spanning object
    path = _codex_rollout(tmp_path / "rollout.jsonl", {"id": "r1", "base_instructions": {"text": "x" * 20_000}})
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], "{damaged", *lines[1:]]) + "\n")
    reader = reader_for(path)
    assert reader is not None
    reading = reader.read(ref_for(reader.name, path))
    assert _calls(reading.timeline) == [12_000]
    assert any(p.startswith(f"{path}:2: not JSON") for p in reading.problems)  # located, and reading went on


def test_a_codex_subagent_rollout_is_a_row_until_its_parent_is_found(tmp_path: Path) -> None:
    from ctxviz.transcripts.every_agent import collect

    source = {"subagent": {"thread_spawn": {"parent_thread_id": "parent-1", "depth": 1}}}
    root = tmp_path / "rollouts"
    root.mkdir()
    _codex_rollout(root / "child.jsonl", {"id": "child-1", "source": source})
    home = tmp_path / "home"
    home.mkdir()
    alone = collect({}, home, agents=["codex"], extra_roots=[root], use_index=False)
    assert [r.session for r in alone.rows] == ["child-1"]  # its parent is not here: not hidden
    call = {"type": "function_call", "name": "spawn_agent", "call_id": "c1", "arguments": "{}"}
    started = {"type": "function_call_output", "call_id": "c1", "output": '{"agent_id": "child-1"}'}
    _codex_rollout(root / "parent.jsonl", {"id": "parent-1"}, call, started)
    both = collect({}, home, agents=["codex"], extra_roots=[root], use_index=False)
    assert [(r.session, r.subagents) for r in both.rows] == [("parent-1", 1)]  # counted with its parent
