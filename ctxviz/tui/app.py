"""The ctxviz TUI: one Textual app that plays any Timeline (a scenario's or a real transcript's)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from ctxviz.timeline import Timeline
from ctxviz.tui.commands import ActionsProvider
from ctxviz.tui.palette import theme_defaults
from ctxviz.tui.screens.first_screen import READING, FirstScreen
from ctxviz.tui.screens.glossary_screen import GlossaryScreen
from ctxviz.tui.screens.help_screen import HelpScreen
from ctxviz.tui.screens.open_screen import OpenScreen
from ctxviz.tui.screens.timeline_screen import TimelineScreen
from ctxviz.tui.segments import SegmentTotals
from ctxviz.tui.widgets.context_header import display_title

if TYPE_CHECKING:
    from ctxviz.transcripts.protocol import SessionRef

DARK, LIGHT = "textual-dark", "textual-light"


class CtxvizApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")
    COMMANDS = App.COMMANDS | {ActionsProvider}
    BINDINGS = [
        # in the footer's order, before the screen's keys: at 80 columns it has room for only some
        Binding("q", "quit", "Quit"),
        Binding("o", "open", "Open", tooltip="Open a built-in scenario or one of your recent sessions"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("g", "glossary", "Glossary", tooltip="What every colour, line, glyph and word means"),
        Binding("c", "compare", "Compare agents", show=False, tooltip="This scenario under every agent, side by side"),
        Binding("c", "cannot_compare", show=False),  # when compare cannot run here: says why
        Binding("t", "toggle_theme", "Dark/light", show=False),
    ]

    def __init__(
        self, timeline: Timeline, *, theme: str = DARK, read_whole: Callable[[], Timeline] | None = None
    ) -> None:
        """``read_whole``: ``timeline`` is a big session's last call alone, read from its end, shown first
        while this reads the whole session in a thread (``FirstScreen``)."""
        super().__init__()
        self.timeline = timeline
        self.theme = theme
        self.title = f"ctxviz · {display_title(timeline)}"
        self._audits: dict[Timeline, Callable[[], Screen[None]]] = {}
        self._read_whole = read_whole
        self.failure: str | None = None  # why the whole read failed: said when the app has ended

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "compare":
            from ctxviz.tui.compare_actions import comparable

            return comparable(self.screen) is not None
        return True

    def action_cannot_compare(self) -> None:
        from ctxviz.tui.compare_actions import why_not_comparable

        self.notify(why_not_comparable(self.screen), timeout=4)

    def action_compare(self) -> None:
        from ctxviz.tui.compare_actions import open_compare

        open_compare(self)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_defaults()

    def get_default_screen(self) -> Screen[None]:
        if self._read_whole is not None:
            return Screen()  # a blank base: the first screen is pushed on it, then switched for the timeline's
        return TimelineScreen(self.timeline)

    def on_mount(self) -> None:
        if self._read_whole is not None:
            title = f"{display_title(self.timeline)} · {READING}"
            read = partial(self._read_history, self.timeline, self._read_whole)
            self.push_screen(FirstScreen(self.timeline, title, lambda: None, read))

    @work(thread=True, group="history")
    def _read_history(self, first: Timeline, read_whole: Callable[[], Timeline]) -> None:
        from ctxviz.errors import InputError

        try:
            timeline = read_whole()
        except InputError as error:
            self.failure = error.message
            self.call_from_thread(self.exit, return_code=1)
            return
        self.call_from_thread(self._history_read, first, timeline, SegmentTotals(timeline))

    def _history_read(self, first: Timeline, timeline: Timeline, totals: SegmentTotals) -> None:
        """The whole session's screen, on its last step (the one shown first), in place of the first screen;
        not when the person opened something else meanwhile."""
        if self.timeline is not first:
            return
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.timeline = timeline
        self.title = f"ctxviz · {display_title(timeline)}"
        screen = TimelineScreen(timeline, totals=totals)
        screen.set_reactive(TimelineScreen.index, timeline.last)  # before mount: no watchers yet
        self.switch_screen(screen)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_glossary(self) -> None:
        if isinstance(self.screen, GlossaryScreen):
            return
        # a subagent's screen explains its own numbers (its window and lines may differ)
        timeline = getattr(self.screen, "timeline", self.timeline)
        self.push_screen(GlossaryScreen(timeline))

    def action_open(self) -> None:
        if not isinstance(self.screen, OpenScreen):
            self.push_screen(OpenScreen(), self._open_chosen)

    def _open_chosen(self, target: Path | SessionRef | None) -> None:
        if target is not None:
            self.notify(f"Opening {target.name if isinstance(target, Path) else target.session}…", timeout=2)
            self._load(target)

    @work(thread=True, exclusive=True, group="open")
    def _load(self, target: Path | SessionRef) -> None:
        """Simulating a scenario or reading a transcript can take a moment: off the UI thread. A session
        found on disk is read by its own reader (one of a database's sessions, not the database's latest)."""
        from ctxviz.errors import InputError
        from ctxviz.sources import open_timeline
        from ctxviz.transcripts.registry import read_target

        try:
            timeline = open_timeline(target) if isinstance(target, Path) else read_target(target).timeline
        except InputError as error:
            self.call_from_thread(self.notify, error.message, title="Cannot open", severity="error", timeout=10)
            return
        self.call_from_thread(self.show_timeline, timeline)

    def show_timeline(self, timeline: Timeline) -> None:
        """Play ``timeline`` instead of what is playing (and any subagent screens over it). The first
        screen stays at the bottom of the stack (the stack is never empty) under the one opened last."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
        if isinstance(self.screen, TimelineScreen):
            self.screen.playing = False  # it stays underneath: its playback must not run on unseen
        self.timeline = timeline
        self.title = f"ctxviz · {display_title(timeline)}"
        self.push_screen(TimelineScreen(timeline))

    def open_audit(self, timeline: Timeline) -> None:
        """The audit screen of ``timeline``, made once (off the UI thread: its findings replay the session)."""
        if timeline in self._audits:
            self.push_screen(self._audits[timeline]())
            return
        self.notify("Auditing: replaying the session under each what-if…", timeout=3)
        self._audit(timeline)

    @work(thread=True, exclusive=True, group="audit")
    def _audit(self, timeline: Timeline) -> None:
        from ctxviz.audit_source import audit_of
        from ctxviz.errors import InputError
        from ctxviz.report.prices import PRICES
        from ctxviz.tui.screens.audit_screen import AuditScreen

        try:
            audited = audit_of(timeline)
        except InputError as error:
            self.call_from_thread(self.notify, error.message, title="Cannot audit", severity="error", timeout=10)
            return
        document = audited.document(PRICES)

        def screen() -> AuditScreen:
            return AuditScreen(document, audited.findings, audited.comparison, is_child=True)

        self._audits[timeline] = screen
        self.call_from_thread(self.push_screen, screen())

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.theme == DARK else DARK


def run_app(timeline: Timeline) -> None:
    CtxvizApp(timeline).run()


def run_from_end(first: Timeline, read_whole: Callable[[], Timeline]) -> None:
    """A big session's last call first, then its whole timeline (see ``CtxvizApp``). Raises ``InputError``
    when ``read_whole`` finds the session unreadable."""
    app = CtxvizApp(first, read_whole=read_whole)
    app.run()
    if app.failure is not None:
        from ctxviz.errors import InputError

        raise InputError(app.failure)
