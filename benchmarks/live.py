"""Following a live session: how soon ``ctxviz watch`` shows a written line, what a poll costs, and
(if watchfiles is installed) how a file-system watcher compares with the timer-and-stat ctxviz uses.

The session is the 3 MB spotter transcript from tests/fixtures, written into a temporary file in
parts while the app runs headless (Textual's Pilot). The statusline's own speed is measured from the
outside with farm-bench (see the README's "Live" section for the command).

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
        found = _watchfiles(folder)
        if found is None:
            print("watchfiles not installed: not compared")
        else:
            wf_delays, idle = found
            print(f"watchfiles (inotify): write → event median {statistics.median(wf_delays):.3f} s, "
                  f"max {max(wf_delays):.3f} s; idle {IDLE_SECONDS:.0f} s: {idle * 1000:.1f} ms CPU")  # fmt: skip


if __name__ == "__main__":
    main()
