"""Subagents (MECHANICS.md §3): a child session with its own window; the parent keeps its tool call and
receives only the final text (plus a metadata trailer, except for Explore and Plan)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxviz.scenario.model import PromptEvent, PromptSpec, ReadEvent, ReadSpec, ReplyEvent, Scenario, SubagentEvent
from ctxviz.scenario.sizes import Measure
from ctxviz.timeline import Category, Source

if TYPE_CHECKING:
    from ctxviz.engine.session import Session


def child_scenario(parent: Scenario, event: SubagentEvent) -> Scenario:
    """The subagent's own story: its task prompt, its reads and events, and its final answer."""
    spec = event.subagent
    # built without validation: every value here was validated as part of the parent scenario
    events = (
        PromptEvent.model_construct(
            prompt=PromptSpec.model_construct(
                text=f"Task for the {spec.type} subagent", size=spec.prompt, visibility="hidden"
            )
        ),
        *(ReadEvent.model_construct(read=ReadSpec.model_construct(path=path)) for path in spec.reads),
        *spec.events,
        ReplyEvent.model_construct(reply=spec.returns),
    )
    # no parent history, no auto memory, no SessionStart hooks; the same files, rules, skills and MCP
    setup = parent.setup.model_copy(update={"auto_memory": None, "agents": ()})
    return parent.model_copy(
        update={"setup": setup, "events": events, "model": spec.model or parent.model, "name": f"{spec.type} subagent"}
    )


def subagent(session: Session, event: SubagentEvent, spilled: bool) -> tuple[str, str]:
    from ctxviz.engine.session import Background, Session

    spec, p, rec = event.subagent, session.profile, session.rec
    label = f"{spec.type} subagent"
    rec.add(
        Category.MESSAGES, "tool-call", f"Agent({spec.type}): task prompt", p.tool_call + spec.prompt.tokens, "brief"
    )
    for hook in session.hooks("PreToolUse", "Agent"):
        session.hook_block(hook, "PreToolUse:Agent")
    child = Session(
        child_scenario(session.scenario, event),
        p,
        source=Source(kind=session.source.kind, name=label, path=session.source.path),
        subagent_type=spec.type,
        parent=session,
    ).run()
    trailer = 0 if spec.type in p.subagent_trailerless_types else p.subagent_trailer
    result = spec.returns.tokens + trailer
    work = child.category_totals_at(child.last)[Category.MESSAGES] - spec.prompt.tokens - spec.returns.tokens
    why = (
        f"{work:,} tokens of the subagent's work stayed in its own window (peak {child.peak:,}); "
        f"only its answer ({spec.returns.tokens:,})"
        + (
            f" and a {trailer}-token trailer (agentId, usage) come back"
            if trailer
            else f" comes back (no trailer for {spec.type})"
        )
    )
    if spec.background:
        rec.add(Category.MESSAGES, "tool-output", f"{label} (started in background)", p.background_launch, "brief")
        rec.note(f"runs in the background: a {p.background_launch}-token notice now, its result when it finishes")
        session.state.background.append(
            Background(f"{label} finished", spec.finishes_after + 1, p.notification + result, why)
        )
    else:
        session.output("Agent", f"{label} result", Measure.of_tokens(result), spilled, kind="subagent-result")
        rec.note(why)
    session.post_tool_hooks("Agent")
    session.child = child
    return "subagent", label
