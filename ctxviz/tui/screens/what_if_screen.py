"""A what-if's timeline (``play --set``): the ordinary timeline screen, with the curve it is set against
drawn over its usage chart — what the real session measured, or the scenario as written — and a title
that says which is which."""

from __future__ import annotations

from collections.abc import Sequence

from ctxviz.timeline import Timeline
from ctxviz.tui.screens.timeline_screen import TimelineScreen
from ctxviz.tui.widgets.reference_chart import DOT, ReferenceChartWidget
from ctxviz.tui.widgets.usage_chart import UsageChartWidget


class WhatIfScreen(TimelineScreen):
    auditable = False  # an audit replays the session as recorded; this is a what-if of it

    def __init__(
        self,
        timeline: Timeline,
        what_ifs: Sequence[str],
        reference: Sequence[int | None],
        reference_name: str,
        name: str,
    ) -> None:
        # the what-if first: a narrow header cuts the end (the chart's own title also says which curve is which)
        title = f"what-if {' '.join(what_ifs)} · {name} · ▇ simulated, {DOT} {reference_name}"
        super().__init__(timeline, title)
        self.what_ifs = tuple(what_ifs)
        self._reference = reference
        self._reference_name = reference_name

    def make_chart(self) -> UsageChartWidget:
        return ReferenceChartWidget(self.timeline, self._reference, self._reference_name, id="chart")
