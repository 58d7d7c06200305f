"""TUI speed: first paint, and key press → screen updated, for timelines of growing length.

Run: ``python benchmarks/tui.py``. Prints figures; not a test. Targets (issue 3): first paint ≤ 1 s
and a key press ≤ 20 ms with 10,000 steps, not growing with the step count.

A key is timed through Pilot: ``press`` returns once the key is handled and ``pause`` once the
queued refreshes have been rendered (the headless driver composes the screen like a real one and
only discards the bytes). Pilot itself waits for the process to go idle, which costs tens of ms of
sleeping whatever the app does, so each figure is reported next to the same wait for a key that is
bound to nothing ("no-op"); the difference is what the app spends. The CPU column is process time,
which the idle-waiting barely touches.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from tui_timelines import long_timeline  # noqa: E402

from ctxviz.tui.app import CtxvizApp  # noqa: E402
from ctxviz.tui.screens.timeline_screen import TimelineScreen  # noqa: E402

SIZE = (120, 36)
PRESSES = 40
KEYS = {"no-op": ("x", "x"), "→/←": ("right", "left"), "n/p": ("n", "p"), "end/home": ("end", "home")}


async def measure(steps: int) -> tuple[float, dict[str, tuple[float, float]]]:
    timeline = long_timeline(steps)
    started = time.perf_counter()
    app = CtxvizApp(timeline)
    figures: dict[str, tuple[float, float]] = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first_paint = time.perf_counter() - started
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        for label, keys in KEYS.items():
            # from the middle, so ←/→ never sit at an end and n/p cross compactions
            screen.index = steps // 2
            await pilot.pause()
            walls, cpus = [], []
            for n in range(PRESSES):
                wall, cpu = time.perf_counter(), time.process_time()
                await pilot.press(keys[n % 2])
                await pilot.pause()
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            figures[label] = (statistics.median(walls) * 1000, statistics.median(cpus) * 1000)
    return first_paint, figures


def main() -> None:
    print(
        f"terminal {SIZE[0]}×{SIZE[1]}; median of {PRESSES} presses, ms: Pilot wall (minus no-op) / CPU (minus no-op)"
    )
    for steps in (100, 1_000, 10_000, 100_000):
        first_paint, figures = asyncio.run(measure(steps))
        wall0, cpu0 = figures.pop("no-op")
        keys = "   ".join(f"{k} {w - wall0:5.1f} / {c - cpu0:5.1f}" for k, (w, c) in figures.items())
        print(f"{steps:>8,} steps  first paint {first_paint * 1000:5.0f}  no-op {wall0:5.1f} / {cpu0:4.1f}   {keys}")


if __name__ == "__main__":
    main()
