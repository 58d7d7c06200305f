"""One timeline, played: the header, the token bar and legend, and three views of the current step.

The screen owns the state (current step, playing, view, speed); the widgets only draw what they are
given ("attributes down, messages up"). A subagent's timeline opens as another of these screens.
"""

from __future__ import annotations

import bisect

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher, Static

from ctxviz.timeline import USER_STEP_KINDS, Timeline
from ctxviz.tui.renderables.bar import FREE_KEY, RESERVE_KEY
from ctxviz.tui.segments import SegmentTotals
from ctxviz.tui.step_clicked import StepClicked
from ctxviz.tui.widgets.blocks_view import SORTS, BlocksView
from ctxviz.tui.widgets.context_header import ContextHeader, display_title
from ctxviz.tui.widgets.context_view import ContextView
from ctxviz.tui.widgets.detail_pane import DetailPane
from ctxviz.tui.widgets.key_bar import KeyBar
from ctxviz.tui.widgets.legend import LegendWidget
from ctxviz.tui.widgets.timeline_view import TimelineView
from ctxviz.tui.widgets.token_bar import TokenBarWidget, markers_of, slices_at
from ctxviz.tui.widgets.usage_chart import UsageChartWidget

_INDEX_ACTIONS: tuple[tuple[str, tuple[object, ...]], ...] = (
    ("play", ()),
    ("step", (-1,)),
    ("step", (1,)),
    ("go", (0,)),
    ("go", (-1,)),
    ("compaction", (-1,)),
    ("compaction", (1,)),
    ("open_subagent", ()),
)
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)  # steps a second
DEFAULT_SPEED = SPEEDS.index(2.0)
MIN_WIDTH, MIN_HEIGHT = 80, 24
SHORT_HEIGHT = 32  # below this the chart and the bar give rows to the step list
NARROW_WIDTH = 100  # below this the header drops the step number (the list and the detail show it)
_STEP = Binding.Group("Step", compact=True)


def compaction_keys(tooltip: str) -> list[Binding]:
    """n and p: the next and previous compaction (``action_compaction``); where none is that way they fall
    through to ``action_cannot_jump``, which says why instead of doing nothing."""
    return [
        Binding("n", "compaction(1)", "Compaction", tooltip=tooltip),
        Binding("p", "compaction(-1)", "Previous compaction", show=False),
        Binding("n", "cannot_jump(1)", show=False),
        Binding("p", "cannot_jump(-1)", show=False),
    ]


def no_compaction(count: int, direction: int, here: str = "step") -> str:
    """Why n or p cannot jump (``count`` compactions in all, none that way from this ``here``)."""
    if count == 0:
        return "No compaction here: n and p jump between compactions."
    return f"No compaction {'after' if direction > 0 else 'before'} this {here} ({count} in all)."


class TimelineScreen(Screen[None]):
    # Nothing takes the keyboard until a view needs it (the blocks table, to scroll with ↑/↓).
    AUTO_FOCUS = ""
    # Stepping keys are priority bindings so that the blocks table, when focused, cannot swallow them.
    BINDINGS = [
        Binding("space", "play", "Play", priority=True),
        Binding("space", "pause", "Pause", priority=True),
        Binding("left", "step(-1)", "Previous step", key_display="←", priority=True, group=_STEP),
        Binding("right", "step(1)", "Next step", key_display="→", priority=True, group=_STEP),
        Binding("home", "go(0)", "First step", show=False, priority=True),
        Binding("end", "go(-1)", "Last step", show=False, priority=True),
        *compaction_keys("Next compaction"),
        Binding("enter", "open_subagent", "Open subagent", key_display="⏎", priority=True),
        Binding("escape", "back", "Back"),
        Binding("1", "view('main')", "Main", show=False),
        Binding("2", "view('context')", "/context"),
        Binding("3", "view('blocks')", "Window", tooltip="What is in the window now"),
        Binding("s", "sort", "Sort"),
        Binding("b", "all_blocks", "All blocks"),
        Binding("a", "audit", "Audit", tooltip="Audit: what each item cost over the calls, what would have sent less"),
        Binding("a", "cannot_audit", show=False),  # a what-if's or a subagent's screen: says why
        Binding("f", "chart_scale", "Chart scale", show=False, tooltip="Chart: fit to the data or the whole window"),
        Binding("pagedown", "page(1)", "Scroll down", show=False),
        Binding("pageup", "page(-1)", "Scroll up", show=False),
        Binding("u", "toggle_pauses", "Pause at prompts", show=False),
        Binding("plus,equals_sign", "speed(1)", "Faster", key_display="+", show=False),
        Binding("minus", "speed(-1)", "Slower", key_display="-", show=False),
    ]

    # The screen draws nothing itself (repaint=False: a repaint of the screen re-renders every widget),
    # and index is not bindings=True: rebuilding the footer costs more than the rest of a step, so
    # watch_index refreshes the bindings only when what they offer changes (see _offers).
    index: reactive[int] = reactive(0, init=False, repaint=False)
    playing: reactive[bool] = reactive(False, bindings=True, init=False, repaint=False)
    view: reactive[str] = reactive("main", bindings=True, init=False, repaint=False)
    speed: reactive[int] = reactive(DEFAULT_SPEED, bindings=True, init=False, repaint=False)
    pause_at_user: reactive[bool] = reactive(True, init=False, repaint=False)
    sort: reactive[str] = reactive("size", init=False, repaint=False)
    segment: reactive[str | None] = reactive(None, bindings=True, init=False, repaint=False)
    auditable = True  # the audit replays the file it came from: not a what-if's timeline

    def __init__(
        self,
        timeline: Timeline,
        title: str | None = None,
        *,
        is_child: bool = False,
        totals: SegmentTotals | None = None,
    ) -> None:
        """``totals``: the timeline's, when already worked out (off the UI thread: seconds on 400,000 steps)."""
        super().__init__()
        self.timeline = timeline
        self.is_child = is_child
        self.title = title or display_title(timeline)
        self._totals = totals or SegmentTotals(timeline)
        self._compactions = timeline.compaction_indices()
        self._timer: Timer | None = None
        self._offered = self._offers()

    def compose(self) -> ComposeResult:
        timeline = self.timeline
        yield ContextHeader(timeline, self.title or "", id="header")
        with Vertical(id="body"):
            yield TokenBarWidget(id="bar")
            yield LegendWidget(id="legend")
            with ContentSwitcher(initial="main", id="views"):
                with Vertical(id="main"):
                    with Horizontal(id="panes"):
                        yield TimelineView(timeline, id="timeline")
                        yield DetailPane(timeline, id="detail")
                    yield self.make_chart()
                yield ContextView(timeline, self._totals, id="context")
                yield BlocksView(timeline, id="blocks")
        yield Static(id="too-small")
        yield KeyBar(id="keys")

    def make_chart(self) -> UsageChartWidget:
        """The usage chart (a what-if's screen draws a reference curve over it)."""
        return UsageChartWidget(self.timeline, id="chart")

    def on_mount(self) -> None:
        chart = self.query_one(UsageChartWidget)
        chart.border_title = chart.title_text()
        self.query_one("#too-small", Static).update(
            f"ctxviz needs a terminal of at least {MIN_WIDTH}×{MIN_HEIGHT}.\nMake this one larger, or press q to quit."
        )
        self.watch(self.app, "theme", self._refresh_all, init=False)
        self._refresh_all()

    # --- state → widgets ------------------------------------------------------------------------
    def _refresh_all(self) -> None:
        self._show_step()
        self._show_view()
        self._show_playback()

    def _show_step(self) -> None:
        index, timeline = self.index, self.timeline
        self.query_one(ContextHeader).show(index)
        slices = slices_at(self, timeline, self._totals, index)
        self.query_one(TokenBarWidget).show(slices, timeline.window, markers_of(timeline))
        # a short terminal keeps its rows for the steps: the legend drops the % sooner, and lists only
        # what is in the window now (an entry then comes and goes, at the cost of a layout pass)
        short = self.has_class("-short")
        legend = [s for s in slices if s.tokens or s.key in (FREE_KEY, RESERVE_KEY)] if short else slices
        self.query_one(LegendWidget).show(legend, timeline.window, max_lines=3 if short else 4)

    def _show_view(self) -> None:
        index = self.index
        if self.view == "main":
            self.query_one(TimelineView).show(index)
            self.query_one(DetailPane).show(index)
            self.query_one(UsageChartWidget).show(index)
        elif self.view == "context":
            self.query_one(ContextView).show(index)
        else:
            self.query_one(BlocksView).show(index, self.sort, self.segment)

    def _show_playback(self) -> None:
        # Not the step number: a new border title repaints the whole list, so it changes only with playback.
        state = "▶ playing" if self.playing else "‖ paused"
        pauses = "stops at prompts" if self.pause_at_user else "no stops"
        speed = f"{SPEEDS[self.speed]:g} steps/s"
        self.query_one(TimelineView).border_title = f"{state} · {speed} · {pauses}"

    def watch_index(self) -> None:
        self._show_step()
        self._show_view()
        offers = self._offers()
        if offers != self._offered:
            self._offered = offers
            self.refresh_bindings()

    def _offers(self) -> tuple[bool, ...]:
        """Which index-dependent actions are available (the footer changes only when this does)."""
        return tuple(bool(self.check_action(action, params)) for action, params in _INDEX_ACTIONS)

    def watch_view(self, view: str) -> None:
        self.query_one(ContentSwitcher).current = view
        # the other views list the categories themselves; the legend's rows go to them
        self.query_one(LegendWidget).display = view == "main"
        self.set_focus(self.query_one("#blocks-table") if view == "blocks" else None)
        self._show_view()

    def watch_sort(self) -> None:
        self._show_view()

    def watch_segment(self) -> None:
        self._show_view()

    def watch_pause_at_user(self) -> None:
        self._show_playback()

    def watch_playing(self, playing: bool) -> None:
        self._restart_timer()
        self._show_playback()

    def watch_speed(self) -> None:
        self._restart_timer()
        self._show_playback()

    def _restart_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.playing:
            self._timer = self.set_interval(1 / SPEEDS[self.speed], self._tick)

    def _tick(self) -> None:
        if not self.playing:  # a tick already queued when playback stopped must not move on
            return
        if self.index >= self.timeline.last:
            self.playing = False
            return
        self.index += 1
        # Like the docs' timeline: stop on each thing the person does, until they continue.
        at_user_step = self.timeline.steps[self.index].kind in USER_STEP_KINDS
        if self.index >= self.timeline.last or (self.pause_at_user and at_user_step):
            self.playing = False

    def on_resize(self) -> None:
        width, height = self.app.size
        self.set_class(width < MIN_WIDTH or height < MIN_HEIGHT, "-too-small")
        self.set_class(height < SHORT_HEIGHT, "-short")
        self.set_class(width < NARROW_WIDTH, "-narrow")
        if self.is_mounted:
            self.query_one(ContextHeader).set_class(width < NARROW_WIDTH, "-compact")
            self._show_step()

    # --- actions ----------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        last = self.timeline.last
        if action == "play":
            return False if self.playing else (self.index < last or None)
        if action == "pause":
            return self.playing
        if action == "step":
            return (self.index > 0 if parameters[0] == -1 else self.index < last) or None
        if action == "go":
            return self.index != self._go_target(int(parameters[0])) or None  # type: ignore[call-overload]
        if action == "compaction":
            return self._compaction_from(int(parameters[0])) is not None or None  # type: ignore[call-overload]
        if action == "open_subagent":
            return self.timeline.steps[self.index].child is not None
        if action == "back":
            return self.view != "main" or self.is_child
        if action == "view":
            return parameters[0] != self.view or None
        if action == "page":
            return self.view != "blocks"  # the blocks table pages itself
        if action == "chart_scale":
            return self.view == "main"
        if action == "sort":
            return self.view == "blocks"
        if action == "audit":
            return (self.auditable and not self.is_child) or None  # a subagent's audit is its parent session's
        if action == "all_blocks":
            return self.view == "blocks" and self.segment is not None
        if action == "speed":
            return 0 <= self.speed + int(parameters[0]) < len(SPEEDS) or None  # type: ignore[call-overload]
        return True

    def _compaction_from(self, direction: int) -> int | None:
        points = self._compactions
        if direction > 0:
            at = bisect.bisect_right(points, self.index)
            return points[at] if at < len(points) else None
        at = bisect.bisect_left(points, self.index)
        return points[at - 1] if at > 0 else None

    def action_play(self) -> None:
        self.playing = True

    def action_pause(self) -> None:
        self.playing = False

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(self.timeline.last, self.index + delta))

    def _go_target(self, index: int) -> int:
        """Step ``index``; -1 (or any negative) means the last step."""
        return self.timeline.last if index < 0 else min(index, self.timeline.last)

    def action_go(self, index: int) -> None:
        self.index = self._go_target(index)

    def action_compaction(self, direction: int) -> None:
        target = self._compaction_from(direction)
        if target is not None:
            self.index = target

    def action_cannot_jump(self, direction: int) -> None:
        self.notify(no_compaction(len(self._compactions), direction), timeout=3)

    def action_open_subagent(self) -> None:
        step = self.timeline.steps[self.index]
        if step.child is None:
            return
        self.playing = False
        # the most specific part first, so a narrow header cuts the trail, not the subagent's name
        title = f"⤷ {step.label} · step {step.index} of {self.title}"
        self.app.push_screen(TimelineScreen(step.child, title, is_child=True))

    def action_back(self) -> None:
        if self.view != "main":
            self.view = "main"
        elif self.is_child:
            self.playing = False
            self.dismiss()

    def action_page(self, direction: int) -> None:
        """Page the detail pane (main view) or the /context view."""
        if self.view == "main":
            self.query_one(DetailPane).page(direction)
        elif direction > 0:
            self.query_one(ContextView).scroll_page_down(animate=False)
        else:
            self.query_one(ContextView).scroll_page_up(animate=False)

    def action_chart_scale(self) -> None:
        self.query_one(UsageChartWidget).toggle_scale()

    def action_view(self, view: str) -> None:
        self.view = view

    def action_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]

    def action_all_blocks(self) -> None:
        self.segment = None

    def action_audit(self) -> None:
        self.playing = False
        self.app.open_audit(self.timeline)  # type: ignore[attr-defined]

    def action_cannot_audit(self) -> None:
        why = "a subagent's calls are audited with its session's" if self.is_child else "a what-if is not audited"
        self.notify(f"No audit here: {why}; a on the recorded session's own timeline, or ctxviz audit", timeout=3)

    def action_toggle_pauses(self) -> None:
        self.pause_at_user = not self.pause_at_user

    def action_speed(self, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))

    # --- messages from the widgets ------------------------------------------------------------------
    @on(StepClicked)
    def _go_to_clicked(self, event: StepClicked) -> None:
        self.index = event.index

    @on(TokenBarWidget.SegmentClicked)
    def _list_segment(self, event: TokenBarWidget.SegmentClicked) -> None:
        self.segment = event.key
        self.view = "blocks"
