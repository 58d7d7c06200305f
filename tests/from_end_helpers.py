"""Helpers for the tests of what is read from a session's end: a generated Claude Code session, the byte its
last compaction's read starts at, and the text a first screen and the timeline screen that replaces it show."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.app import App
from textual.content import Content
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from benchmarks.big_session import _claude_lines
from ctxviz.live.watch_app import LiveTimelineScreen


def generated_session(folder: Path, calls: int = 25, every: int = 10) -> Path:
    """A Claude Code session of ``calls`` calls, compacting every ``every``."""
    path = folder / "b16b16b1-0000-4000-8000-000000000000.jsonl"
    path.write_text("\n".join(_claude_lines(calls, every, 100)) + "\n")  # type: ignore[arg-type]
    return path


def last_boundary(path: Path) -> int:
    """The byte of the line holding the last compaction boundary."""
    data = path.read_bytes()
    return data.rfind(b"\n", 0, data.rfind(b'"compact_boundary"')) + 1


def screen_text(widget: Widget) -> str:
    """What ``widget`` shows, as plain text."""
    shown = widget.content if isinstance(widget, Static) else widget.render()
    if isinstance(shown, Content):
        return shown.plain
    console = Console(width=widget.size.width, color_system=None, file=io.StringIO())
    with console.capture() as captured:
        console.print(shown)
    return captured.get()


def words(text: str) -> str:
    """Each line's words (a longer line elsewhere in a table widens its columns, not its figures)."""
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def shown(screen: Any) -> dict[str, object]:
    """The figures a window screen shows: header, bar, and the legend's entries in the window now (the
    timeline screen keeps a place for every part it ever had)."""
    figures: dict[str, object] = {
        name: screen_text(screen.query_one(name)) for name in ("#header-usage", "#header-model", "#bar")
    }
    entries = {" ".join(entry.split()) for entry in re.split("██|░░", screen_text(screen.query_one("#legend")))}
    figures["#legend"] = {entry for entry in entries if entry and not entry.endswith(" 0 0.0%")}
    return figures


async def until_live_timeline(app: App[Any], pilot: Pilot[Any]) -> None:
    """Wait (10 s at most) for watch's timeline screen to replace its first screen and be ready."""
    for _ in range(200):
        if isinstance(app.screen, LiveTimelineScreen) and app.screen.ready:
            return
        await pilot.pause(0.05)
