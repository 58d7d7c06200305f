"""The replay: startup, then each scenario event as one step (tagged with the event's index), with
auto-compaction checked before each model call, as Claude Code and its peers check it. Each event kind is
handled by one entry of ``HANDLERS``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxviz.engine import events as handle
from ctxviz.engine.session import EngineSession, M, short
from ctxviz.engine.subagents import child_events, child_scenario
from ctxviz.kinds import BlockKind, CompactionTrigger, EventKind, StepKind
from ctxviz.profiles.base import Background, SessionState
from ctxviz.scenario.event_model import (
    BashEvent,
    ClearEvent,
    CompactEvent,
    Event,
    GlobEvent,
    GrepEvent,
    Note,
    NoteEvent,
    ParallelEvent,
    SubagentEvent,
    ToolEvent,
)
from ctxviz.scenario.measure import Measure
from ctxviz.timeline import Category, Fate, Source, Timeline

# A handler adds what its event brings and returns the step's kind and label (the replay closes the
# step), or None when it closed its own steps (a note, a parallel group, /compact, /clear).
Handler = Callable[[EngineSession, Any, bool], handle.Outcome | None]


def replay(session: EngineSession, events: tuple[Event, ...] | None = None) -> Timeline:
    """Startup, then ``events`` (default: the scenario's)."""
    session.profile.startup.startup(session, "startup")
    for index, event in enumerate(session.scenario.events if events is None else events):
        session.event_index = index
        run_event(session, event)
    return session.finish()


def run_event(
    session: EngineSession, event: Event, spilled: bool = False, last: bool = True, group_call_follows: bool = True
) -> None:
    """One event as one step; ``last`` is False inside a parallel group, whose results all arrive before
    the next model call (so auto-compaction is checked once, after the group, if a call follows it)."""
    if session.blocked is not None and event.kind not in _UNBLOCKING:
        session.note(f"not replayed: {session.blocked}")
        session.close_step(StepKind.NOTE, f"blocked: {event.kind}", note=narration(session, event.note))
        return
    cleared = getattr(event, "cleared", 0)
    if cleared and getattr(session.profile.compaction, "clears_old_results", False):
        clear_old_results(session, cleared)
    outcome = HANDLERS[event.kind](session, event, spilled)
    if outcome is None:
        return
    step_kind, label = outcome
    _refuse_over_window(session)
    session.check_warning()
    session.close_step(step_kind, label, note=narration(session, event.note))
    if last:
        # a gap recorded for the agent whose own count it is (the scenario's); other rules compare the exact size
        own_count = getattr(session.profile.thresholds, "checks_own_count", False) and (
            session.scenario.agent == session.profile.name
        )
        gap = getattr(event, "count_gap", 0) if own_count else 0
        after_event(session, gap, group_call_follows and getattr(event, "call_follows", True))


# what clearing takes: results and the messages around them, never the summary or re-injected content
CLEARABLE = frozenset((BlockKind.FILE_READ, BlockKind.TOOL_OUTPUT, BlockKind.SPILLED_OUTPUT, BlockKind.EDIT,
                       BlockKind.SUBAGENT_RESULT, BlockKind.TOOL_CALL, BlockKind.REPLY, BlockKind.PROMPT,
                       BlockKind.HOOK_OUTPUT, BlockKind.MENTION))  # fmt: skip
_CLEARED = "what is left of the cleared results"


def clear_old_results(session: EngineSession, tokens: int) -> None:
    """Earlier results leave the window, oldest first, until ``tokens`` have gone; what the last one
    removed held beyond that stays as one block, so the window falls by exactly ``tokens``."""
    removed = 0
    for block in session.live():
        if removed >= tokens:
            break
        if block.category is Category.MESSAGES and block.kind in CLEARABLE:
            session.remove(block.id)
            removed += block.tokens
    if removed > tokens:
        session.add(Category.MESSAGES, BlockKind.TOOL_OUTPUT, _CLEARED, removed - tokens, "hidden")
    session.note(f"{min(removed, tokens):,} tokens of earlier results cleared before this call")


_UNBLOCKING = frozenset((EventKind.COMPACT, EventKind.CLEAR, EventKind.NOTE))


def _refuse_over_window(session: EngineSession) -> None:
    """With auto-compaction off, a request over the blocking limit fails as too long: what this event
    brought never reaches the model, and every later request fails the same way until a /compact."""
    limit = session.thresholds
    if limit.autocompact is not None or session.used <= limit.blocking:
        return
    would = session.used
    session.withdraw_added()
    session.blocked = (
        f"the request would hold {would:,} > the blocking limit {limit.blocking:,} with auto-compaction off: "
        "it fails as too long, and so does every later one until /compact"
    )
    session.note(f"blocked: {session.blocked}")


def after_event(session: EngineSession, count_gap: int = 0, call_follows: bool = True) -> None:
    """Before the next model call: auto-compaction when the agent's count (the exact size, off by
    ``count_gap`` where the agent estimates) reaches the threshold. Where more input comes in before the
    call (``call_follows`` False), nothing is checked yet."""
    if session.state.background:
        session.finish_background()
    limit = session.thresholds.autocompact
    if call_follows and limit is not None and session.used + count_gap >= limit:
        compact(session, manual=False, focus=None, summary=None, note=None, count_gap=count_gap)


def compact(
    session: EngineSession,
    *,
    manual: bool,
    focus: str | None,
    summary: Measure | None,
    note: str | None,
    count_gap: int = 0,
) -> None:
    before, threshold = session.used, session.thresholds.autocompact
    if manual:
        session.note(f"/compact at {before:,} tokens" + (f", focus: {focus}" if focus else ""))
    else:
        counted = f"{before + count_gap:,} (its own count; {before:,} exactly)" if count_gap else f"{before:,}"
        session.note(
            f"auto-compaction: {counted} ≥ {threshold or 0:,} ({session.profile.thresholds.formula()}), "
            "checked before the next model call"
        )
    fates = session.profile.compaction.compact(session, manual=manual, focus=focus, summary=summary)
    session.note(f"{before:,} → {session.used:,} tokens")
    if session.used >= before:
        session.note(_why_nothing_freed(fates, before, session.used))
    kind = StepKind.COMPACT if manual else StepKind.AUTO_COMPACT
    label = "/compact" + (f" {focus}" if focus else "") if manual else "auto-compaction"
    trigger = CompactionTrigger.MANUAL if manual else CompactionTrigger.AUTO
    session.close_step(kind, label, note=note, fates=tuple(fates), automatic=not manual, trigger=trigger)
    if manual and threshold is not None and session.used >= threshold:
        compact(session, manual=False, focus=None, summary=None, note=None)  # still over: the next call compacts


def _why_nothing_freed(fates: list[Fate], before: int, after: int) -> str:
    """A compaction exists to free room; when it did not, the reason in its own figures."""
    replaced = sum(f.tokens for f in fates if f.fate in ("summarised", "dropped"))
    grew = f"the window grew by {after - before:,}" if after > before else "nothing was freed"
    if not replaced:
        return f"{grew}: no piece of the history was older than what this compaction keeps, so none was replaced"
    # what stands in the window now in place of the history replaced: the summary and all that came back
    instead = after - (before - replaced)
    return f"{grew}: the {replaced:,} tokens replaced are no more than what took their place ({instead:,})"


def clear(session: EngineSession, note: str | None) -> None:
    """``/clear``: the history is emptied and the session starts over from its startup content."""
    before = session.used
    session.profile.compaction.clear(session)
    # all else starts over; background tasks keep running, and each policy keeps its own memory
    session.state = SessionState(background=session.state.background, policy=session.state.policy)
    session.session_start_hooks("clear")
    session.note(f"/clear: the history is emptied; {before:,} → {session.used:,} tokens")
    session.close_step(StepKind.CLEAR, "/clear", note=note)


def narration(session: EngineSession, note: Note | None) -> str | None:
    """The author's note, if it is about this run's agent (its own ``agents``, else the scenario's
    ``notes_about``)."""
    if note is None:
        return None
    about = note.agents or session.scenario.notes_about
    return note.text if not about or session.profile.name in about else None


def note(session: EngineSession, event: NoteEvent, spilled: bool) -> None:
    text = narration(session, event.note)
    # a note about other agents still takes its step, so every run keeps one step per event
    about = event.note.agents or session.scenario.notes_about
    label = short(text) if text is not None else f"(a note about {', '.join(about)})"
    session.close_step(StepKind.NOTE, label, note=text)


def manual_compact(session: EngineSession, event: CompactEvent, spilled: bool) -> None:
    session.blocked = None
    compact(
        session,
        manual=True,
        focus=event.compact.focus,
        summary=event.compact.summary,
        note=narration(session, event.note),
    )


def clear_event(session: EngineSession, event: ClearEvent, spilled: bool) -> None:
    session.blocked = None
    clear(session, note=narration(session, event.note))


def parallel(session: EngineSession, event: ParallelEvent, spilled: bool = False) -> None:
    """Results of one assistant message share a budget: over it, the largest spill first (frozen)."""
    budget = session.profile.output.turn_budget_chars
    sizes: dict[int, int] = {}
    for n, inner in enumerate(event.parallel):
        tool, size = _result_of(session, inner)
        limit = session.profile.output.limit(tool)
        if size is not None and (limit is None or size.chars <= limit):
            sizes[n] = size.chars
    total = sum(sizes.values())
    forced: set[int] = set()
    for n in sorted(sizes, key=lambda k: (-sizes[k], k)):
        if budget is None or total <= budget:
            break
        forced.add(n)
        total -= sizes[n]
    for n, inner in enumerate(event.parallel):
        run_event(session, inner, n in forced, last=n == len(event.parallel) - 1, group_call_follows=event.call_follows)


def _result_of(session: EngineSession, event: Event) -> tuple[str, Measure | None]:
    """The tool and result size of a parallel call, where the result is known before it runs."""
    tools = session.profile.tools
    if isinstance(event, BashEvent) and not event.bash.background:
        return tools.bash, event.bash.output
    if isinstance(event, ToolEvent):
        return event.tool.name, event.tool.output
    if isinstance(event, GrepEvent):
        return tools.grep, handle.search_size(session, StepKind.GREP, event.grep)
    if isinstance(event, GlobEvent):
        return tools.glob, handle.search_size(session, StepKind.GLOB, event.glob)
    return "", None


def subagent(session: EngineSession, event: SubagentEvent, spilled: bool) -> handle.Outcome:
    spec, p = event.subagent, session.profile
    label = f"{spec.type} subagent"
    if not p.subagents.types:
        return _inline(session, event)
    tool = p.tools.subagent
    task = p.tool_call + spec.prompt.tokens
    session.add(M, BlockKind.TOOL_CALL, f"{tool}({spec.type}): task prompt", task, "brief")
    for hook in session.hooks("PreToolUse", tool):
        session.hook_block(hook, f"PreToolUse:{tool}")
    source = Source(kind=session.source.kind, name=label, path=session.source.path)
    model = spec.model or session.scenario.model
    if model not in session.child_scenarios:
        session.child_scenarios[model] = child_scenario(session.scenario, model)
    child_session = EngineSession(
        session.child_scenarios[model], p, source=source, subagent_type=spec.type, parent=session
    )
    child = replay(child_session, child_events(spec))
    trailer = p.subagents.trailer(spec.type)
    result = spec.returns.tokens + trailer
    work = child.category_totals_at(child.last)[M] - spec.prompt.tokens - spec.returns.tokens
    back = (
        f" and a {trailer}-token footer with its id and usage come back"
        if trailer
        else f" comes back (no footer for {spec.type})"
    )
    why = (
        f"{work:,} tokens of the subagent's work stayed in its own window (peak {child.peak:,}); "
        f"only its answer ({spec.returns.tokens:,}){back}"
    )
    if spec.background:
        session.add(M, BlockKind.TOOL_OUTPUT, f"{label} (started in background)", p.background_launch, "brief")
        session.note(f"runs in the background: a {p.background_launch}-token notice now, its result when it finishes")
        session.state.background.append(
            Background(f"{label} finished", spec.finishes_after + 1, p.notification + result, why)
        )
    else:
        session.output(tool, f"{label} result", Measure.of_tokens(result), spilled, kind=BlockKind.SUBAGENT_RESULT,
                       digest=spec.digest)  # fmt: skip
        session.note(why)
    session.post_tool_hooks(tool)
    session.child = child
    return StepKind.SUBAGENT, label


def _inline(session: EngineSession, event: SubagentEvent) -> handle.Outcome:
    """An agent without subagents does the work itself: the reads and events land in the main window."""
    spec = event.subagent
    session.note(f"{session.profile.name} has no subagents: the {spec.type} task's work happens in the main window")
    for path in spec.reads:
        handle.read_file(session, path)
    for inner in spec.events:
        HANDLERS[inner.kind](session, inner, False)
    session.add(M, BlockKind.REPLY, session.profile.reply_label, spec.returns.tokens, "full")
    return StepKind.SUBAGENT, f"{spec.type} task (inline)"


HANDLERS: dict[EventKind, Handler] = {
    EventKind.PROMPT: handle.prompt,
    EventKind.REPLY: handle.reply,
    EventKind.READ: handle.read,
    EventKind.EDIT: handle.edit,
    EventKind.WRITE: handle.write,
    EventKind.GREP: handle.grep,
    EventKind.GLOB: handle.glob,
    EventKind.BASH: handle.bash,
    EventKind.TOOL: handle.tool,
    EventKind.SUBAGENT: subagent,
    EventKind.SKILL: handle.skill,
    EventKind.PLAN: handle.plan,
    EventKind.COMPACT: manual_compact,
    EventKind.CLEAR: clear_event,
    EventKind.PARALLEL: parallel,
    EventKind.NOTE: note,
}
