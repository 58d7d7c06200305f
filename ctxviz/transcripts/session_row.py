"""One session's row in ``ctxviz sessions`` (and ``--json``), for every agent, apart from the reading
that makes it, so that a run served from the summary index imports nothing that reads transcripts.

Named tuples, not dataclasses: a run served from the index imports nothing else that needs
``dataclasses``, whose import (it loads ``inspect``) was ~7 ms of that run's ~45."""

from __future__ import annotations

from typing import Any, NamedTuple


class Compaction(NamedTuple):
    trigger: str  # "auto", "manual" or "unknown" (the transcript does not say)
    pre_tokens: int | None  # the size before, as the agent recorded it (None: not recorded)
    at_call: int  # the calls before it


class SessionSummary(NamedTuple):
    """One row of ``ctxviz sessions``. ``measured`` is False when peak and last are estimates (an agent
    that records no per-call usage)."""

    agent: str
    session: str
    project: str
    file: str
    started: str | None
    ended: str | None
    models: tuple[str, ...]
    calls: int
    first: int
    peak: int
    last: int
    compactions: tuple[Compaction, ...]
    subagents: int
    bytes: int
    problems: tuple[str, ...] = ()
    measured: bool = True
    parent: str | None = None  # the session that started this one, when it is a subagent's own
    unmeasured_calls: int = 0  # calls whose usage is missing: not in calls, peak or last

    def as_json(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "session": self.session,
            "project": self.project,
            "file": self.file,
            "started": self.started,
            "ended": self.ended,
            "models": list(self.models),
            "calls": self.calls,
            "peak": self.peak,
            "last": self.last,
            "measured": self.measured,
            "compactions": [
                {"trigger": c.trigger, "pre_tokens": c.pre_tokens, "at_call": c.at_call} for c in self.compactions
            ],
            "subagents": self.subagents,
            "bytes": self.bytes,
            "unmeasured_calls": self.unmeasured_calls,
        }

    @classmethod
    def from_dict(cls, data: Any) -> SessionSummary | None:
        """A row written by ``as_dict``, checked field by field; None when anything is off (a row from
        a cache file is never trusted)."""
        try:
            compactions = tuple(Compaction(t, p, a) for t, p, a in data["compactions"])
            row = cls(**{**data, "models": tuple(data["models"]), "compactions": compactions,
                         "problems": tuple(data["problems"])})  # fmt: skip
        except (KeyError, TypeError, ValueError):
            return None
        return row if row.well_typed() else None

    def as_dict(self) -> dict[str, object]:
        """Every field, as plain JSON values (for the summary index)."""
        return {
            **self._asdict(),
            "models": list(self.models),
            "compactions": [[c.trigger, c.pre_tokens, c.at_call] for c in self.compactions],
            "problems": list(self.problems),
        }

    def well_typed(self) -> bool:
        texts = (self.agent, self.session, self.project, self.file)
        numbers = (self.calls, self.first, self.peak, self.last, self.subagents, self.bytes, self.unmeasured_calls)
        optional = (self.started, self.ended, self.parent)
        return (
            all(isinstance(t, str) for t in (*texts, *self.models, *self.problems))
            and all(type(n) is int and n >= 0 for n in numbers)
            and self.first <= self.peak
            and self.last <= self.peak  # what a row worked out from calls holds
            and type(self.measured) is bool
            and all(t is None or isinstance(t, str) for t in optional)
            and all(isinstance(c.trigger, str) and type(c.at_call) is int and c.at_call >= 0 for c in self.compactions)
            and all(c.pre_tokens is None or type(c.pre_tokens) is int and c.pre_tokens >= 0 for c in self.compactions)
        )
