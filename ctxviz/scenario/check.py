"""Cross-references a schema cannot check: files, skills and agents that events name must exist, and
profile overrides must name real parameters. Pure: returns (location, message) pairs, all at once."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ctxviz.profiles import PROFILES, Profile
from ctxviz.scenario.model import (
    TOOL_EVENT_KINDS,
    EditEvent,
    ParallelEvent,
    PromptEvent,
    ReadEvent,
    Scenario,
    SkillEvent,
    SubagentEvent,
    WriteEvent,
    event_kind,
)

Problem = tuple[tuple[str | int, ...], str]
BUILTIN_SUBAGENTS = ("general-purpose", "Explore", "Plan", "statusline-setup", "claude-code-guide")


PROFILE_ADAPTER: TypeAdapter[Profile] = TypeAdapter(Profile)
PROFILE_FIELDS = frozenset(field.name for field in dataclasses.fields(Profile))


def resolve_profile(scenario: Scenario) -> Profile:
    """The scenario's agent profile with its overrides applied (assumes ``problems`` found none)."""
    base = PROFILES[scenario.agent]
    if not scenario.profile:
        return base
    return PROFILE_ADAPTER.validate_python({**_as_dict(base), **scenario.profile})


def _as_dict(profile: Profile) -> dict[str, Any]:
    return {field: getattr(profile, field) for field in PROFILE_FIELDS}


def problems(scenario: Scenario) -> list[Problem]:
    found: list[Problem] = []
    if scenario.agent not in PROFILES:
        found.append((("agent",), f"unknown agent {scenario.agent!r}; expected one of {', '.join(PROFILES)}"))
    else:
        found += _profile_problems(scenario)
    known_files = set(scenario.files) | set(scenario.setup.memory)
    for name, entry in (*scenario.files.items(), *scenario.setup.memory.items()):
        where = ("files",) if name in scenario.files else ("setup", "memory")
        for n, target in enumerate(entry.imports):
            if target not in known_files:
                found.append(((*where, name, "imports", n), _unknown_file(target, known_files)))
    skills = {skill.name for skill in scenario.setup.skills}
    agents = {agent.name for agent in scenario.setup.agents}
    found += _event_problems(scenario.events, ("events",), set(scenario.files), skills, agents)
    return found


def _profile_problems(scenario: Scenario) -> list[Problem]:
    found: list[Problem] = []
    for key in scenario.profile:
        if key not in PROFILE_FIELDS:
            found.append((("profile", key), f"unknown profile parameter {key!r}; see `ctxviz schema`"))
    known = {k: v for k, v in scenario.profile.items() if k in PROFILE_FIELDS}
    try:
        PROFILE_ADAPTER.validate_python({**_as_dict(PROFILES[scenario.agent]), **known})
    except ValidationError as error:
        for item in error.errors():
            found.append((("profile", *item["loc"]), item["msg"]))
    return found


def _event_problems(
    events: Iterable[Any], where: tuple[str | int, ...], files: set[str], skills: set[str], agents: set[str]
) -> Iterator[Problem]:
    for n, event in enumerate(events):
        at = (*where, n)
        if isinstance(event, ReadEvent | EditEvent | WriteEvent):
            kind = "read" if isinstance(event, ReadEvent) else "edit" if isinstance(event, EditEvent) else "write"
            path = getattr(event, kind).path
            if path not in files:
                yield (*at, kind), _unknown_file(path, files)
        elif isinstance(event, SkillEvent) and event.skill.name not in skills:
            yield (*at, "skill"), _unknown("skill", event.skill.name, skills, "setup.skills")
        elif isinstance(event, SubagentEvent):
            spec = event.subagent
            if spec.type not in BUILTIN_SUBAGENTS and spec.type not in agents:
                yield (*at, "subagent", "type"), _unknown(
                    "subagent type", spec.type, set(BUILTIN_SUBAGENTS) | agents, "setup.agents"
                )
            for r, path in enumerate(spec.reads):
                if path not in files:
                    yield (*at, "subagent", "reads", r), _unknown_file(path, files)
            yield from _event_problems(spec.events, (*at, "subagent", "events"), files, skills, agents)
        elif isinstance(event, ParallelEvent):
            for p, inner in enumerate(event.parallel):
                if event_kind(inner) not in TOOL_EVENT_KINDS:
                    yield (*at, "parallel", p), (
                        f"only tool calls can run in parallel ({', '.join(TOOL_EVENT_KINDS)}), "
                        f"not {event_kind(inner)}"
                    )
            yield from _event_problems(event.parallel, (*at, "parallel"), files, skills, agents)
        elif isinstance(event, PromptEvent):
            continue  # @mentions of unknown files are plain text, as in Claude Code


def _unknown_file(path: str, files: set[str]) -> str:
    return _unknown("file", path, files, "files")


def _unknown(what: str, name: str, known: set[str], where: str) -> str:
    listed = ", ".join(sorted(known)[:8]) + (", …" if len(known) > 8 else "")
    return f"unknown {what} {name!r}; expected one listed under {where}" + (f" ({listed})" if known else "")
