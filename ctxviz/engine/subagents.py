"""A subagent's own story, built from its parent's scenario: its task prompt, its reads and events, its
final answer — never the parent's history."""

from __future__ import annotations

from ctxviz.scenario.model import PromptEvent, PromptSpec, ReadEvent, ReadSpec, ReplyEvent, Scenario, SubagentEvent


def child_scenario(parent: Scenario, event: SubagentEvent) -> Scenario:
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
