"""``ctxviz watch`` through Pilot: lines of a real session appended while the app runs show up as
steps; stepping back stops following; truncation and deletion are survived and said."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

from textual.widgets import Label
from watching import poll_until_switched, watching

from ctxviz.layout import humanize
from ctxviz.live.watch import Watch
from ctxviz.live.watch_app import WatchApp
from ctxviz.tui.screens.timeline_screen import TimelineScreen
from ctxviz.tui.widgets.timeline_view import TimelineView

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
BIG = FIXTURES / "spotter-4d5611e5" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
LINES = BIG.read_bytes().splitlines(keepends=True)


def _append(file: Path, start: int, end: int) -> None:
    with file.open("ab") as out:
        out.write(b"".join(LINES[start:end]))


def _sent(lines: int) -> str:
    """The header's figures worked out from the log itself: what the calls in its first ``lines`` sent
    (each request's usage once: input + cache write + cache read), and the share of it sent again. With
    no compaction (none in the first 450 lines) each call sends again all the previous call sent."""
    usage: dict[str, int] = {}
    for line in LINES[:lines]:
        record = json.loads(line)
        message = record.get("message")
        if record.get("type") == "assistant" and isinstance(message, dict) and "usage" in message:
            u = message["usage"]
            usage[record["requestId"]] = (u["input_tokens"] + u.get("cache_creation_input_tokens", 0)
                                          + u.get("cache_read_input_tokens", 0))  # fmt: skip
    calls = list(usage.values())
    sent = sum(calls)
    return f" · {humanize(sent)} sent, {100 * (sent - calls[-1]) / sent:.0f}% re-sent"


def _screen(app: WatchApp) -> TimelineScreen:
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    return screen


def _header(app: WatchApp) -> str:
    return str(_screen(app).query_one("#header-name", Label).render())


def _watched_copy(tmp_path: Path, lines: int) -> tuple[Path, WatchApp]:
    """A copy of the session cut to its first ``lines`` lines, and the watch app following it."""
    file = tmp_path / BIG.name
    file.write_bytes(b"".join(LINES[:lines]))
    watch = Watch(file)
    seen = watch.poll()
    assert seen is not None and seen.timeline is not None
    return file, WatchApp(watch, seen.timeline)


def test_appended_calls_appear_within_a_second_and_the_view_follows(tmp_path: Path) -> None:
    file, app = _watched_copy(tmp_path, 300)

    async def run() -> None:
        async with watching(app, size=(120, 36)) as pilot:
            first = _screen(app).timeline
            assert _screen(app).index == first.last
            _append(file, 300, 340)
            written = time.monotonic()
            # the app's own timer picks the lines up; within a second on a quiet machine
            # (benchmarks/live.py), the bound here leaves room for a loaded CI machine
            while _screen(app).timeline.last == first.last and time.monotonic() - written < 3.0:
                await pilot.pause(0.02)
            assert _screen(app).timeline.last > first.last, "no new step within 3 s"
            await pilot.pause()
            screen = _screen(app)
            assert screen.index == screen.timeline.last  # still following the newest step
            assert _header(app) == "4d5611e5 · live" + _sent(340)
            assert screen.query_one(TimelineView).border_title == "● live · Space replays (2 steps/s)"

    asyncio.run(run())


def test_a_person_who_stepped_back_is_told_of_new_steps_until_end(tmp_path: Path) -> None:
    file, app = _watched_copy(tmp_path, 300)

    async def run() -> None:
        async with watching(app, size=(120, 36)) as pilot:
            await pilot.press("left", "left")
            before = _screen(app)
            looking_at, last = before.index, before.timeline.last
            assert looking_at == last - 2
            _append(file, 300, 400)
            app.poll()
            await pilot.pause()
            after = _screen(app)
            new_steps = after.timeline.last - last
            assert new_steps > 0 and after.index == looking_at
            # the state first: at 80 columns the figures after it are what an ellipsis cuts
            assert _header(app) == f"4d5611e5 · +{new_steps} (End)" + _sent(400)
            await pilot.press("end")
            app.poll()
            await pilot.pause()
            assert _header(app) == "4d5611e5 · live" + _sent(400)
            _append(file, 400, 450)
            app.poll()
            await pilot.pause()
            assert _screen(app).index == _screen(app).timeline.last

    asyncio.run(run())


def test_truncation_restarts_and_deletion_keeps_the_last_picture(tmp_path: Path) -> None:
    file, app = _watched_copy(tmp_path, 400)

    async def run() -> None:
        async with watching(app, size=(120, 36)) as pilot:
            long = _screen(app).timeline.last
            file.write_bytes(b"".join(LINES[:200]))  # truncated: the session file rewritten shorter
            app.poll()
            await pilot.pause()
            assert _screen(app).timeline.last < long
            assert app.status == "the file was truncated: read again"  # told in a notification
            shown = _screen(app).timeline
            file.unlink()
            app.poll()
            await pilot.pause()
            assert _screen(app).timeline is shown  # the last picture stays
            assert _header(app) == "4d5611e5 · file gone" + _sent(200) and app.status == "file gone, last picture kept"
            file.write_bytes(b"".join(LINES[:300]))  # back again (another inode)
            app.poll()
            await pilot.pause()
            assert _screen(app).timeline.last > shown.last and _header(app) == "4d5611e5 · live" + _sent(300)

    asyncio.run(run())


def test_following_the_newest_session_switches_when_one_starts(tmp_path: Path) -> None:
    project = tmp_path / "root" / "projects" / "-home-me-app"
    project.mkdir(parents=True)
    old = project / "11111111-old.jsonl"
    old.write_bytes(b"".join(LINES[:300]))
    os.utime(old, (time.time() - 60, time.time() - 60))
    watch = Watch(None, newest=True, env={"CLAUDE_CONFIG_DIR": str(tmp_path / "root")}, home=tmp_path / "home")
    assert watch.path == old
    first = watch.poll()
    assert first is not None and first.timeline is not None
    new = project / "22222222-new.jsonl"
    new.write_bytes(b"".join(LINES[:200]))
    switched = poll_until_switched(watch)
    assert watch.path == new
    assert switched.status == "switched to the newer claude-code session 4d5611e5"


def test_a_sidechain_in_the_session_file_opens_in_watch(tmp_path: Path) -> None:
    """Older layout: the subagent's records are in the followed file itself; Enter opens them."""
    source = FIXTURES / "claude-code-viewer" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    file = tmp_path / source.name
    file.write_bytes(b"".join(lines[:3]))

    async def run() -> None:
        watch = Watch(file)
        while (seen := watch.poll()) is None or seen.timeline is None:
            with file.open("ab") as out:
                out.write(lines.pop(3) if len(lines) > 3 else b"")
        app = WatchApp(watch, seen.timeline)
        async with watching(app, size=(120, 36)) as pilot:
            with file.open("ab") as out:
                out.write(b"".join(lines[3:]))
            app.poll()

            def children() -> list[int]:
                return [s.index for s in _screen(app).timeline.steps if s.child is not None]

            for _ in range(100):  # the new picture is swapped in once drawn: longer on a loaded machine
                await pilot.pause(0.05)
                if len(children()) == 2:
                    break
            with_child = children()
            assert len(with_child) == 2
            _screen(app).index = with_child[0]
            await pilot.press("enter")
            for _ in range(100):
                await pilot.pause(0.05)
                if isinstance(app.screen, TimelineScreen) and app.screen.is_child:
                    break
            child = app.screen
            assert isinstance(child, TimelineScreen) and child.is_child
            assert child.timeline.peak == 14_654

    asyncio.run(run())


def test_quitting_while_a_newer_picture_mounts_waits_for_it(tmp_path: Path) -> None:
    """q pressed in the moment after a change: quitting then would tear the new screen down before its
    own mount handler ran (a traceback on the way out); the app quits once it is drawn."""
    file, app = _watched_copy(tmp_path, 300)

    async def run() -> None:
        async with watching(app, size=(80, 24)) as pilot:
            await pilot.pause()
            _append(file, 300, 340)
            app.poll()  # switches to a new screen, not mounted yet
            await app.action_quit()
            for _ in range(50):
                await pilot.pause(0.01)
        assert app.return_code == 0

    asyncio.run(run())
