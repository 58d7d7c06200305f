"""Pure layout arithmetic shared by the TUI and the Rich report: bar cells and the ``/context`` grid."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ctxviz.short_forms import humanize as humanize  # with the rest of the layout, for its users
from ctxviz.timeline import FREE_SPACE

FULL, PARTIAL, FREE, RESERVE = "⛁", "⛀", "⛶", "⛝"
_FULL_ENOUGH = 0.7  # /context draws a square as full when it is at least 70% used (ContextVisualization.tsx)


def share_cells(values: Sequence[int], cells: int) -> list[int]:
    """Split ``cells`` among ``values`` in proportion, by largest remainder: the result sums to exactly
    ``cells`` (when any value is positive), so a stacked bar never drifts by a cell from rounding."""
    total = sum(v for v in values if v > 0)
    if total <= 0 or cells <= 0:
        return [0] * len(values)
    exact = [max(v, 0) * cells / total for v in values]
    shares = [math.floor(x) for x in exact]
    short = cells - sum(shares)
    # ties go to the earlier value, so the split is deterministic
    by_remainder = sorted(range(len(values)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in by_remainder[:short]:
        shares[i] += 1
    return shares


@dataclass(frozen=True, slots=True)
class GridSquare:
    glyph: str
    row: str  # the breakdown row this square belongs to


def grid_shape(window: int, narrow: bool = False) -> tuple[int, int]:
    """(columns, rows) of the ``/context`` grid: 10×10 below 1M, 20×10 at 1M; 5×5 / 5×10 when narrow."""
    if window >= 1_000_000:
        return (5, 10) if narrow else (20, 10)
    return (5, 5) if narrow else (10, 10)


def context_grid(
    breakdown: Mapping[str, int], window: int, buffer_label: str, narrow: bool = False
) -> list[list[GridSquare]]:
    """The glyph grid of ``/context``: each non-empty category gets ``max(1, round(share))`` squares,
    drawn ⛁ when at least 70% full and ⛀ otherwise; free space ⛶; the reserve ⛝ at the end."""
    columns, rows = grid_shape(window, narrow)
    total = columns * rows
    squares: list[GridSquare] = []
    for row, tokens in breakdown.items():
        if row in (FREE_SPACE, buffer_label) or tokens <= 0:
            continue
        exact = tokens / window * total
        count = max(1, round(exact))
        for n in range(count):
            fullness = min(1.0, exact - n)
            squares.append(GridSquare(FULL if fullness >= _FULL_ENOUGH else PARTIAL, row))
    reserve = round(breakdown.get(buffer_label, 0) / window * total)
    squares = squares[: max(0, total - reserve)]
    squares += [GridSquare(FREE, FREE_SPACE)] * (total - reserve - len(squares))
    squares += [GridSquare(RESERVE, buffer_label)] * reserve
    return [squares[r * columns : (r + 1) * columns] for r in range(rows)]


def percent(tokens: int, window: int) -> float:
    return 100.0 * tokens / window if window else 0.0
