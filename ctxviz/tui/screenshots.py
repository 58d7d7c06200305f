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
from ctxviz.tui.svg_fonts import with_symbol_font

SIZE = (120, 36)
Scene = Callable[[Pilot[None], TimelineScreen], Awaitable[None]]


async def _mid_session(pilot: Pilot[None], screen: TimelineScreen) -> None:
    screen.index = _first(
        screen.timeline, lambda s: bool(s.notes) and s.kind == StepKind.READ, screen.timeline.last // 2
    )


async def _compaction(pilot: Pilot[None], screen: TimelineScreen) -> None:
    await pilot.press("n")


async def _context(pilot: Pilot[None], screen: TimelineScreen) -> None:
    screen.index = _fullest(screen.timeline)
    await pilot.press("2")


async def _window(pilot: Pilot[None], screen: TimelineScreen) -> None:
    screen.index = _fullest(screen.timeline)
    await pilot.press("3")


async def _subagent(pilot: Pilot[None], screen: TimelineScreen) -> None:
    screen.index = _first(screen.timeline, lambda s: s.child is not None, 0)
    await pilot.press("enter", "end")


async def _help(pilot: Pilot[None], screen: TimelineScreen) -> None:
    await pilot.press("question_mark")


async def _glossary(pilot: Pilot[None], screen: TimelineScreen) -> None:
    await pilot.press("g")


def _always(timeline: Timeline) -> bool:
    return True


def _compacts(timeline: Timeline) -> bool:
    return bool(timeline.compaction_indices())


def _has_subagent(timeline: Timeline) -> bool:
    return any(step.child is not None for step in timeline.steps)


# each file is named after what it shows, and written only when the timeline has that to show
SCENES: dict[str, tuple[Scene, Callable[[Timeline], bool]]] = {
    "main": (_mid_session, _always),
    "compaction": (_compaction, _compacts),
    "context": (_context, _always),
    "window": (_window, _always),
    "subagent": (_subagent, _has_subagent),
    "help": (_help, _always),
    "glossary": (_glossary, _always),
}


def _first(timeline: Timeline, test: Callable[..., bool], default: int) -> int:
    return next((step.index for step in timeline.steps if test(step)), default)


def _fullest(timeline: Timeline) -> int:
    """The step just before the first compaction, else the peak: where the window holds the most."""
    compactions = timeline.compaction_indices()
    if compactions:
        return max(0, compactions[0] - 1)
    return max(range(len(timeline.steps)), key=timeline.used_at, default=0)


def scenes_for(timeline: Timeline) -> tuple[list[str], list[str]]:
    """The scenes this timeline can show, and those it cannot (no compaction, no subagent)."""
    shown = [name for name, (_, applies) in SCENES.items() if applies(timeline)]
    return shown, [name for name in SCENES if name not in shown]


async def take_screenshots(timeline: Timeline, out_dir: Path) -> list[Path]:
    """One SVG per scene in ``out_dir`` (created if needed); returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in scenes_for(timeline)[0]:
        scene = SCENES[name][0]
        app = CtxvizApp(timeline, theme=DARK)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, TimelineScreen)
            await scene(pilot, screen)
            await pilot.pause()
            path = out_dir / f"{name}.svg"
            path.write_text(with_symbol_font(app.export_screenshot(title=f"ctxviz · {name}")), encoding="utf-8")
            written.append(path)
    return written
