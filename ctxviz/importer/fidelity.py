"""``ctxviz fidelity``: the imported session replayed under the claude-code rules, call by call against
what the session measured, with each compaction's place and the size right after it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxviz.importer.imported import ImportResult, session_to_scenario
from ctxviz.importer.replay import Replay, replay

FORMAT = "ctxviz.fidelity/1"


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
    trigger: str
    measured_call: int | None
    simulated_call: int | None
    measured_after: int | None
    simulated_after: int | None
    pre_tokens: int | None = None


@dataclass(frozen=True)
class ErrorSource:
    """Calls whose error stems from one place: the start (sizes, start-up) or one compaction."""

    label: str
    calls: int
    mean_error: float
    worst_call: int
    worst_error: float


@dataclass(frozen=True)
class FidelityReport:
    session: str
    calls: tuple[CallFit, ...]
    compactions: tuple[CompactionFit, ...]
    median_error: float
    p90_error: float
    sources: tuple[ErrorSource, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "session": self.session,
            "calls": [{"call": c.call, "measured": c.measured, "simulated": c.simulated} for c in self.calls],
            "compactions": [
                {
                    "trigger": c.trigger,
                    "measured_call": c.measured_call,
                    "simulated_call": c.simulated_call,
                    "measured_after": c.measured_after,
                    "simulated_after": c.simulated_after,
                }
                for c in self.compactions
            ],
            "median_error": round(self.median_error, 2),
            "p90_error": round(self.p90_error, 2),
        }


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


def _compactions(result: ImportResult, run: Replay, sizes: dict[int, CallFit]) -> list[CompactionFit]:
    """Each compaction named by the call it came before (None: no call came after it)."""
    flat = [e for top in result.draft.events for e in top.flat()]
    # segment k ends with call k + 1; a compaction after the last call has no call to name
    simulated_autos = [flat[event].segment + 1 if event >= 0 else 1 for event, _ in run.compactions()]
    fits: list[CompactionFit] = []
    for segment, trigger, pre in result.draft.compactions:
        call = segment + 1 if segment + 1 in sizes else None
        measured_after = sizes[call].measured if call is not None else None
        if trigger == "manual":
            simulated_after = sizes[call].simulated if call is not None else None
            fits.append(CompactionFit(trigger, call, call, measured_after, simulated_after, pre))
            continue
        nearest = min(simulated_autos, key=lambda s: abs(s - segment - 1), default=None)
        if nearest is not None:
            simulated_autos.remove(nearest)
        simulated_after = sizes[nearest].simulated if nearest in sizes else None
        fits.append(CompactionFit(trigger, call, nearest if nearest in sizes else None, measured_after,
                                  simulated_after, pre))  # fmt: skip
    fits += [
        CompactionFit("auto", None, s if s in sizes else None, None, sizes[s].simulated if s in sizes else None)
        for s in simulated_autos
    ]
    return sorted(fits, key=lambda c: c.measured_call or c.simulated_call or 0)


def _sources(calls: list[CallFit], compactions: list[CompactionFit]) -> list[ErrorSource]:
    """Each call's error put down to the last thing before it that could cause it: the imported sizes
    and start-up, a compaction that fired at another call than in the session, or a compaction's size."""
    marks: list[tuple[int, str]] = []
    for fit in compactions:
        measured, simulated = fit.measured_call, fit.simulated_call
        if measured is not None and simulated is not None and measured != simulated:
            marks.append(
                (min(measured, simulated), f"compaction timing: simulated at call {simulated}, measured at {measured}")
            )
        if measured is None and simulated is None:
            continue
        settled = max(c for c in (measured, simulated) if c is not None)
        after = (
            f" ({fit.measured_after:,} measured, {fit.simulated_after:,} simulated)"
            if fit.measured_after is not None and fit.simulated_after is not None
            else ""
        )
        marks.append((settled, f"the size after the compaction at call {settled}{after}"))
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
    errors = [c.error for c in calls]
    return FidelityReport(
        name, tuple(calls), tuple(compactions), percentile(errors, 0.5), percentile(errors, 0.9),
        tuple(_sources(calls, compactions)),
    )  # fmt: skip


def fidelity(path: Path | str) -> FidelityReport:
    """Import the session at ``path`` and score the engine against its measured calls."""
    result = session_to_scenario(path)
    return fidelity_of(result, result.draft.session.session_id or Path(path).stem)
