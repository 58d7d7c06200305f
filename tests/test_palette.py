"""The token bar's segment colours stay apart: no two segments a person could mistake for each other
(MCP tools and Subagent results were once two teals 27 apart)."""

from __future__ import annotations

import itertools
import math

from ctxviz.tui.palette import SEGMENT_COLORS
from ctxviz.tui.segments import SEGMENTS

# "redmean" distance: RGB weighted the way the eye weighs it (0 to about 765); below ~40 two swatches
# side by side read as one colour
APART = 40


def _distance(first: str, second: str) -> float:
    (r1, g1, b1), (r2, g2, b2) = (tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in (first, second))
    mean = (r1 + r2) / 2
    return math.sqrt((2 + mean / 256) * (r1 - r2) ** 2 + 4 * (g1 - g2) ** 2 + (2 + (255 - mean) / 256) * (b1 - b2) ** 2)


def test_no_two_bar_segments_share_a_colour() -> None:
    keys = [segment.key for segment in SEGMENTS]
    close = [
        (a, b) for a, b in itertools.combinations(keys, 2) if _distance(SEGMENT_COLORS[a], SEGMENT_COLORS[b]) < APART
    ]
    assert close == []


def test_the_distance_tells_teal_from_teal() -> None:
    assert _distance("#2aa198", "#1fa9a1") < APART < _distance("#2aa198", "#3fb950")
