"""SVG screenshots of the main views, taken by driving the app itself headless (as a person would,
with keys), at a fixed size and theme so the files only change when the app does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from ctxviz.kinds import StepKind
from ctxviz.timeline import Timeline
from ctxviz.tui.app import DARK, CtxvizApp
from ctxviz.tui.screens.timeline_screen import TimelineScreen

SIZE = (120, 36)
Scene = Callable[[Pilot[None], TimelineScreen], Awaitable[None]]


async def _mid_session(pilot: Pilot[None], screen: TimelineScreen) -> None:
    screen.index = _first(
        screen.timeline, lambda s: bool(s.notes) and s.kind == StepKind.READ, screen.timeline.last // 2
    )


async def _compaction(pilot: Pilot[None], screen: TimelineScreen) -> None:
    await pilot.press("n")


async def _context(pilot: Pilot[None], screen: TimelineScreen) -> None:
    await pilot.press("n", "left", "2")


async def _window(pilot: Pilot[None], screen: TimelineScreen) -> None:
    await pilot.press("n", "left", "3")


async def _subagent(pilot: Pilot[None], screen: TimelineScreen) -> None:
    screen.index = _first(screen.timeline, lambda s: s.child is not None, 0)
    await pilot.press("enter", "end")


async def _help(pilot: Pilot[None], screen: TimelineScreen) -> None:
    await pilot.press("question_mark")


async def _glossary(pilot: Pilot[None], screen: TimelineScreen) -> None:
    await pilot.press("g")


SCENES: dict[str, Scene] = {
    "main": _mid_session,
    "compaction": _compaction,
    "context": _context,
    "window": _window,
    "subagent": _subagent,
    "help": _help,
    "glossary": _glossary,
}


def _first(timeline: Timeline, test: Callable[..., bool], default: int) -> int:
    return next((step.index for step in timeline.steps if test(step)), default)


async def take_screenshots(timeline: Timeline, out_dir: Path) -> list[Path]:
    """One SVG per scene in ``out_dir`` (created if needed); returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, scene in SCENES.items():
        app = CtxvizApp(timeline, theme=DARK)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, TimelineScreen)
            await scene(pilot, screen)
            await pilot.pause()
            path = out_dir / f"{name}.svg"
            path.write_text(app.export_screenshot(title=f"ctxviz · {name}"), encoding="utf-8")
            written.append(path)
    return written
