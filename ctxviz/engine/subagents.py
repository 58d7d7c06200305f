"""A subagent's own story, built from its parent's scenario: its task prompt, its reads and events, its
final answer — never the parent's history. Built without validation (every value was validated as part of
the parent scenario), and from shared pieces: a busy session runs hundreds of subagents."""

from __future__ import annotations

from functools import lru_cache

from ctxviz.scenario.event_model import Event, PromptEvent, PromptSpec, ReadEvent, ReadSpec, ReplyEvent, SubagentSpec
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.model import Scenario


def child_scenario(parent: Scenario, model: str | None) -> Scenario:
    """The subagent's project: the same files, rules, skills and MCP; no auto memory, no custom agents'
    descriptions, no SessionStart hooks; its events are given to the replay separately."""
    setup = parent.setup.model_copy(update={"auto_memory": None, "agents": ()})
    return parent.model_copy(update={"setup": setup, "events": (), "model": model})


def child_events(spec: SubagentSpec) -> tuple[Event, ...]:
    return (_task(spec.type, spec.prompt), *(_read(path) for path in spec.reads), *spec.events, _answer(spec.returns))


@lru_cache(maxsize=256)
def _task(subagent_type: str, size: Measure) -> PromptEvent:
    text = f"Task for the {subagent_type} subagent"
    return PromptEvent.model_construct(prompt=PromptSpec.model_construct(text=text, size=size, visibility="hidden"))


@lru_cache(maxsize=1024)
def _read(path: str) -> ReadEvent:
    return ReadEvent.model_construct(read=ReadSpec.model_construct(path=path))


@lru_cache(maxsize=256)
def _answer(size: Measure) -> ReplyEvent:
    return ReplyEvent.model_construct(reply=size)
