"""A Codex rollout read from its end (its first call, then its last compaction on) gives the window the whole
read gives after the last call, and ``ctxviz statusline`` prints it for a rollout; where the tail alone
cannot tell, the whole file is read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ctxviz.timeline import Timeline
from ctxviz.transcripts.codex.from_end import last_window
from ctxviz.transcripts.codex.reader import CodexReader
from ctxviz.transcripts.protocol import ref_for

WINDOW = 258_400


def _rollout(
    path: Path, calls: int, every: int, *, history: bool = True, instructions: bool = True, model_after: bool = True
) -> Path:
    """``calls`` calls of one shell command and its output each, compacted every ``every`` calls. The
    context measured at a call is 20,000 tokens, +520 a call since the last compaction."""
    meta: dict[str, object] = {"id": "codex-from-end", "cwd": "/tmp/demo"}
    if instructions:
        meta["base_instructions"] = {"text": "You are Codex. " * 200}
    lines: list[dict[str, object]] = [
        {"timestamp": "2026-11-30T10:00:00.000Z", "type": "session_meta", "payload": meta},
        {"timestamp": "2026-11-30T10:00:00.000Z", "type": "turn_context", "payload": {"model": "gpt-5-codex"}},
    ]
    since = 0
    for n in range(1, calls + 1):
        stamp = f"2026-11-30T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        arguments = json.dumps({"command": ["step", str(n)]})
        lines.append({"timestamp": stamp, "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "arguments": arguments, "call_id": f"call_{n}"}})  # fmt: skip
        lines.append({"timestamp": stamp, "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"call_{n}", "output": "x" * (40 * n)}})  # fmt: skip
        used = 20_000 + 520 * since
        lines.append({"timestamp": stamp, "type": "event_msg", "payload": {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": n}, "last_token_usage": {"input_tokens": used, "output_tokens": 40},
            "model_context_window": WINDOW}}})  # fmt: skip
        since += 1
        if n % every == 0 and n < calls:
            kept = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go on"}]}]
            lines.append({"timestamp": stamp, "type": "compacted", "payload": {
                "message": f"Summary up to {n}.", "replacement_history": kept if history else []}})  # fmt: skip
            lines.append({"timestamp": stamp, "type": "event_msg", "payload": {"type": "context_compacted"}})
            if model_after:  # the turn that goes on names its model again
                lines.append({"timestamp": stamp, "type": "turn_context", "payload": {"model": "gpt-5-codex"}})
            since = 0
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _window_now(timeline: Timeline) -> tuple[object, ...]:
    last = timeline.steps[-1]
    blocks = [(b.kind, b.label, b.tokens, b.category) for b in timeline.state_at(timeline.last)]
    return last.used, last.measured, timeline.model, timeline.window, timeline.thresholds, blocks


def test_the_window_after_the_last_call_is_the_whole_reads(tmp_path: Path) -> None:
    path = _rollout(tmp_path / "rollout.jsonl", calls=95, every=30)
    fast = last_window(path)
    whole = CodexReader().read(ref_for("codex", path)).timeline
    assert fast is not None
    assert _window_now(fast) == _window_now(whole)
    # the last compaction came after call 90: calls 91-95 measured 20,000 + 520 x (0..4)
    assert fast.steps[-1].used == 20_000 + 520 * 4
    # what was read: the first call, the last call before the compaction, the compaction and 5 calls
    assert len(fast.steps) == 8 < len(whole.steps)


def test_a_tail_right_after_the_first_call_is_read_as_well(tmp_path: Path) -> None:
    path = _rollout(tmp_path / "rollout.jsonl", calls=3, every=1)
    fast = last_window(path)
    assert fast is not None
    assert _window_now(fast) == _window_now(CodexReader().read(ref_for("codex", path)).timeline)


def test_where_the_tail_cannot_tell_the_whole_file_is_read(tmp_path: Path) -> None:
    assert last_window(_rollout(tmp_path / "none.jsonl", calls=20, every=100)) is None  # no compaction
    assert last_window(_rollout(tmp_path / "bare.jsonl", calls=40, every=15, history=False)) is None
    assert last_window(_rollout(tmp_path / "plain.jsonl", calls=40, every=15, instructions=False)) is None
    assert last_window(_rollout(tmp_path / "unnamed.jsonl", calls=40, every=15, model_after=False)) is None
    assert last_window(_rollout(tmp_path / "short.jsonl", calls=2, every=1)) is None  # head and tail meet
    ended = _rollout(tmp_path / "ended.jsonl", calls=40, every=20)
    with ended.open("a") as out:  # a compaction with no call after it: the model of a call before it
        out.write(
            json.dumps(
                {
                    "type": "compacted",
                    "payload": {
                        "message": "s",
                        "replacement_history": [
                            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go on"}]}
                        ],
                    },
                }
            )
            + "\n"
        )
    assert last_window(ended) is None


def _statusline(path: Path, cache: Path, template: str) -> str:
    payload = json.dumps({"transcript_path": str(path)})
    done = subprocess.run([sys.executable, "-m", "ctxviz", "statusline", "--format", template], input=payload,
                          capture_output=True, text=True, env={"XDG_CACHE_HOME": str(cache), "NO_COLOR": "1",
                                                               "PATH": "/usr/bin:/bin"}, check=True)  # fmt: skip
    return done.stdout.strip()


def test_the_statusline_prints_a_rollouts_last_call(tmp_path: Path) -> None:
    path = _rollout(tmp_path / "rollout.jsonl", calls=95, every=30)
    template = "{used_tokens} {window_tokens} {model}"
    assert _statusline(path, tmp_path / "cache", template) == f"{20_000 + 520 * 4} {WINDOW} gpt-5-codex"
    assert _statusline(path, tmp_path / "cache", template) == f"{20_000 + 520 * 4} {WINDOW} gpt-5-codex"  # cached
    assert _statusline(path, tmp_path / "cache", "{calls}") == "95"  # counted: the whole file read
