"""``ctxviz fidelity``: the imported session replayed under the claude-code rules, call by call against
what the session measured.

Only what the replay predicts is scored. The importer sizes every event from two measured calls, so
every call up to the first compaction comes out right by construction: those calls are *fitted* and
reported apart. The headline is the error of the calls after the first compaction (*predicted*), each
automatic compaction's place (the same call, or off by how many) and the first call after each.

One convention everywhere: a compaction "after call N" came between the N-th API call (from 1, as
``ctxviz context --at N`` numbers them) and the next one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from ctxviz.importer.imported import ImportResult, session_to_scenario
from ctxviz.importer.replay import Replay, replay

FORMAT = "ctxviz.fidelity/1"
NEXT_CALL_TOLERANCE = 5.0  # % of the measured size: the first call after a compaction counts as right within it


@dataclass(frozen=True)
class CallFit:
    call: int
    measured: int
    simulated: int

    @property
    def error(self) -> float:
        """Absolute error in % of the measured size."""
        return abs(self.simulated - self.measured) / self.measured * 100 if self.measured else 0.0


@dataclass(frozen=True)
class CompactionFit:
    """One compaction of the session or of the replay. ``measured_after_call`` / ``simulated_after_call``:
    the call it came after (0: before the first call; None: it did not happen on that side). ``next_*``:
    call ``next_call``, measured and as the replay has it: the first call after both the session's
    compaction and the replay's (where the replay made none, the first after the session's)."""

    trigger: str
    measured_after_call: int | None
    simulated_after_call: int | None
    measured_next: int | None
    simulated_next: int | None
    pre_tokens: int | None = None
    next_call: int | None = None

    @property
    def offset(self) -> int | None:
        """How many calls later (+) or earlier (−) the replay compacted; None where one side has none."""
        if self.measured_after_call is None or self.simulated_after_call is None:
            return None
        return self.simulated_after_call - self.measured_after_call

    @property
    def next_error(self) -> float | None:
        """The first call after it: the replay's error in % of the measured size."""
        if not self.measured_next or self.simulated_next is None:
            return None
        return abs(self.simulated_next - self.measured_next) / self.measured_next * 100


@dataclass(frozen=True)
class ErrorSource:
    """Calls whose error stems from one place: the start (sizes, start-up) or one compaction."""

    label: str
    calls: int
    mean_error: float
    worst_call: int
    worst_error: float


@dataclass(frozen=True)
class Score:
    """Errors of a set of calls: their count, median and 90th percentile (None: no call)."""

    calls: int
    median_error: float | None
    p90_error: float | None

    @staticmethod
    def of(fits: list[CallFit]) -> Score:
        errors = [f.error for f in fits]
        if not errors:
            return Score(0, None, None)
        return Score(len(errors), percentile(errors, 0.5), percentile(errors, 0.9))


@dataclass(frozen=True)
class FidelityReport:
    session: str
    version: str | None  # the Claude Code version the replay's rules were taken for
    calls: tuple[CallFit, ...]
    compactions: tuple[CompactionFit, ...]
    predicted: Score  # the calls after the session's first compaction
    fitted: Score  # the calls up to it, reproduced by construction
    sources: tuple[ErrorSource, ...]
    threshold: int | None = None  # the auto-compaction line the replay used

    @property
    def median_error(self) -> float | None:
        return self.predicted.median_error

    @property
    def p90_error(self) -> float | None:
        return self.predicted.p90_error

    @property
    def automatic(self) -> tuple[CompactionFit, ...]:
        """The session's automatic compactions (the replay must find them; a typed /compact is an event)."""
        return tuple(c for c in self.compactions if c.trigger == "auto" and c.measured_after_call is not None)

    @property
    def same_call(self) -> int:
        return sum(1 for c in self.automatic if c.offset == 0)

    @property
    def within_one_call(self) -> int:
        return sum(1 for c in self.automatic if c.offset is not None and abs(c.offset) <= 1)

    @property
    def next_calls(self) -> tuple[CompactionFit, ...]:
        """The session's compactions with a measured call after them."""
        return tuple(c for c in self.compactions if c.next_error is not None)

    @property
    def next_within_tolerance(self) -> int:
        return sum(1 for c in self.next_calls if (c.next_error or 0) <= NEXT_CALL_TOLERANCE)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "session": self.session,
            "calls": [{"call": c.call, "measured": c.measured, "simulated": c.simulated} for c in self.calls],
            "compactions": [
                {
                    "trigger": c.trigger,
                    "measured_after_call": c.measured_after_call,
                    "simulated_after_call": c.simulated_after_call,
                    "offset": c.offset,
                    "pre_tokens": c.pre_tokens,
                    "measured_next": c.measured_next,
                    "simulated_next": c.simulated_next,
                    "next_error": _rounded(c.next_error),
                    "next_call": c.next_call,
                }
                for c in self.compactions
            ],
            "median_error": _rounded(self.median_error),
            "p90_error": _rounded(self.p90_error),
            "version": self.version,
            "predicted": {
                "calls": self.predicted.calls,
                "automatic_compactions": len(self.automatic),
                "same_call": self.same_call,
                "within_one_call": self.within_one_call,
                "next_calls": len(self.next_calls),
                "next_within_5pct": self.next_within_tolerance,
            },
            "fitted": {
                "calls": self.fitted.calls,
                "median_error": _rounded(self.fitted.median_error),
                "p90_error": _rounded(self.fitted.p90_error),
            },
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (the median of an even count is the mean of the middle two)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    if fraction == 0.5:
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _call_sizes(result: ImportResult, run: Replay) -> list[CallFit]:
    """Calls numbered from 1, as ``ctxviz context --at N`` numbers them."""
    flat = [e for top in result.draft.events for e in top.flat()]
    last_event: dict[int, int] = {}
    for n, event in enumerate(flat):
        last_event[event.segment] = n
    fits = []
    latest: int | None = None
    for k, segment in enumerate(result.draft.session.segments):
        latest = last_event.get(k, latest)
        if segment.used is None:
            continue
        simulated = run.startup_used if latest is None else run.used_after(latest)
        fits.append(CallFit(k + 1, segment.used, simulated))
    return fits


def _last_call_before(segment: int, calls: dict[int, CallFit]) -> int:
    """Segment k holds what came after call k and before call k + 1: the call it follows is the last
    measured one up to k (0: none)."""
    return max((c for c in calls if c <= segment), default=0)


def scored_next_call(first_after: int, simulated_after: int | None, sizes: Mapping[int, CallFit]) -> int | None:
    """The call a compaction's size is scored at: the session's first call after it, when that call
    follows it directly; moved on to the first call after the replay's compaction when the replay
    compacted later, so that both windows are compacted ones (the timing is scored apart, as the offset).
    A replay that never compacted is scored at the session's call: its window is still the full one."""
    if first_after not in sizes:
        return None
    if simulated_after is None or simulated_after < first_after:
        return first_after
    return min((c for c in sizes if c > simulated_after), default=None)


class SessionCompaction(NamedTuple):
    """A compaction the session recorded: its trigger, the measured call it came after, its size before as
    recorded, and the call that follows it directly (where its size after is scored)."""

    trigger: str
    after: int
    pre_tokens: int | None
    first_after: int


def paired_compactions(
    recorded: Sequence[SessionCompaction], simulated: Sequence[int], sizes: Mapping[int, CallFit]
) -> list[CompactionFit]:
    """Each recorded compaction beside the replay's: a typed one is an event, replayed where it was typed;
    an automatic one takes the replay's nearest automatic compaction (``simulated``, the calls they came
    after, in order: the earlier on a tie). The replay's left over stand alone, as compactions the session
    did not make."""
    left = list(simulated)
    fits: list[CompactionFit] = []
    for trigger, after, pre, first_after in recorded:
        nearest: int | None = after
        if trigger != "manual":
            nearest = min(left, key=lambda s: (abs(s - after), s), default=None)
            if nearest is not None:
                left.remove(nearest)
        nxt = scored_next_call(first_after, nearest, sizes)
        measured_next, simulated_next = (sizes[nxt].measured, sizes[nxt].simulated) if nxt is not None else (None, None)
        fits.append(CompactionFit(trigger, after, nearest, measured_next, simulated_next, pre, nxt))
    fits += [CompactionFit("auto", None, s, None, None) for s in left]
    return sorted(fits, key=lambda c: (c.measured_after_call if c.measured_after_call is not None
                                       else c.simulated_after_call or 0))  # fmt: skip


def predicted_and_fitted(calls: Sequence[CallFit], compactions: Sequence[CompactionFit]) -> tuple[Score, Score]:
    """The calls after the session's first compaction (predicted) and those up to it (fitted by import)."""
    first = min((c.measured_after_call for c in compactions if c.measured_after_call is not None), default=None)
    predicted = [c for c in calls if first is not None and c.call > first]
    fitted = [c for c in calls if first is None or c.call <= first]
    return Score.of(predicted), Score.of(fitted)


def _compactions(result: ImportResult, run: Replay, sizes: dict[int, CallFit]) -> list[CompactionFit]:
    flat = [e for top in result.draft.events for e in top.flat()]
    simulated = [_last_call_before(flat[event].segment if event >= 0 else 0, sizes) for event, _ in run.compactions()]
    recorded = [
        SessionCompaction(trigger, _last_call_before(segment, sizes), pre, segment + 1)
        for segment, trigger, pre in result.draft.compactions
    ]
    return paired_compactions(recorded, simulated, sizes)


def _sources(calls: list[CallFit], compactions: list[CompactionFit]) -> list[ErrorSource]:
    """Each call's error put down to the last thing before it that could cause it: the imported sizes
    and start-up, a compaction that fired at another call than in the session, or a compaction's size."""
    marks: list[tuple[int, str]] = []
    for fit in compactions:
        measured, simulated = fit.measured_after_call, fit.simulated_after_call
        if measured is not None and simulated is not None and measured != simulated:
            marks.append(
                (min(measured, simulated) + 1,
                 f"compaction timing: simulated after call {simulated}, measured after {measured}")
            )  # fmt: skip
        if measured is None and simulated is None:
            continue
        settled = max(c for c in (measured, simulated) if c is not None)
        after = (
            f" ({fit.measured_next:,} measured, {fit.simulated_next:,} simulated)"
            if fit.measured_next is not None and fit.simulated_next is not None
            else ""
        )
        marks.append((settled + 1, f"the size after the compaction after call {settled}{after}"))
    marks.sort()
    groups: dict[str, list[CallFit]] = {}
    for call in calls:
        label = next(
            (text for at, text in reversed(marks) if at <= call.call), "sizes and start-up (before any compaction)"
        )
        groups.setdefault(label, []).append(call)
    sources = []
    for label, members in groups.items():
        worst = max(members, key=lambda f: f.error)
        mean = sum(f.error for f in members) / len(members)
        sources.append(ErrorSource(label, len(members), mean, worst.call, worst.error))
    return sorted(sources, key=lambda s: -s.mean_error * s.calls)


def fidelity_of(result: ImportResult, name: str) -> FidelityReport:
    flat_count = sum(len(top.flat()) for top in result.draft.events)
    run = replay(result.scenario, flat_count)
    calls = _call_sizes(result, run)
    compactions = _compactions(result, run, {c.call: c for c in calls})
    predicted, fitted = predicted_and_fitted(calls, compactions)
    return FidelityReport(
        name, result.draft.session.version, tuple(calls), tuple(compactions), predicted, fitted,
        tuple(_sources(calls, compactions)), run.timeline.thresholds.autocompact,
    )  # fmt: skip


def fidelity(path: Path | str) -> FidelityReport:
    """Import the session at ``path`` and score the engine against its measured calls."""
    result = session_to_scenario(path)
    return fidelity_of(result, result.draft.session.session_id or Path(path).stem)
