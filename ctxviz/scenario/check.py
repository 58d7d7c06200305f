"""Cross-references a schema cannot check: files, skills and agents that events name must exist (what
a scenario asks of its agent's profile is checked in ``ctxviz.profiles.scenario_fit``).

The checks read the raw document (what YAML gave), not the validated model, so they run even when the
schema finds errors too, and every problem is reported at once. Where a value has the wrong shape the
schema reports it; these checks skip it. Pure: returns (location, message) pairs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ctxviz.kinds import TOOL_EVENT_KINDS, EventKind
from ctxviz.scenario.event_model import event_kind

Location = tuple[str | int, ...]
Problem = tuple[Location, str]
_PATH_KEYS: dict[str, str] = {EventKind.READ: "path", EventKind.EDIT: "path"}
# compared once per event: module constants, as an enum member looked up on its class costs ~75 ns
_WRITE, _SKILL, _SUBAGENT, _PARALLEL = EventKind.WRITE, EventKind.SKILL, EventKind.SUBAGENT, EventKind.PARALLEL


def problems(document: dict[str, Any], subagent_types: set[str]) -> list[Problem]:
    """Every cross-reference problem of a raw scenario document; ``subagent_types``: the types its
    agent knows (its profile's, told by the caller, which opens the profile)."""
    found: list[Problem] = []
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
    known_types = subagent_types | agents
    found += _event_problems(_list(document.get("events")), ("events",), set(files), skills, known_types)
    return found


def _event_problems(
    events: list[Any], where: Location, files: set[str], skills: set[str], known_types: set[str]
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
        elif kind == _WRITE:
            path = value.get("path") if isinstance(value, dict) else value
            creates = isinstance(value, dict) and "content" in value
            if isinstance(path, str) and path not in files:
                if creates:
                    files.add(path)  # later events may read or edit the new file
                else:
                    yield at, f"{path!r} is not under files: a write that creates it needs content: (its size)"
        elif kind == _SKILL:
            name = value.get("name") if isinstance(value, dict) else value
            if isinstance(name, str) and name not in skills:
                yield at, _unknown("skill", name, skills, "setup.skills")
        elif kind == _SUBAGENT and isinstance(value, dict):
            subagent_type = value.get("type", "general-purpose")
            if isinstance(subagent_type, str) and subagent_type not in known_types:
                yield (*at, "type"), _unknown("subagent type", subagent_type, known_types, "setup.agents")
            for r, path in enumerate(_list(value.get("reads"))):
                if isinstance(path, str) and path not in files:
                    yield (*at, "reads", r), _unknown("file", path, files, "files")
            yield from _event_problems(_list(value.get("events")), (*at, "events"), files, skills, known_types)
        elif kind == _PARALLEL:
            inner = _list(value)
            for p, call in enumerate(inner):
                if event_kind(call) not in (*TOOL_EVENT_KINDS, None):
                    yield (
                        (*at, p),
                        f"only tool calls can run in parallel ({', '.join(TOOL_EVENT_KINDS)}), not {event_kind(call)}",
                    )
            yield from _event_problems(inner, at, files, skills, known_types)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _unknown(what: str, name: str, known: set[str], where: str) -> str:
    listed = ", ".join(sorted(known)[:8]) + (", …" if len(known) > 8 else "")
    return f"unknown {what} {name!r}; expected one listed under {where}" + (f" ({listed})" if known else "")
