"""Cross-references a schema cannot check: files, skills and agents that events name must exist, and
profile overrides must name real parameters with values of the right type.

The checks read the raw document (what YAML gave), not the validated model, so they run even when the
schema finds errors too, and every problem is reported at once. Where a value has the wrong shape the
schema reports it; these checks skip it. Pure: returns (location, message) pairs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ctxviz.profiles import PROFILES, Profile
from ctxviz.scenario.model import TOOL_EVENT_KINDS, Scenario, event_kind

Location = tuple[str | int, ...]
Problem = tuple[Location, str]
BUILTIN_SUBAGENTS = ("general-purpose", "Explore", "Plan", "statusline-setup", "claude-code-guide")
PROFILE_ADAPTER: TypeAdapter[Profile] = TypeAdapter(Profile)
PROFILE_FIELDS = frozenset(field.name for field in dataclasses.fields(Profile))
_PATH_KEYS = {"read": "path", "edit": "path", "write": "path"}


def resolve_profile(scenario: Scenario) -> Profile:
    """The scenario's agent profile with its overrides applied (assumes ``problems`` found none)."""
    base = PROFILES[scenario.agent]
    if not scenario.profile:
        return base
    return PROFILE_ADAPTER.validate_python({**_as_dict(base), **scenario.profile})


def _as_dict(profile: Profile) -> dict[str, Any]:
    return {field: getattr(profile, field) for field in PROFILE_FIELDS}


def problems(document: dict[str, Any]) -> list[Problem]:
    """Every cross-reference problem of a raw scenario document."""
    found: list[Problem] = []
    agent = document.get("agent", "claude-code")
    if agent not in PROFILES:
        found.append((("agent",), f"unknown agent {agent!r}; expected one of {', '.join(PROFILES)}"))
    else:
        found += _profile_problems(PROFILES[agent], _mapping(document.get("profile")))
    setup = _mapping(document.get("setup"))
    files = _mapping(document.get("files"))
    memory = _mapping(setup.get("memory"))
    known_files = set(files) | set(memory)
    for where, entries in ((("files",), files), (("setup", "memory"), memory)):
        for name, entry in entries.items():
            for n, target in enumerate(_list(_mapping(entry).get("imports"))):
                if isinstance(target, str) and target not in known_files:
                    found.append(((*where, name, "imports", n), _unknown("file", target, known_files, "files")))
    skills = {s["name"] for s in _list(setup.get("skills")) if isinstance(s, dict) and isinstance(s.get("name"), str)}
    agents = {a["name"] for a in _list(setup.get("agents")) if isinstance(a, dict) and isinstance(a.get("name"), str)}
    found += _event_problems(_list(document.get("events")), ("events",), set(files), skills, agents)
    return found


def _profile_problems(base: Profile, overrides: dict[str, Any]) -> list[Problem]:
    found: list[Problem] = [
        (("profile", key), f"unknown profile parameter {key!r}; see `ctxviz schema`")
        for key in overrides
        if key not in PROFILE_FIELDS
    ]
    known = {k: v for k, v in overrides.items() if k in PROFILE_FIELDS}
    try:
        PROFILE_ADAPTER.validate_python({**_as_dict(base), **known})
    except ValidationError as error:
        found += [(("profile", *item["loc"]), item["msg"]) for item in error.errors()]
    return found


def _event_problems(
    events: list[Any], where: Location, files: set[str], skills: set[str], agents: set[str]
) -> Iterator[Problem]:
    for n, event in enumerate(events):
        kind = event_kind(event)
        if kind is None:
            continue  # the schema says what is wrong with it
        at, value = (*where, n, kind), event[kind]
        if kind in _PATH_KEYS:
            path = value.get(_PATH_KEYS[kind]) if isinstance(value, dict) else value
            if isinstance(path, str) and path not in files:
                yield at, _unknown("file", path, files, "files")
        elif kind == "skill":
            name = value.get("name") if isinstance(value, dict) else value
            if isinstance(name, str) and name not in skills:
                yield at, _unknown("skill", name, skills, "setup.skills")
        elif kind == "subagent" and isinstance(value, dict):
            known_types = set(BUILTIN_SUBAGENTS) | agents
            subagent_type = value.get("type", "general-purpose")
            if isinstance(subagent_type, str) and subagent_type not in known_types:
                yield (*at, "type"), _unknown("subagent type", subagent_type, known_types, "setup.agents")
            for r, path in enumerate(_list(value.get("reads"))):
                if isinstance(path, str) and path not in files:
                    yield (*at, "reads", r), _unknown("file", path, files, "files")
            yield from _event_problems(_list(value.get("events")), (*at, "events"), files, skills, agents)
        elif kind == "parallel":
            inner = _list(value)
            for p, call in enumerate(inner):
                if event_kind(call) not in (*TOOL_EVENT_KINDS, None):
                    yield (
                        (*at, p),
                        (
                            f"only tool calls can run in parallel ({', '.join(TOOL_EVENT_KINDS)}), not {event_kind(call)}"
                        ),
                    )
            yield from _event_problems(inner, at, files, skills, agents)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _unknown(what: str, name: str, known: set[str], where: str) -> str:
    listed = ", ".join(sorted(known)[:8]) + (", …" if len(known) > 8 else "")
    return f"unknown {what} {name!r}; expected one listed under {where}" + (f" ({listed})" if known else "")
