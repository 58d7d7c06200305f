"""Following a live session: how soon ``ctxviz watch`` shows a written line, what a poll costs, and
(if watchfiles is installed) how a file-system watcher compares with the timer-and-stat ctxviz uses.

The session is the 3 MB spotter transcript from tests/fixtures, written into a temporary file in
parts while the app runs headless (Textual's Pilot). The statusline's own speed is measured from the
outside with paired whole-process runs (see the README's "Live" section for the command).

    python benchmarks/live.py [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path

from ctxviz.live.tail import Tail
from ctxviz.live.watch import Watch
from ctxviz.live.watch_app import POLL_SECONDS, WatchApp
from ctxviz.tui.screens.timeline_screen import TimelineScreen

ROOT = Path(__file__).resolve().parents[1]
SESSION = ROOT / "tests/fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
IDLE_SECONDS = 5.0


def _call_ends(lines: list[bytes]) -> list[int]:
    """Line counts at which one more API call has been written: the first record of each message."""
    ends, seen = [], set()
    for n, line in enumerate(lines):
        record = json.loads(line)
        message = record.get("message") or {}
        if record.get("type") == "assistant" and message.get("usage") and message.get("id") not in seen:
            seen.add(message.get("id"))
            ends.append(n + 1)
    return ends


async def _watch_delays(runs: int, folder: Path) -> list[float]:
    lines = SESSION.read_bytes().splitlines(keepends=True)
    ends = [n for n in _call_ends(lines) if n > 300]
    file = folder / SESSION.name
    file.write_bytes(b"".join(lines[:300]))
    watch = Watch(file)
    seen = watch.poll()
    assert seen is not None and seen.timeline is not None
    app = WatchApp(watch, seen.timeline)
    delays = []
    async with app.run_test(size=(120, 36)) as pilot:
        written = 300
        for end in ends[:runs]:
            screen = app.screen
            assert isinstance(screen, TimelineScreen)
            before = screen.timeline.last
            await asyncio.sleep(POLL_SECONDS * (len(delays) % 4) / 4)  # land anywhere between two polls
            with file.open("ab") as out:
                out.write(b"".join(lines[written:end]))
            written = end
            start = time.monotonic()
            while time.monotonic() - start < 5:
                screen = app.screen
                if isinstance(screen, TimelineScreen) and screen.timeline.last > before and screen.is_mounted:
                    break
                await pilot.pause(0.002)
            else:
                raise SystemExit(f"no new step within 5 s after line {end}")
            await pilot.pause()  # the frame that draws it
            delays.append(time.monotonic() - start)
    return delays


def _poll_cost(folder: Path) -> float:
    file = folder / "idle.jsonl"
    file.write_bytes(SESSION.read_bytes())
    tail = Tail(file)
    tail.read()
    count = 20_000
    start = time.perf_counter()
    for _ in range(count):
        tail.read()
    return (time.perf_counter() - start) / count


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _idle_timer_cpu(folder: Path) -> float:
    file = folder / "idle-timer.jsonl"
    file.write_bytes(b"{}\n")
    tail = Tail(file)
    before, end = _cpu(), time.monotonic() + IDLE_SECONDS
    while time.monotonic() < end:
        tail.read()
        time.sleep(POLL_SECONDS)
    return _cpu() - before


def _watchfiles(folder: Path) -> tuple[list[float], float] | None:
    try:
        import watchfiles
    except ImportError:
        return None
    file = folder / "wf.jsonl"
    file.write_bytes(b"{}\n")
    stop = threading.Event()
    changes: list[float] = []

    def listen() -> None:
        for _ in watchfiles.watch(file, stop_event=stop):
            changes.append(time.monotonic())

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    time.sleep(0.5)
    delays = []
    for _ in range(8):
        count = len(changes)
        start = time.monotonic()
        with file.open("ab") as out:
            out.write(b"{}\n")
        while len(changes) == count and time.monotonic() - start < 5:
            time.sleep(0.001)
        delays.append(changes[-1] - start)
        time.sleep(0.2)
    before = _cpu()
    time.sleep(IDLE_SECONDS)
    idle = _cpu() - before
    stop.set()
    return delays, idle


# Other agents' sessions are read again whole when they change: how long that takes as they grow.
OTHERS = ROOT / "tests/fixtures/other-agents"
REREAD = (
    ("codex", OTHERS / "codex/agent-sessions_stage0_small.jsonl"),
    ("pi", OTHERS / "pi/synthetic-branch-compaction.jsonl"),
    ("gemini-cli", OTHERS / "gemini-cli/agent-sessions_jsonl_v040.jsonl"),
)
REREAD_MB = (1, 3, 12)


def _reread_costs(folder: Path) -> list[tuple[str, float, float, float]]:
    """(agent, MB, median read again, poll with nothing new) for each fixture grown by repeating
    everything after its first line (the session's header) to each size."""
    from ctxviz.live.reread import RereadSession
    from ctxviz.transcripts.protocol import ref_for
    from ctxviz.transcripts.registry import reader_named

    found = []
    for agent, source in REREAD:
        first, _, body = source.read_bytes().partition(b"\n")
        for megabytes in REREAD_MB:
            data = first + b"\n" + body * ((megabytes << 20) // len(body) + 1)
            file = folder / f"{agent}-{megabytes}.jsonl"
            file.write_bytes(data)
            session = RereadSession(reader_named(agent), ref_for(agent, file))
            reads = []
            for _ in range(5):
                session.stamps, session.rest_until = (), 0.0
                start = time.perf_counter()
                session.poll()
                reads.append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(1000):
                session.poll()
            idle = (time.perf_counter() - start) / 1000
            found.append((agent, len(data) / 1e6, statistics.median(reads), idle))
    return found


async def _reread_watch_delays(folder: Path, megabytes: int = 3) -> list[float]:
    """Line written → step on screen for a Codex session of ``megabytes`` (read again at each change):
    the fixture's body repeated to that size, then appended again a few lines at a time."""
    source = OTHERS / "codex/agent-sessions_stage0_small.jsonl"
    first, _, body = source.read_bytes().partition(b"\n")
    file = folder / "rollout-watch.jsonl"
    file.write_bytes(first + b"\n" + body * ((megabytes << 20) // len(body)))
    watch = Watch(file)
    seen = watch.poll()
    assert seen is not None and seen.timeline is not None
    app = WatchApp(watch, seen.timeline)
    lines = body.splitlines(keepends=True)
    delays = []
    async with app.run_test(size=(120, 36)) as pilot:
        for start in range(0, len(lines), 12):
            screen = app.screen
            assert isinstance(screen, TimelineScreen)
            before = len(screen.timeline.steps)
            with file.open("ab") as out:
                out.write(b"".join(lines[start : start + 12]))
            written = time.monotonic()
            while time.monotonic() - written < 3:
                screen = app.screen
                if isinstance(screen, TimelineScreen) and len(screen.timeline.steps) > before and screen.is_mounted:
                    await pilot.pause()  # the frame that draws it
                    delays.append(time.monotonic() - written)
                    break
                await pilot.pause(0.002)
            await asyncio.sleep(0.3)  # the next write lands after any rest
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        delays = asyncio.run(_watch_delays(runs, folder))
        print(f"watch: line written → step on screen, {len(delays)} calls: median {statistics.median(delays):.3f} s, "
              f"max {max(delays):.3f} s (poll every {POLL_SECONDS} s)")  # fmt: skip
        print(f"poll with nothing new (one stat): {_poll_cost(folder) * 1e6:.1f} µs")
        print(f"timer + stat, idle {IDLE_SECONDS:.0f} s: {_idle_timer_cpu(folder) * 1000:.1f} ms CPU")
        other = asyncio.run(_reread_watch_delays(folder))
        print(f"watch, Codex session of 3 MB: line written → step on screen, {len(other)} calls: median "
              f"{statistics.median(other):.3f} s, max {max(other):.3f} s")  # fmt: skip
        for agent, megabytes, read, idle in _reread_costs(folder):
            print(f"{agent} {megabytes:.1f} MB: read again {read * 1000:.0f} ms (median of 5), "
                  f"poll with nothing new {idle * 1e6:.0f} µs")  # fmt: skip
        found = _watchfiles(folder)
        if found is None:
            print("watchfiles not installed: not compared")
        else:
            wf_delays, idle = found
            print(f"watchfiles (inotify): write → event median {statistics.median(wf_delays):.3f} s, "
                  f"max {max(wf_delays):.3f} s; idle {IDLE_SECONDS:.0f} s: {idle * 1000:.1f} ms CPU")  # fmt: skip


if __name__ == "__main__":
    main()
