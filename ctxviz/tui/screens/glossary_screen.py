"""The glossary: every colour of the bar, every line, glyph and word the views use, one sentence each,
with this timeline's own numbers where there are some. The words come from ``ctxviz.glossary``."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ctxviz import glossary
from ctxviz.layout import FREE, FULL, PARTIAL, RESERVE
from ctxviz.profiles import teaching_of
from ctxviz.timeline import Timeline
from ctxviz.tui.icons import STEP_ICONS, YOU_SEE
from ctxviz.tui.palette import color
from ctxviz.tui.renderables.bar import FREE_KEY, RESERVE_KEY
from ctxviz.tui.segments import SEGMENTS


class GlossaryScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,g,q", "dismiss", "Close", show=False),
        Binding("pagedown", "page(1)", "Scroll down", show=False),
        Binding("pageup", "page(-1)", "Scroll up", show=False),
    ]

    def __init__(self, timeline: Timeline) -> None:
        super().__init__()
        self._timeline = timeline
        self._own_words = teaching_of(timeline.agent).words  # the jargon in this agent's meaning

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="glossary"):
            yield Static(self.body(), id="glossary-body")

    def on_mount(self) -> None:
        self.query_one("#glossary").border_title = "What it all means (escape to close, ↑↓ PgUp PgDn to scroll)"
        self.query_one("#glossary").focus()

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#glossary", VerticalScroll)
        if direction > 0:
            scroll.scroll_page_down(animate=False)
        else:
            scroll.scroll_page_up(animate=False)

    def body(self) -> RenderableType:
        return Group(
            _section("The bar and its legend (the colours)", self._colours()),
            _section("The lines", self._lines()),
            _section("Step glyphs", self._steps()),
            _section("Other glyphs", self._glyphs()),
            _section("What a compaction does with each piece", _pairs(glossary.FATES.items())),
            _section(
                "Words", _pairs((e.term, e.meaning) for e in glossary.words(teaching_of(self._timeline.agent).words))
            ),
        )

    def _colours(self) -> Table:
        table = _table()
        buffer_label = self._timeline.thresholds.buffer_label
        rows = [(s.key, s.label) for s in SEGMENTS] + [(FREE_KEY, "Free space"), (RESERVE_KEY, buffer_label)]
        for key, label in rows:
            swatch = "░░" if key == RESERVE_KEY else "██"
            variable = {FREE_KEY: "panel-lighten-2", RESERVE_KEY: "foreground-darken-3"}.get(key, f"seg-{key}")
            meaning = glossary.segment_meaning(key)
            if key == RESERVE_KEY:
                meaning += f" Here: {self._timeline.thresholds.buffer:,} tokens."
            table.add_row(Text.assemble((swatch, color(self.app, variable)), " ", (label, "bold")), meaning)
        return table

    def _lines(self) -> Table:
        limits = self._timeline.thresholds
        table = _table()
        table.add_row(Text(f"warning {limits.warning:,}", style="bold"), glossary.THRESHOLDS["warning"])
        if limits.autocompact is not None:
            table.add_row(
                Text(f"auto-compact {limits.autocompact:,}", style="bold"), glossary.THRESHOLDS["auto-compact"]
            )
        else:
            table.add_row(Text(f"blocking {limits.blocking:,}", style="bold"), glossary.THRESHOLDS["blocking"])
        table.add_row(Text(f"{limits.buffer_label} {limits.buffer:,}", style="bold"), glossary.THRESHOLDS["buffer"])
        table.add_row(
            Text("┃ ▲  ╌", style="bold"), "Where these lines are, on the bar (┃ with ▲ under it) and on the chart (╌)."
        )
        return table

    def _steps(self) -> Table:
        table = _table()
        for kind, glyph in STEP_ICONS.items():
            table.add_row(Text(f"{glyph} {kind}", style="bold"), glossary.step_meaning(kind))
        return table

    def _glyphs(self) -> Table:
        table = _table()
        table.add_row(
            Text(f"{FULL} {PARTIAL}", style="bold"), "/context grid: a square (1% of the window) used, partly used."
        )
        table.add_row(Text(f"{FREE} {RESERVE}", style="bold"), "/context grid: a free square, a square of the reserve.")
        table.add_row(Text("▼", style="bold"), "Usage chart: a compaction happened at this step.")
        table.add_row(
            Text("highlighted", style="bold"), "The current step: its row in the list, its column in the chart."
        )
        for seen, words in YOU_SEE.items():
            table.add_row(Text(f"you see: {words}", style="bold"), _SEEN[seen])
        return table


_SEEN = {
    "hidden": "Your terminal shows nothing of this block, but the model reads it all.",
    "brief": "Your terminal shows a one-line notice (“Read src/app.ts”); the model reads the whole content.",
    "full": "You see the whole text in your terminal, as the model does.",
}


def _table() -> Table:
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    table.add_column("term", no_wrap=True, max_width=28)
    table.add_column("meaning", ratio=1, overflow="fold")
    return table


def _pairs(pairs: Iterable[tuple[str, str]]) -> Table:
    table = _table()
    for term, meaning in pairs:
        table.add_row(Text(term, style="bold"), meaning)
    return table


def _section(title: str, body: RenderableType) -> Group:
    return Group(Text(f"\n{title}", style="bold underline"), body)
