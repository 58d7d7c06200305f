"""The TUI's pure parts, without an app: bar cells, the chart's columns, the segment totals."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from tui_timelines import demo_timeline, long_timeline

from ctxviz.timeline import Category
from ctxviz.tui.renderables.bar import Legend, Marker, Slice, TokenBar, bar_spans
from ctxviz.tui.renderables.chart import column_of, downsample
from ctxviz.tui.segments import SEGMENTS, SegmentTotals, segment_of

tokens = st.lists(st.integers(min_value=0, max_value=2_000_000), min_size=1, max_size=20)


@given(tokens, st.integers(min_value=1, max_value=400))
def test_bar_spans_tile_the_width_exactly(values: list[int], width: int) -> None:
    slices = [Slice(str(n), str(n), v, "red") for n, v in enumerate(values)]
    spans = bar_spans(slices, width)
    if sum(values) == 0:
        assert spans == []
        return
    assert spans[0][1] == 0 and spans[-1][2] == width
    assert all(a[2] == b[1] for a, b in zip(spans, spans[1:], strict=False))
    assert all(piece.tokens > 0 for piece, _, _ in spans)


@given(st.integers(min_value=1, max_value=5_000), st.integers(min_value=1, max_value=300))
def test_every_step_has_a_chart_column_and_it_is_the_one_downsample_gives_it(count: int, columns: int) -> None:
    values = list(range(count))  # the peak of a column is its last step
    peaks = downsample(values, columns)
    for index in {0, count // 3, count // 2, count - 1}:
        shown = column_of(index, count, columns)
        assert len(shown) >= 1
        for column in shown:
            lo = column * count // columns
            assert lo <= index <= peaks[column]


def test_the_bar_draws_markers_and_fills_the_width() -> None:
    console = Console(width=120, record=True, color_system=None)
    slices = [
        Slice("a", "A", 50_000, "red"),
        Slice("free", "Free space", 117_000, "white"),
        Slice("reserve", "R", 33_000, "blue"),
    ]
    markers = [Marker(147_000, "warning 147k", "warn"), Marker(167_000, "auto-compact 167k", "compact")]
    console.print(TokenBar(slices, 200_000, markers, "yellow"))
    rows = console.export_text().splitlines()
    assert len(rows) == 3 and all(len(row) == 120 for row in rows[:2])
    assert rows[0][147_000 * 120 // 200_000] == "┃" and rows[0][167_000 * 120 // 200_000] == "┃"
    assert rows[0].endswith("░") and "warning 147k ▲" in rows[2] and "▲ auto-compact 167k" in rows[2]


def test_the_legend_drops_percentages_before_it_takes_more_than_three_lines() -> None:
    slices = [Slice(s.key, s.label, 1_234, "red") for s in SEGMENTS]
    wide, narrow = Console(width=200, record=True), Console(width=80, record=True)
    wide.print(Legend(slices[:6], 200_000))
    narrow.print(Legend(slices, 200_000))
    assert "%" in wide.export_text() and "%" not in narrow.export_text()


def test_segments_add_up_to_the_categories_at_every_step() -> None:
    for timeline in (demo_timeline(), long_timeline(500)):
        totals = SegmentTotals(timeline)
        for index in range(len(timeline.steps)):
            by_category = dict.fromkeys(Category, 0)
            for segment, value in zip(SEGMENTS, totals.at(index), strict=True):
                by_category[segment.category] += value
            assert by_category == timeline.category_totals_at(index)
        live = {segment_of(b).key for i in range(len(timeline.steps)) for b in timeline.state_at(i)}
        assert {s.key for s, present in zip(SEGMENTS, totals.present, strict=True) if present} == live


def test_the_tui_command_module_does_not_import_textual() -> None:
    code = "import sys, ctxviz.cli.tui_commands; sys.exit('textual' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_a_marker_short_of_room_drops_its_long_name_then_its_figure() -> None:
    slices = [Slice("free", "Free space", 167_000, "white"), Slice("reserve", "R", 33_000, "blue")]
    markers = [Marker(147_000, "warning 147k", "warn"), Marker(167_000, "auto-compact 167k", "compact")]
    labels = {}
    for width in (120, 100, 80):
        console = Console(width=width, record=True, color_system=None)
        console.print(TokenBar(slices, 200_000, markers, "yellow"))
        labels[width] = console.export_text().splitlines()[2].split("▲")[-1].strip()
    # the marker sits at column 167/200 of the width: 100, 83 and 66; its label starts two columns later
    assert labels == {120: "auto-compact 167k", 100: "compact 167k", 80: "compact"}


def test_two_markers_too_close_for_a_label_each_share_one() -> None:
    # a 1M window: the markers at columns 94 and 96 of 100; right of 96 there is no room for " compact "
    slices = [Slice("free", "Free space", 967_000, "white"), Slice("reserve", "R", 33_000, "blue")]
    markers = [Marker(947_000, "warning 947k", "warn"), Marker(967_000, "auto-compact 967k", "compact")]
    console = Console(width=100, record=True, color_system=None)
    console.print(TokenBar(slices, 1_000_000, markers, "yellow"))
    row = console.export_text().splitlines()[2]
    assert row.rstrip().endswith(" warning 947k · auto-compact 967k ▲ ▲") and row.index("▲") == 94
