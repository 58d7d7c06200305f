"""What every reader shares once it has a Timeline: the ``sessions`` row, the timestamps, the
one-line problem count, the message for a session with nothing measured. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from ctxviz.errors import InputError
from ctxviz.kinds import COMPACTION_STEP_KINDS, CompactionTrigger, StepKind
from ctxviz.timeline import Timeline
from ctxviz.transcripts.protocol import Compaction, NoUsage, SessionRef, SessionSummary


def is_time(value: object) -> bool:
    """Whether ``value`` is an ISO 8601 timestamp (sanitised fixtures write placeholders instead)."""
    if not isinstance(value, str) or len(value) < 10:
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def from_millis(value: object) -> str | None:
    """An ISO timestamp (UTC) from milliseconds since the epoch, as opencode and pi write them."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < 1e14:
        return None
    moment = datetime.fromtimestamp(value / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def skipped_notice(problems: Sequence[str]) -> tuple[str, ...]:
    return (f"{len(problems)} damaged or unknown records skipped",) if problems else ()


def nothing_measured(path: object, agent: str, why: str) -> InputError:
    return NoUsage(f"{path}: {agent} session with no usable token counts: {why}")


@dataclass(frozen=True, slots=True)
class RowDetails:
    """What a ``sessions`` row says beside its sizes: the project, when, the models, and what else the
    reader counted."""

    project: str
    started: str | None
    ended: str | None
    models: Sequence[str]
    subagents: int = 0
    problems: Sequence[str] = ()
    measured: bool = True
    size: int | None = None  # on disk, when not the file's size (a session over many files, or in a database)


def summary_row(ref: SessionRef, timeline: Timeline, details: RowDetails) -> SessionSummary:
    """The ``sessions`` row of a timeline (each compaction's size before as the agent recorded it, from its
    step)."""
    calls: list[int] = []
    compactions: list[Compaction] = []
    for step in timeline.steps:
        if step.kind == StepKind.API_CALL:
            calls.append(step.used)
        elif step.kind in COMPACTION_STEP_KINDS:
            compactions.append(compaction_at(step.trigger, step.pre_tokens, len(calls)))
    sizes = calls or [s.used for s in timeline.steps]
    return numbers_row(ref, timeline.agent, timeline.source.name, sizes, compactions, details, calls=len(calls))


def compaction_at(trigger: CompactionTrigger | None, pre_tokens: int | None, calls_before: int) -> Compaction:
    """A row's compaction: its trigger (unknown when not recorded), size before, and the calls before it."""
    return Compaction((trigger or CompactionTrigger.UNKNOWN).value, pre_tokens, calls_before)


def numbers_row(
    ref: SessionRef,
    agent: str,
    session: str,
    sizes: Sequence[int],
    compactions: Sequence[Compaction],
    details: RowDetails,
    *,
    calls: int | None = None,
) -> SessionSummary:
    """The ``sessions`` row of a session's sizes in order (each call's, or each step's when it has no
    call: ``calls`` then says 0) and compactions, for a reader that counts them without a timeline."""
    return SessionSummary(
        agent=agent,
        session=session,
        project=details.project,
        file=str(ref.path),
        started=details.started,
        ended=details.ended,
        models=tuple(details.models),
        calls=len(sizes) if calls is None else calls,
        first=sizes[0] if sizes else 0,
        peak=max(sizes, default=0),
        last=sizes[-1] if sizes else 0,
        compactions=tuple(compactions),
        subagents=details.subagents,
        bytes=ref.size if details.size is None else details.size,
        problems=tuple(details.problems),
        measured=details.measured,
    )
