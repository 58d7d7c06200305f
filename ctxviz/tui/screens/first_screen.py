"""The first screen of a big session (``ctxviz watch``, ``ctxviz play``): its last call's window read from
the file's end (``Reader.window_from_end``) — the header's figures, the token bar and legend, the
``/context`` breakdown — while the whole file is read in a thread, with how far that read is when the
reader tells. The timeline screen replaces it once the read is done. Only what the whole read gives at
the same call is shown: the call's number in the session, and everything before the last compaction,
are not known yet."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, Static

from ctxviz.timeline import Timeline
from ctxviz.tui.renderables.bar import FREE_KEY, RESERVE_KEY
from ctxviz.tui.segments import SegmentTotals
from ctxviz.tui.widgets.context_header import ContextHeader
from ctxviz.tui.widgets.context_view import ContextView
from ctxviz.tui.widgets.legend import LegendWidget
from ctxviz.tui.widgets.token_bar import TokenBarWidget, markers_of, slices_at

PROGRESS_SECONDS = 0.25
READING = "reading history…"
AT_THE_LAST_CALL = "at the last call (the calls before its last compaction are being read)"


def progress_text(progress: tuple[int, int] | None) -> str:
    if progress is None or progress[1] <= 0:
        return READING
    done, size = progress
    return f"{READING} {min(100, 100 * done // size)}% ({done / 1e6:,.0f} of {size / 1e6:,.0f} MB)"


class FirstScreen(Screen[None]):
    """``timeline``: the session's last call alone (its one step); ``progress``: the whole read's bytes
    read and the file's size, or None when the reader does not tell; ``shown``: see ``__init__``."""

    DEFAULT_CSS = """
    FirstScreen #history { height: 1; margin: 0 1; color: $text-muted; text-style: italic; }
    FirstScreen #context { height: 1fr; }
    FirstScreen #header-step { display: none; }  /* the call's number in the session: not read yet */
    """

    def __init__(
        self,
        timeline: Timeline,
        title: str,
        progress: Callable[[], tuple[int, int] | None],
        shown: Callable[[], object],
    ) -> None:
        """``shown``: called once this screen is drawn (the read of the whole file, which holds the
        processor, starts then)."""
        super().__init__()
        self.timeline = timeline
        self._shown = shown
        self.title = title
        self._progress = progress
        self._totals = SegmentTotals(timeline)

    def compose(self) -> ComposeResult:
        timeline = self.timeline
        yield ContextHeader(timeline, self.title or "", id="header")
        with Vertical(id="body"):
            yield TokenBarWidget(id="bar")
            yield LegendWidget(id="legend")
            yield Static(progress_text(self._progress()), id="history")
            yield ContextView(timeline, self._totals, id="context", at=AT_THE_LAST_CALL)

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._show, init=False)
        self._show()
        self.set_interval(PROGRESS_SECONDS, self._show_progress)
        self.call_after_refresh(self._shown)

    def _show(self) -> None:
        timeline, index = self.timeline, self.timeline.last
        self.query_one(ContextHeader).show(index)
        self.query_one("#header-step", Label).update("")  # the call's number in the session: not read yet
        slices = slices_at(self, timeline, self._totals, index)
        self.query_one(TokenBarWidget).show(slices, timeline.window, markers_of(timeline))
        shown = [s for s in slices if s.tokens or s.key in (FREE_KEY, RESERVE_KEY)]  # the parts in the window now
        self.query_one(LegendWidget).show(shown, timeline.window, max_lines=4)
        self.query_one(ContextView).show(index)

    def _show_progress(self) -> None:
        self.query_one("#history", Static).update(progress_text(self._progress()))

    def show_title(self, title: str) -> None:
        self.query_one("#header-name", Label).update(title)
