"""The timeline and the ``sessions`` row of a parsed rollout (what it says is read in ``codex.rollout``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ctxviz.kinds import AgentName
from ctxviz.transcripts.codex.rollout import OVERHEAD_LABEL, Parsed
from ctxviz.transcripts.protocol import MODEL_NOT_RECORDED, SessionRef, SessionSummary, counted
from ctxviz.transcripts.protocol import Compaction as SessionCompaction

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline


def _refuse_unmeasured(state: Parsed, path: Path) -> None:
    """``NoUsage`` when the rollout recorded no call's usage: nothing to show."""
    from ctxviz.transcripts.assemble import Call
    from ctxviz.transcripts.rows import nothing_measured

    if not any(isinstance(e, Call) for e in state.events):
        why = "no token_count events with usage"
        if state.turn_usage:
            why += " (its turn.completed usage is summed over a turn, not the context at a call)"
        if state.zero_counts:
            why += f" ({state.zero_counts} with all-zero usage)"
        raise nothing_measured(path, AgentName.CODEX, why)


def row(state: Parsed, ref: SessionRef) -> SessionSummary:
    """Pure: the ``sessions`` row of a rollout parsed ``counting`` (the same calls and compactions its
    timeline's steps would be, without building it)."""
    from ctxviz.transcripts.assemble import Call, Compaction
    from ctxviz.transcripts.rows import RowDetails, compaction_at, numbers_row

    _refuse_unmeasured(state, ref.path)
    calls: list[int] = []
    compactions: list[SessionCompaction] = []
    for event in state.events:
        if isinstance(event, Call):
            calls.append(event.used)
        elif isinstance(event, Compaction):
            compactions.append(compaction_at(event.trigger, event.pre_tokens, len(calls)))
    details = RowDetails(state.cwd or "", state.started, state.ended, state.models, subagents=state.subagents,
                         problems=state.problems)  # fmt: skip
    found = numbers_row(ref, AgentName.CODEX, state.session or ref.path.stem, calls, compactions, details)
    return found._replace(parent=state.parent)


def build(state: Parsed, path: Path) -> Timeline:
    """Pure: the Timeline of a parsed rollout (``InputError`` when it recorded no usage)."""
    from ctxviz.profiles.codex import NUMBERS, compaction_limit
    from ctxviz.transcripts.assemble import assemble, transcript_timeline
    from ctxviz.transcripts.rows import skipped_notice

    _refuse_unmeasured(state, path)
    assembled = assemble(state.events, OVERHEAD_LABEL)
    notices = list(skipped_notice(state.problems))
    window = state.window
    if window is None:
        window = NUMBERS.window * NUMBERS.effective_percent // 100  # what Codex reports for its default model
        notices.append(f"the rollout records no model_context_window: the window {window:,} is a guess")
    autocompact = compaction_limit(NUMBERS, window)  # Codex's default for the window the rollout reports
    notices.append(f"auto-compaction assumed at {autocompact:,} (Codex's default, 90% of the model's "
                   "window); a configured model_auto_compact_token_limit is not recorded")  # fmt: skip
    if state.reordered:
        notices.append("the rollout's lines are not in time order: read in the order of their timestamps")
    if state.repeats:
        notices.append(f"{state.repeats} repeated token_count events (same totals) counted once")
    if state.zero_counts:
        notices.append(
            f"{counted(state.zero_counts, 'token_count event', 'token_count events')} with all-zero usage ignored"
        )
    return transcript_timeline(AgentName.CODEX, state.session or path.stem, str(path), state.cwd,
                               model=state.model or MODEL_NOT_RECORDED, window=window, autocompact=autocompact,
                               assembled=assembled, notices=notices)  # fmt: skip
