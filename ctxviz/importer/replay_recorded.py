"""The recorded calls of a session whose log records every call (Codex, pi) replayed under the agent's
compaction rules alone, with no scenario: ``fidelity`` reports it beside the engine's replay
(``importer.fidelity_timeline``), as a check of the rules apart from the scenario's sizes; and what the
agent counted (``counts_of``), which the import of its session writes for the engine.

The replay knows only what the agent knew. Between two calls with no compaction between them it grows by
the measured difference (the recorded events' size: fitted, not predicted). After each answer it decides,
from its own size and what the agent could count since, whether the agent compacts; a typed compaction is
an event and is replayed where it was typed. After a compaction its size is the profile's rule for the new
context (the agent's own figure written with the compaction when there is one), never a later call's
usage; from there every call is a prediction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from ctxviz.errors import InputError
from ctxviz.importer.from_timeline import AgentCounts
from ctxviz.recorded import RecordedCall, RecordedCompaction, RecordedSession
from ctxviz.short_forms import with_article

FORMAT = "ctxviz.fidelity/1"


class RecordedRules(Protocol):
    """An agent's compaction rules as a replay of its recorded calls needs them (in its profile)."""

    def compacts(self, session: RecordedSession, size: int, call: RecordedCall) -> bool:
        """Whether the agent compacts after ``call``'s answer, the context being ``size`` at the call."""
        ...

    def own_count(self, size: int, call: RecordedCall) -> int:
        """The agent's own count after ``call``'s answer, the context being ``size`` at the call: what it
        decides to compact from."""
        ...

    def size_after(self, session: RecordedSession, compaction: RecordedCompaction | None) -> int:
        """The new context right after a compaction (``compaction``: the recorded one at that place, if any)."""
        ...

    def typed(self, session: RecordedSession, compaction: RecordedCompaction) -> bool | None:
        """Whether a recorded compaction was typed: the log's word, or, where the log does not say, False/True
        when the agent's automatic rule could/could not have fired there (None: cannot tell)."""
        ...


def rules_for(agent: str) -> RecordedRules:
    from ctxviz.profiles import recorded_rules_of

    rules = recorded_rules_of(agent)
    if rules is None:
        raise InputError(f"no rules for replaying a {agent} session's recorded calls")
    return cast(RecordedRules, rules)


def read_recorded(agent: str, path: Path) -> RecordedSession:
    """The session at ``path`` as ``agent`` recorded it; ``InputError`` for an agent ``fidelity`` cannot
    replay, naming the agent and the command."""
    from ctxviz.importer import IMPORTED_AGENT
    from ctxviz.transcripts.registry import recorded_agents, recorded_reader

    read = recorded_reader(agent)
    if read is None:
        names = ", ".join([IMPORTED_AGENT, *recorded_agents()])
        raise InputError(
            f"{path}: {with_article(agent)} session; `ctxviz fidelity` replays {names} sessions, not {agent}'s"
        )
    return cast(RecordedSession, read(path))


def agent_counts(agent: str, path: Path) -> AgentCounts | None:
    """What the agent counted and typed in the session at ``path``, for its import (None: ``fidelity``
    cannot replay that agent's recorded calls)."""
    from ctxviz.transcripts.registry import recorded_reader

    if recorded_reader(agent) is None:
        return None
    return counts_of(read_recorded(agent, path), rules_for(agent))


def counts_of(session: RecordedSession, rules: RecordedRules) -> AgentCounts:
    """Pure: after each call, how far the agent's own count is from the exact size, what entered before each
    compaction, and the calls its typed compactions followed. The exact size is what the next call
    measured; where a compaction came between, the call's own and what entered before the compaction."""
    after = {c.after_call for c in session.compactions}
    entered = {n: call.added - call.added_after_compaction for n, call in enumerate(session.calls, start=1)
               if n in after}  # fmt: skip
    gaps = {
        n: rules.own_count(call.used, call) - (call.used + entered[n] if n in after else session.calls[n].used)
        for n, call in enumerate(session.calls, start=1)
        if n in after or n < len(session.calls)
    }
    typed = frozenset(c.after_call for c in session.compactions if rules.typed(session, c))
    after_compaction = {n: session.calls[n - 1].added_after_compaction for n in after}
    new_context = tuple(rules.size_after(session, c) for c in session.compactions if c.after_call not in typed)
    return AgentCounts(tuple(c.used for c in session.calls), gaps, entered, after_compaction, typed, new_context)


@dataclass(frozen=True, slots=True)
class CompactionScore:
    measured_call: int  # the call it followed (from 1)
    simulated_call: int | None  # where the replay compacted for it (None: it did not)
    manual: bool | None
    measured_after: int | None  # the first call after it, measured
    simulated_after: int | None
    pre_tokens: int | None

    @property
    def off_by(self) -> int | None:
        return None if self.simulated_call is None else self.simulated_call - self.measured_call

    @property
    def after_error(self) -> float | None:
        if self.measured_after is None or self.simulated_after is None or not self.measured_after:
            return None
        return abs(self.simulated_after - self.measured_after) / self.measured_after * 100


@dataclass(frozen=True, slots=True)
class RecordedReport:
    session: RecordedSession
    simulated: tuple[int, ...]  # each call's size in the replay
    replay_compactions: tuple[int, ...]  # the calls the replay compacted after
    compactions: tuple[CompactionScore, ...]

    @property
    def first_predicted(self) -> int | None:
        """The first call (from 1) the replay predicts: the one after the first compaction."""
        return self.session.compactions[0].after_call + 1 if self.session.compactions else None

    def errors(self, predicted: bool) -> list[float]:
        """Each call's error in % of its measured size: the predicted calls (after the first compaction;
        none without one) or the fitted ones (before it)."""
        first = self.first_predicted
        if predicted and first is None:
            return []
        start, end = (first - 1, None) if predicted and first else (0, first - 1 if first else None)
        pairs = list(zip(self.session.calls, self.simulated, strict=True))[start:end]
        return [abs(s - c.used) / c.used * 100 for c, s in pairs if c.used]

    @property
    def automatic(self) -> list[CompactionScore]:
        """The compactions the rules had to find (a typed one is replayed where it was typed)."""
        return [c for c in self.compactions if not c.manual]

    def next_within(self, percent: float) -> int:
        return sum(1 for c in self.compactions if c.after_error is not None and c.after_error <= percent)

    def to_json(self) -> dict[str, Any]:
        predicted = self.errors(predicted=True)
        fitted = self.errors(predicted=False)
        session = self.session
        automatic = self.automatic
        return {
            "format": FORMAT,
            "agent": session.agent,
            "session": session.session,
            "version": session.version,
            "calls": [
                {"call": n, "measured": c.used, "simulated": s}
                for n, (c, s) in enumerate(zip(session.calls, self.simulated, strict=True), start=1)
            ],
            "compactions": [
                {
                    "trigger": "unknown" if c.manual is None else "manual" if c.manual else "auto",
                    "measured_after_call": c.measured_call,
                    "simulated_after_call": c.simulated_call,
                    "offset": c.off_by,
                    "pre_tokens": c.pre_tokens,
                    "measured_next": c.measured_after,
                    "simulated_next": c.simulated_after,
                    "next_error": _round(c.after_error),
                }
                for c in self.compactions
            ],
            "median_error": _round(percentile(predicted, 0.5)),
            "p90_error": _round(percentile(predicted, 0.9)),
            "predicted": {
                "calls": len(predicted),
                "automatic_compactions": len(automatic),
                "same_call": sum(1 for c in automatic if c.off_by == 0),
                "within_one_call": sum(1 for c in automatic if c.off_by is not None and abs(c.off_by) <= 1),
                "next_calls": sum(1 for c in self.compactions if c.after_error is not None),
                "next_within_5pct": self.next_within(5),
                "next_within_10pct": self.next_within(10),
            },
            "fitted": {
                "calls": len(fitted),
                "median_error": _round(percentile(fitted, 0.5)),
                "p90_error": _round(percentile(fitted, 0.9)),
            },  # fmt: skip
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def percentile(values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile; the median of an even count is the mean of the middle two (None: no values)."""
    if not values:
        return None
    ordered = sorted(values)
    if fraction == 0.5 and len(ordered) % 2 == 0:
        middle = len(ordered) // 2
        return (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _nearest(recorded: dict[int, RecordedCompaction], call: int) -> RecordedCompaction | None:
    """The recorded compaction at ``call`` or one call from it: its own figures describe this one too."""
    for at in (call, call - 1, call + 1):
        if at in recorded:
            return recorded[at]
    return None


def replay(session: RecordedSession, rules: RecordedRules) -> RecordedReport:
    """Pure: the session's calls replayed under ``rules`` and scored."""
    calls = session.calls
    recorded = {c.after_call: c for c in session.compactions}
    typed_at = {c.after_call for c in session.compactions if rules.typed(session, c)}
    simulated: list[int] = []
    compacted_after: list[int] = []
    for n, call in enumerate(calls, start=1):
        if n == 1:
            size = call.used
        else:
            before = calls[n - 2]
            if n - 1 in compacted_after:  # the replay compacted after the call before
                real = recorded.get(n - 1)
                size = rules.size_after(session, _nearest(recorded, n - 1)) + (
                    before.added_after_compaction if real is not None else 0
                )
            elif n - 1 in recorded:  # the agent compacted there and the replay did not: what it could count
                size = simulated[-1] + before.output + before.added
            else:  # the recorded events between two calls: their measured size
                size = simulated[-1] + call.used - before.used
        simulated.append(size)
        if n in typed_at or rules.compacts(session, size, call):
            compacted_after.append(n)
    return RecordedReport(session, tuple(simulated), tuple(compacted_after),
                          _score(session, simulated, compacted_after, rules))  # fmt: skip


def _score(
    session: RecordedSession, simulated: list[int], compacted_after: list[int], rules: RecordedRules
) -> tuple[CompactionScore, ...]:
    left = list(compacted_after)
    scores: list[CompactionScore] = []
    for compaction in session.compactions:
        at = compaction.after_call
        match = min(left, key=lambda c: (abs(c - at), c), default=None)
        if match is not None:
            left.remove(match)
        has_next = at < len(session.calls)
        scores.append(CompactionScore(at, match, rules.typed(session, compaction),
                                      session.calls[at].used if has_next else None,
                                      simulated[at] if has_next else None, compaction.pre_tokens))  # fmt: skip
    return tuple(scores)
