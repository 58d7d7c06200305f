"""The top line: what is playing, where, and how full the window is (coloured by level)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from ctxviz.layout import humanize, percent
from ctxviz.timeline import Timeline

_LEVELS = ("ok", "warning", "over")
STEP_CELL = 13  # the width of #header-step in app.tcss: a longer text wraps out of its one line


def step_counter(index: int, last: int) -> str:
    """``step N/M`` while it fits the cell; then the bare numbers (exact up to 999,999 steps); then
    both shortened to k/M."""
    for text in (f"step {index}/{last}", f"{index}/{last}"):
        if len(text) <= STEP_CELL:
            return text
    return f"{humanize(index)}/{humanize(last)}"


def display_title(timeline: Timeline) -> str:
    """A scenario's name; for a transcript, its project folder and a short session id rather than the
    raw 36-character id."""
    source = timeline.source
    if source.kind != "transcript":
        return source.name
    project = (source.summary or "").rstrip("/").rsplit("/", 1)[-1]
    session = f"session {source.name[:8]}"
    return f"{project} · {session}" if project else session


class ContextHeader(Horizontal):
    def __init__(self, timeline: Timeline, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timeline = timeline
        self._title = title

    def compose(self) -> ComposeResult:
        timeline = self._timeline
        yield Label(self._title, id="header-name")
        yield Label(timeline.model, id="header-model")
        yield Label(id="header-step")
        yield Label(id="header-usage")

    def show(self, index: int) -> None:
        timeline = self._timeline
        used = timeline.used_at(index)
        measured = "measured" if timeline.steps[index].measured else "estimated"
        usage = self.query_one("#header-usage", Label)
        share = f"{percent(used, timeline.window):.1f}%"
        if self.has_class("-compact"):  # a narrow terminal: the same figures, fewer separators
            text = f"{used:,}/{humanize(timeline.window)} {share} {measured}"
        else:
            text = f"{used:,} / {humanize(timeline.window)} · {share} · {measured}"
        # fixed widths in app.tcss, so new figures repaint the labels without a layout pass
        usage.update(text, layout=False)
        self.query_one("#header-step", Label).update(step_counter(index, timeline.last), layout=False)
        level = timeline.level_at(index)
        for name in _LEVELS:  # set_class is a no-op when nothing changes, so no restyle per step
            usage.set_class(name == level, f"-{name}")
