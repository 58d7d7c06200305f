"""A Codex rollout read from its end (its first call, then its last compaction on) gives the window the whole
read gives after the last call, and ``ctxviz statusline`` prints it for a rollout; ``watch`` and ``play``
open a big rollout on it, ``context`` still reads the whole file; where the tail alone cannot tell, the
whole file is read."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from from_end_helpers import screen_text, shown, until_live_timeline, words

from ctxviz.cli import main
from ctxviz.live.watch import Watch
from ctxviz.live.watch_app import LiveTimelineScreen, WatchApp
from ctxviz.sources import last_call_from_end
from ctxviz.timeline import Timeline
from ctxviz.transcripts.codex.from_end import last_window, window_from_end
from ctxviz.transcripts.codex.reader import CodexReader
from ctxviz.transcripts.protocol import ref_for
from ctxviz.tui.screens.first_screen import FirstScreen

WINDOW = 258_400
FROM_END_BYTES = "ctxviz.transcripts.codex.from_end.FROM_END_BYTES"
FIXTURES = Path(__file__).parent / "fixtures" / "other-agents" / "codex"


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


def _tail_start(path: Path, call: int) -> int:
    """Where the line of the ``call``-th call's token count starts (the generator's totals count the calls)."""
    data = path.read_bytes()
    return data.rfind(b"\n", 0, data.index(b'"total_token_usage": {"input_tokens": %d}' % call)) + 1


def test_watch_and_play_open_a_big_rollout_on_its_last_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_watch_first_screen import _facts

    path = _rollout(tmp_path / "rollout.jsonl", calls=95, every=30)
    offset = _tail_start(path, 90)  # the last call before the last compaction, after call 90
    monkeypatch.setattr(FROM_END_BYTES, offset + 1)
    assert Watch(path).window_from_end() is None and last_call_from_end(path) is None  # small: read whole
    monkeypatch.setattr(FROM_END_BYTES, offset)
    window = window_from_end(path)
    assert window is not None and window.read_from == offset
    watch = Watch(path)
    first, played = watch.window_from_end(), last_call_from_end(path)
    assert first is not None and played is not None
    assert len(first.steps) == 1 and first.steps[0].measured
    assert first.used_at(first.last) == 20_000 + 520 * 4  # calls 91-95 after the compaction
    seen = watch.poll()
    assert seen is not None and seen.timeline is not None
    assert _facts(first) == _facts(seen.timeline) == _facts(played)


def test_every_rollout_read_from_its_end_opens_on_the_whole_reads_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_watch_first_screen import _facts

    monkeypatch.setattr(FROM_END_BYTES, 0)
    shapes = [(95, 30), (3, 1), (61, 20), (40, 7)]
    made = [_rollout(tmp_path / f"rollout-{calls}-{every}.jsonl", calls, every) for calls, every in shapes]
    read = 0
    for path in [*sorted(FIXTURES.glob("*.jsonl")), *made]:
        first = last_call_from_end(path)
        if first is None:
            continue  # no compaction, or only the whole read can tell
        read += 1
        whole = CodexReader().read(ref_for("codex", path)).timeline
        assert _facts(first) == _facts(whole), path
    assert read == len(made)


def test_context_on_a_rollout_still_reads_it_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _rollout(tmp_path / "rollout.jsonl", calls=95, every=30)
    before = CliRunner().invoke(main, ["context", str(path)])
    monkeypatch.setattr(FROM_END_BYTES, 0)
    assert window_from_end(path) is not None
    after = CliRunner().invoke(main, ["context", str(path)])
    assert before.exit_code == after.exit_code == 0
    assert after.output == before.output and "95" in after.output  # the calls counted: the whole file read


def test_watchs_first_screen_of_a_rollout_gives_way_to_its_whole_timeline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _rollout(tmp_path / "rollout.jsonl", calls=95, every=30)
    monkeypatch.setattr(FROM_END_BYTES, 0)
    watch = Watch(path)
    first = watch.window_from_end()
    assert first is not None
    app = WatchApp(watch, first, from_end=True)

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, FirstScreen)
            assert screen_text(screen.query_one("#header-name")).startswith("codex-from-end · reading history…")
            before, context = shown(screen), screen_text(screen.query_one("#context-body"))
            await until_live_timeline(app, pilot)
            after = app.screen
            assert isinstance(after, LiveTimelineScreen) and after.index == after.timeline.last > 0
            assert shown(after) == before
            await pilot.press("2")  # the /context view, at the same (last) step
            await pilot.pause()
            at = "at the last call (the calls before its last compaction are being read)"
            whole = words(screen_text(after.query_one("#context-body")))
            assert whole == words(context).replace(at, f"at step {after.index}")

    asyncio.run(run())
