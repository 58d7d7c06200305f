"""``ctxviz watch`` and ``ctxviz play`` on a big session: the first screen is the last call's window read
from the file's end, then the whole read's timeline screen replaces it. Every figure the first screen shows
is the whole read's at the same call. "Big" is a threshold in bytes; the tests pass a small one."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from from_end_helpers import generated_session, last_boundary, screen_text, shown, until_live_timeline, words
from watching import watching

from ctxviz.errors import InputError
from ctxviz.live.watch import Seen, Watch
from ctxviz.live.watch_app import LiveTimelineScreen, WatchApp
from ctxviz.report.context_data import shown_breakdown
from ctxviz.sources import last_call_from_end, open_timeline
from ctxviz.timeline import Timeline
from ctxviz.tui.app import CtxvizApp
from ctxviz.tui.screens.first_screen import FirstScreen, progress_text
from ctxviz.tui.screens.timeline_screen import TimelineScreen
from ctxviz.tui.segments import SegmentTotals

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
REAL = FIXTURES / "spotter-4d5611e5" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"  # 3 MB, one compaction
FROM_END_BYTES = "ctxviz.transcripts.claude_code.one_call_from_end.FROM_END_BYTES"


def _facts(timeline: Timeline) -> dict[str, Any]:
    """What the first screen draws of the last step: header, bar and legend, ``/context``."""
    index = timeline.last
    return {
        "used": timeline.used_at(index),
        "measured": timeline.steps[index].measured,
        "level": timeline.level_at(index),
        "model": timeline.model,
        "window": timeline.window,
        "thresholds": timeline.thresholds,
        "breakdown": timeline.breakdown_at(index),
        "shown": shown_breakdown(timeline, index),
        "segments": tuple(SegmentTotals(timeline).at(index)),
        "blocks": Counter((b.category, b.kind, b.label, b.tokens, b.visibility) for b in timeline.state_at(index)),
    }


def test_the_first_screen_is_the_last_call_read_from_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 25 calls, compactions after calls 10 and 20: the last call is the 5th after the second, measured
    # 24,000 + 4 x 520 = 26,080 tokens (the generator's figures, as the log records them)
    path = generated_session(tmp_path)
    offset = last_boundary(path)
    monkeypatch.setattr(FROM_END_BYTES, offset + 1)
    assert Watch(path).window_from_end() is None  # less than that before the boundary: the whole read first
    monkeypatch.setattr(FROM_END_BYTES, offset)
    first = Watch(path).window_from_end()
    assert first is not None and len(first.steps) == 1
    assert first.used_at(first.last) == 26_080 and first.steps[-1].measured


def test_every_fixture_first_screen_has_the_whole_reads_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FROM_END_BYTES, 0)
    read = 0
    for path in sorted(FIXTURES.glob("*/*.jsonl")):
        watch = Watch(path)
        first = watch.window_from_end()
        if first is None:
            continue  # no compaction, or only the whole read can tell
        read += 1
        seen = watch.poll()
        assert seen is not None and seen.timeline is not None
        assert _facts(first) == _facts(seen.timeline), path
    assert read > 0


def test_progress_is_told_in_bytes_read() -> None:
    assert progress_text((372_000_000, 1_004_000_000)) == "reading history… 37% (372 of 1,004 MB)"
    assert progress_text(None) == "reading history…"


@pytest.mark.parametrize("which", ["generated", "real"])
def test_the_timeline_screen_replaces_the_first_one_with_the_same_figures(
    which: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated_session(tmp_path) if which == "generated" else REAL
    name = path.stem[:8]
    monkeypatch.setattr(FROM_END_BYTES, 0)
    watch = Watch(path)
    first = watch.window_from_end()
    assert first is not None
    read_whole = watch.poll
    go = threading.Event()  # the whole read waits until the first screen has been looked at

    def poll() -> Seen | None:
        go.wait(10)
        return read_whole()

    watch.poll = poll  # type: ignore[method-assign]
    app = WatchApp(watch, first, from_end=True)

    async def run() -> None:
        async with watching(app, size=(120, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, FirstScreen)
            assert screen_text(screen.query_one("#header-name")).startswith(f"{name} · reading history…")
            assert screen_text(screen.query_one("#header-step")).strip() == ""  # the call's number: not read yet
            assert screen_text(screen.query_one("#history")).startswith("reading history… 0%")
            before = shown(screen)
            context = screen_text(screen.query_one("#context-body"))
            go.set()
            await until_live_timeline(app, pilot)
            after = app.screen
            assert isinstance(after, LiveTimelineScreen) and after.index == after.timeline.last > 0
            assert screen_text(after.query_one("#header-name")).startswith(f"{name} · live")
            assert shown(after) == before
            await pilot.press("2")  # the /context view, at the same (last) step
            await pilot.pause()
            whole = words(screen_text(after.query_one("#context-body")))
            at = "at the last call (the calls before its last compaction are being read)"
            assert whole == words(context).replace(at, f"at step {after.index}")

    asyncio.run(run())


def test_play_opens_a_big_session_on_its_last_call_then_its_whole_timeline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated_session(tmp_path)
    assert last_call_from_end(path) is None  # small: read whole before the first screen, as always
    assert last_call_from_end("compaction-deep-dive") is None  # a scenario
    monkeypatch.setattr(FROM_END_BYTES, 0)
    first = last_call_from_end(path)
    assert first is not None
    go = threading.Event()

    def read_whole() -> Timeline:
        go.wait(10)
        return open_timeline(path)

    app = CtxvizApp(first, read_whole=read_whole)

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, FirstScreen)
            assert screen_text(screen.query_one("#header-name")).strip().endswith("session b16b16b1 · reading history…")
            assert (
                screen_text(screen.query_one("#history")).strip() == "reading history…"
            )  # the reader tells no progress
            before = shown(screen)
            go.set()
            for _ in range(200):
                if isinstance(app.screen, TimelineScreen):
                    break
                await pilot.pause(0.05)
            await pilot.pause()  # its first draw
            after = app.screen
            assert isinstance(after, TimelineScreen) and after.index == after.timeline.last > 0
            assert shown(after) == before

    asyncio.run(run())


def test_play_says_why_when_the_whole_read_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = generated_session(tmp_path)
    monkeypatch.setattr(FROM_END_BYTES, 0)
    first = last_call_from_end(path)
    assert first is not None

    def read_whole() -> Timeline:
        raise InputError(f"{path}:3: not a session record")

    app = CtxvizApp(first, read_whole=read_whole)

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(100):
                if app.failure is not None:
                    break
                await pilot.pause(0.05)

    asyncio.run(run())
    assert app.failure == f"{path}:3: not a session record" and app.return_code == 1
