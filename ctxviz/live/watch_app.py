"""``ctxviz watch`` in the TUI: the usual timeline screen, replaced by a fresh one whenever the followed
session grows. The view stays on the newest step unless the person has stepped back; then the header
counts the new steps until End brings them back to following."""

from __future__ import annotations

import re
from contextlib import suppress

from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Label

from ctxviz.live.watch import Watch
from ctxviz.timeline import Timeline
from ctxviz.tui.app import DARK, CtxvizApp
from ctxviz.tui.screens.timeline_screen import TimelineScreen

_SESSION_ID = re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")  # its first 8 characters say enough
POLL_SECONDS = 0.1  # one stat (~10 µs) per poll; the redraw, not the poll, is most of the delay (benchmarks/live.py)


class WatchApp(CtxvizApp):
    def __init__(self, watch: Watch, timeline: Timeline, *, status: str = "", theme: str = DARK) -> None:
        super().__init__(timeline, theme=theme)
        self.watch_source = watch
        self.status = status
        self.unseen = 0  # steps that arrived while the person looked at an earlier one

    def get_default_screen(self) -> Screen[None]:
        # a blank base: the followed timeline's screen is pushed on it, so that it can be switched
        return Screen()

    def on_mount(self) -> None:
        screen = TimelineScreen(self.timeline, self._title(self.timeline))
        screen.set_reactive(TimelineScreen.index, self.timeline.last)  # before mount: no watchers yet
        self.push_screen(screen)
        self.set_interval(POLL_SECONDS, self.poll)

    def _title(self, timeline: Timeline) -> str:
        name = timeline.source.name
        parts = [f"{name[:8] if _SESSION_ID.fullmatch(name) else name} · live"]
        if self.unseen:
            parts.append(f"{self.unseen} new step{'s' if self.unseen != 1 else ''} — End to follow")
        if self.status:
            parts.append(self.status)
        return " · ".join(parts)

    def _screen(self) -> TimelineScreen | None:
        """The followed timeline's screen, when it is the one showing (not help, not a subagent)."""
        screen = self.screen
        if isinstance(screen, TimelineScreen) and not screen.is_child:
            return screen
        return None

    def poll(self) -> None:
        seen = self.watch_source.poll()
        screen = self._screen()
        if seen is None:
            if screen is not None and screen.timeline is not self.timeline:
                self._replace(screen, self.timeline, follow=False)  # arrived while help was open
            elif screen is not None and self.unseen and screen.index >= screen.timeline.last:
                self.unseen = 0  # back at the end: following again
                self._show_title(screen)
            return
        if seen.status or seen.switched:
            self.status = seen.status
        if seen.timeline is None or screen is None:
            if screen is not None:
                self._show_title(screen)
            if seen.timeline is not None:
                self.timeline = seen.timeline  # shown when the person comes back to it
            return
        self._replace(screen, seen.timeline, follow=seen.switched)

    def _replace(self, old: TimelineScreen, timeline: Timeline, *, follow: bool) -> None:
        following = follow or old.index >= old.timeline.last
        if following:
            self.unseen = 0
        else:
            self.unseen += max(0, timeline.last - old.timeline.last)
        self.timeline = timeline
        self.title = f"ctxviz · {timeline.source.name}"
        new = TimelineScreen(timeline, self._title(timeline))
        new.set_reactive(TimelineScreen.index, timeline.last if following else min(old.index, timeline.last))
        view = old.view
        self.switch_screen(new)
        if view != new.view:
            self.call_after_refresh(setattr, new, "view", view)

    def _show_title(self, screen: TimelineScreen) -> None:
        with suppress(NoMatches):  # the header's layout is the screen's business
            screen.query_one("#header-name", Label).update(self._title(screen.timeline))


def run_watch(watch: Watch, timeline: Timeline, status: str = "") -> None:
    WatchApp(watch, timeline, status=status).run()
