"""Runs side by side: one lane per run, all stepping together through the scenario's events.

The screen owns the state (the current event, the selected lane); the lanes draw what they are given.
⏎ opens the selected run's full timeline at the current event (the ordinary timeline screen); esc there
comes back here.
"""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.dom import DOMNode
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Label

from ctxviz.report.compare_runs import Comparison, compactions_of
from ctxviz.tui.screens.timeline_screen import TimelineScreen, compaction_keys, no_compaction
from ctxviz.tui.widgets.compare_lane import Lane
from ctxviz.tui.widgets.key_bar import KeyBar
from ctxviz.tui.widgets.reference_chart import DOT

WIDE_WIDTH = 140  # from here lanes sit two abreast
LANE_HEIGHT = 11  # title, bar (2 rows and labels), a 4-row chart, what the event did (2 rows), border
_EVENT = Binding.Group("Event", compact=True)
_LANE = Binding.Group("Lane", compact=True)


class CompareScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_name("compare_screen.tcss")
    AUTO_FOCUS = ""
    BINDINGS = [
        Binding("left", "step(-1)", "Previous event", key_display="←", priority=True, group=_EVENT),
        Binding("right", "step(1)", "Next event", key_display="→", priority=True, group=_EVENT),
        Binding("home", "go(0)", "Start-up", show=False, priority=True),
        Binding("end", "go(-1)", "Last event", show=False, priority=True),
        Binding("up", "lane(-1)", "Previous lane", key_display="↑", priority=True, group=_LANE),
        Binding("down", "lane(1)", "Next lane", key_display="↓", priority=True, group=_LANE),
        *compaction_keys("The next event where any run compacts"),
        Binding("enter", "open_run", "Open run", key_display="⏎", priority=True),
        Binding("escape", "back", "Back"),
    ]

    position: reactive[int] = reactive(0, init=False, repaint=False)  # 0 = start-up, n + 1 = event n
    lane: reactive[int] = reactive(0, init=False, repaint=False)

    def __init__(self, comparison: Comparison, *, is_child: bool = False, position: int = 0) -> None:
        super().__init__()
        self.set_reactive(CompareScreen.position, max(0, min(position, len(comparison.events))))
        self.comparison = comparison
        self.is_child = is_child
        if comparison.measured is None:
            self.heading = f"compare · {comparison.name}"
        else:  # a real session, by the first 8 characters of its id: every lane replays it; dots, what it measured
            self.heading = f"compare · session {comparison.name[:8]} · {DOT} measured"
        self.title = self.heading
        # positions (event + 1) where any run compacts
        self._compactions = sorted({c.event + 1 for run in comparison.runs for c in compactions_of(run)})

    @property
    def last(self) -> int:
        return len(self.comparison.events)

    def compose(self) -> ComposeResult:
        with Horizontal(id="compare-header"):
            yield Label(self.heading, id="compare-name")
            yield Label(id="compare-event")
        with VerticalScroll(id="lanes"):
            measured = self.comparison.measured
            peak = max([run.timeline.peak for run in self.comparison.runs] + [v for v in measured or () if v])
            for number, run in enumerate(self.comparison.runs, start=1):
                yield Lane(run, number, peak, measured)
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self._fit_lanes()
        self.watch(self.app, "theme", self._show, init=False)
        self._show()
        self._select()

    def on_resize(self) -> None:
        self._fit_lanes()
        if self.is_mounted:
            self.call_after_refresh(self._show)

    def _fit_lanes(self) -> None:
        """Lanes share the height when they all fit; at LANE_HEIGHT each, the list scrolls instead."""
        width, height = self.app.size
        wide = width >= WIDE_WIDTH
        self.set_class(wide, "-wide")
        rows = -(-len(self.comparison.runs) // (2 if wide else 1))
        lane_height = max(LANE_HEIGHT, (height - 2) // rows)
        # a grid row takes its height from grid-rows, not from the lane's own height
        self.query_one("#lanes").set_styles(f"grid-rows: {lane_height};")
        for lane in self.query(Lane):
            lane.styles.height = lane_height

    # --- state → widgets ----------------------------------------------------------------------------
    def _show(self) -> None:
        position = self.position
        if position == 0:
            where = "start-up"
        else:
            event = self.comparison.events[position - 1]
            measured = self.comparison.measured and self.comparison.measured[event.index]
            reading = f" · measured {measured:,}" if measured else ""
            where = f"event {event.index}/{self.last - 1}{reading} · {event.kind} {event.label}".rstrip()
        self.query_one("#compare-event", Label).update(where)
        for lane in self.query(Lane):
            lane.show(position)

    def _select(self) -> None:
        for lane in self.query(Lane):
            lane.set_class(lane.number - 1 == self.lane, "-selected")
        self.query(Lane)[self.lane].scroll_visible(animate=False)

    def watch_position(self) -> None:
        self._show()

    def watch_lane(self) -> None:
        self._select()

    # --- actions --------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step":
            return (self.position > 0 if parameters[0] == -1 else self.position < self.last) or None
        if action == "lane":
            target = self.lane + int(parameters[0])  # type: ignore[call-overload]
            return 0 <= target < len(self.comparison.runs) or None
        if action == "compaction":
            return self._compaction_from(int(parameters[0])) is not None or None  # type: ignore[call-overload]
        if action == "back":
            return self.is_child
        return True

    def _compaction_from(self, direction: int) -> int | None:
        later = [p for p in self._compactions if (p > self.position if direction > 0 else p < self.position)]
        if not later:
            return None
        return later[0] if direction > 0 else later[-1]

    def action_step(self, delta: int) -> None:
        self.position = max(0, min(self.last, self.position + delta))

    def action_go(self, position: int) -> None:
        self.position = self.last if position < 0 else min(position, self.last)

    def action_lane(self, delta: int) -> None:
        self.lane = max(0, min(len(self.comparison.runs) - 1, self.lane + delta))

    def action_compaction(self, direction: int) -> None:
        target = self._compaction_from(direction)
        if target is None:
            return
        self.position = target
        # show a run that compacts there, unless the selected one does
        compacting = [
            n for n, run in enumerate(self.comparison.runs) if any(c.event + 1 == target for c in compactions_of(run))
        ]
        if self.lane not in compacting:
            self.lane = compacting[0]

    def action_cannot_jump(self, direction: int) -> None:
        self.notify(no_compaction(len(self._compactions), direction, "event"), timeout=3)

    def action_open_run(self) -> None:
        run = self.comparison.runs[self.lane]
        screen = TimelineScreen(run.timeline, f"{run.label} · {self.comparison.name}", is_child=True)
        screen.set_reactive(TimelineScreen.index, run.step_after(self.position - 1))
        self.app.push_screen(screen)

    def action_back(self) -> None:
        if self.is_child:
            self.dismiss()

    def on_click(self, event: events.Click) -> None:
        """A click on a lane selects it."""
        node: DOMNode | None = event.widget
        while node is not None and not isinstance(node, Lane):
            node = node.parent
        if isinstance(node, Lane):
            self.lane = node.number - 1
