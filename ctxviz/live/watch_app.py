"""``ctxviz watch`` in the TUI: the usual timeline screen, replaced by a fresh one whenever the followed
session grows. The view stays on the newest step unless the person has stepped back; then the header
counts the new steps until End brings them back to following. The header has room for little at 80
columns, so it holds only the state (live, new steps, file gone); what happened (a switch to a newer
session, a file read again) is told in a notification."""

from __future__ import annotations

import re
from contextlib import suppress
from functools import partial

from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Label

from ctxviz.layout import humanize
from ctxviz.live.watch import Seen, Watch
from ctxviz.report.audit import carried_cost
from ctxviz.timeline import Timeline
from ctxviz.tui.app import DARK, CtxvizApp
from ctxviz.tui.screens.first_screen import READING, FirstScreen
from ctxviz.tui.screens.timeline_screen import SPEEDS, TimelineScreen
from ctxviz.tui.segments import SegmentTotals
from ctxviz.tui.widgets.timeline_view import TimelineView

_SESSION_ID = re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")  # its first 8 characters say enough
NAME_CHARS = 16  # a longer session name (a dated file name) is shown by its end, where its id is
NOTICE_SECONDS = 6
LOOK_SECONDS = 2.0  # between two looks (in a thread) for a newer session, when following the newest
POLL_SECONDS = 0.1  # one stat (~10 µs) per poll; the redraw, not the poll, is most of the delay (benchmarks/live.py)


class LiveTimelineScreen(TimelineScreen):
    """The timeline screen of a followed session: "paused" would misread a live view, so the list's
    title says it is live until Space replays the steps."""

    ready = False  # mounted and drawn once: only then may the app replace it with a newer picture

    def on_mount(self) -> None:  # Textual runs TimelineScreen's own on_mount too
        self.call_after_refresh(setattr, self, "ready", True)

    def _show_playback(self) -> None:
        if self.playing:
            super()._show_playback()
        else:
            self.query_one(TimelineView).border_title = f"● live · Space replays ({SPEEDS[self.speed]:g} steps/s)"


class WatchApp(CtxvizApp):
    """``from_end``: ``timeline`` is the session's last call alone, read from its end; the first poll reads
    the whole file (in a thread, as every poll), and the timeline screen comes when it is done."""

    def __init__(
        self, watch: Watch, timeline: Timeline, *, status: str = "", theme: str = DARK, from_end: bool = False
    ) -> None:
        super().__init__(timeline, theme=theme)
        self.watch_source = watch
        self.reading_history = from_end
        self.status = status  # the last thing that happened, told in a notification
        self.unseen = 0  # steps that arrived while the person looked at an earlier one
        self.newest_screen: LiveTimelineScreen | None = None  # the last one switched to (maybe not yet shown)
        self.reading = False  # a poll's read is under way in a thread
        # the last timeline read, with what its screen sums over every step: its header's "sent" figures and
        # its segments' totals (worked out in the poll's thread)
        self.prepared: tuple[Timeline, str, SegmentTotals] | None = None

    def get_default_screen(self) -> Screen[None]:
        # a blank base: the followed timeline's screen is pushed on it, so that it can be switched
        return Screen()

    def on_mount(self) -> None:
        polls = partial(self.set_interval, POLL_SECONDS, self._poll_in_background)
        if self.reading_history:  # the first poll reads the whole file: once the first screen is drawn
            title = self._title(self.timeline)
            self.push_screen(FirstScreen(self.timeline, title, self.watch_source.progress, polls))
        else:
            screen = LiveTimelineScreen(self.timeline, self._title(self.timeline))
            screen.set_reactive(TimelineScreen.index, self.timeline.last)  # before mount: no watchers yet
            self.push_screen(screen)
            polls()
        if self.watch_source.newest:
            self.watch_source.looks_in_background = True
            self.set_interval(LOOK_SECONDS, self._look)
        if self.status:
            self.notify(self.status, timeout=NOTICE_SECONDS)

    def _title(self, timeline: Timeline) -> str:
        name = timeline.source.name
        if (found := _SESSION_ID.search(name)) is not None:
            name = found.group()[:8]
        elif len(name) > NAME_CHARS:
            name = "…" + name[-(NAME_CHARS - 1) :]
        if self.reading_history:
            return f"{name} · {READING}"  # what the calls sent counts from the session's start: not read yet
        if self.unseen:
            state = f"+{self.unseen} (End)"  # 21 columns at 80: the notification says what it means
        elif self.watch_source.session is not None and self.watch_source.session.gone:
            state = "file gone"
        else:
            state = "live"
        prepared = self.prepared
        sent = prepared[1] if prepared is not None and prepared[0] is timeline else _carried(timeline)
        return f"{name} · {state}{sent}"

    def _screen_of(self, timeline: Timeline) -> LiveTimelineScreen:
        prepared = self.prepared
        totals = prepared[2] if prepared is not None and prepared[0] is timeline else None
        return LiveTimelineScreen(timeline, self._title(timeline), totals=totals)

    async def action_quit(self) -> None:
        """Quit, but not in the moment a newer picture is being mounted: tearing the screen down before
        its own mount handler has run fails inside that handler."""
        if self.newest_screen is not None and not self.newest_screen.ready:
            self.call_after_refresh(self.action_quit)
            return
        self.exit()

    def _look(self) -> None:
        self.run_worker(self.watch_source.look, thread=True, group="look", exclusive=True)

    def _screen(self) -> TimelineScreen | None:
        """The followed timeline's screen, when it is the one showing (not help, not a subagent) and
        ready: one switched to a moment ago and not mounted yet is not replaced under its feet (its
        successor waits in ``self.timeline`` for the next poll)."""
        screen = self.screen
        if isinstance(screen, LiveTimelineScreen) and screen.ready:
            return screen
        return None

    def _poll_in_background(self) -> None:
        """A poll whose read runs in a thread: reading a large or slow file (another agent's session is
        read whole on each change) never freezes the screen, and ``q`` quits meanwhile. One at a time."""
        if self.reading:
            return
        self.reading = True
        self.run_worker(self._read, thread=True, group="poll")

    def _read(self) -> None:  # in a thread
        try:
            seen = self.watch_source.poll()
            if seen is not None and seen.timeline is not None:  # summed over every step: not on the screen's thread
                self.prepared = seen.timeline, _carried(seen.timeline), SegmentTotals(seen.timeline)
            with suppress(RuntimeError):  # the app ended during the read
                self.call_from_thread(self.show, seen)
        finally:
            self.reading = False

    def poll(self) -> None:
        """Read and show, here and now (tests; the app itself reads in a thread)."""
        self.show(self.watch_source.poll())

    def show(self, seen: Seen | None) -> None:
        if self.reading_history:
            self._first_read(seen)
            return
        screen = self._screen()
        if seen is None:
            if screen is not None and screen.timeline is not self.timeline:
                self._replace(screen, self.timeline, follow=False)  # arrived while help was open
            elif screen is not None and self.unseen and screen.index >= screen.timeline.last:
                self.unseen = 0  # back at the end: following again
                self._show_title(screen)
            return
        self._tell(seen.status)
        if seen.timeline is None or screen is None:
            if screen is not None:
                self._show_title(screen)
            if seen.timeline is not None:
                self.timeline = seen.timeline  # shown when the person comes back to it
            return
        self._replace(screen, seen.timeline, follow=seen.switched)

    def _tell(self, status: str) -> None:
        if status:
            self.status = status
            self.notify(status, timeout=NOTICE_SECONDS, severity="warning" if "gone" in status else "information")

    def _first_read(self, seen: Seen | None) -> None:
        """While the first screen shows: the whole read's timeline replaces it, at its last step (when the
        person comes back to it, if help is open over it)."""
        if seen is not None:
            self._tell(seen.status)
            if seen.timeline is not None:
                self.timeline = seen.timeline
        first = self.screen
        if not isinstance(first, FirstScreen) or self.timeline is first.timeline:
            return
        self.reading_history = False
        timeline = self.timeline
        self.title = f"ctxviz · {timeline.source.name}"
        new = self.newest_screen = self._screen_of(timeline)
        new.set_reactive(TimelineScreen.index, timeline.last)
        self.switch_screen(new)

    def _replace(self, old: TimelineScreen, timeline: Timeline, *, follow: bool) -> None:
        following = follow or old.index >= old.timeline.last
        if following:
            self.unseen = 0
        else:
            if not self.unseen and timeline.last > old.timeline.last:
                self.notify("New steps arrived while you look back: End follows the newest again.",
                            timeout=NOTICE_SECONDS)  # fmt: skip
            self.unseen += max(0, timeline.last - old.timeline.last)
        self.timeline = timeline
        self.title = f"ctxviz · {timeline.source.name}"
        new = self.newest_screen = self._screen_of(timeline)
        new.set_reactive(TimelineScreen.index, timeline.last if following else min(old.index, timeline.last))
        view = old.view
        self.switch_screen(new)
        if view != new.view:
            self.call_after_refresh(setattr, new, "view", view)

    def _show_title(self, screen: TimelineScreen) -> None:
        with suppress(NoMatches):  # the header's layout is the screen's business
            screen.query_one("#header-name", Label).update(self._title(screen.timeline))


def _carried(timeline: Timeline) -> str:
    """What the calls so far sent, and the share of it sent again (an item re-sent by every call after
    the one it entered with); nothing before the first measured call."""
    cost = carried_cost(timeline)
    if not cost.input_tokens:
        return ""
    return f" · {humanize(cost.input_tokens)} sent, {100 * cost.carried_over / cost.input_tokens:.0f}% re-sent"


def run_watch(watch: Watch, timeline: Timeline, status: str = "", *, from_end: bool = False) -> None:
    WatchApp(watch, timeline, status=status, from_end=from_end).run()
