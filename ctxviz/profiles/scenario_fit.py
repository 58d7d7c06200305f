"""What a scenario asks of its agent's profile, checked where the scenario is opened: that the agent
exists, that the profile numbers it overrides exist with values of the right type, and that its window
leaves room for the profile's reserves. Also the profile a scenario runs under, and the scenario format's
JSON schema with every profile's numbers. Pure: returns (location, message) pairs."""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ctxviz.profiles import DEFAULT_AGENT, PROFILES, Profile, get_profile
from ctxviz.scenario.check import Location, Problem
from ctxviz.scenario.model import Scenario


def resolve_profile(scenario: Scenario, agent: str | None = None) -> Profile:
    """The profile of ``agent`` (default: the scenario's, else claude-code) with the scenario's overrides
    of its numbers applied (those it has no number for are left out). Raises ``UnknownAgent``."""
    profile = get_profile(agent or scenario.agent or DEFAULT_AGENT)
    return profile.with_overrides(scenario.profile) if scenario.profile else profile


def numbers_adapter(profile: Profile) -> TypeAdapter[Any]:
    return TypeAdapter(type(profile.numbers))


def scenario_schema() -> dict[str, Any]:
    """The scenario format's JSON schema, with ``profile:`` listing every profile's numbers."""
    document = Scenario.model_json_schema()
    properties: dict[str, Any] = {}
    for profile in PROFILES.values():
        numbers = numbers_adapter(profile).json_schema()
        properties.update(_inline_refs(numbers["properties"], numbers.get("$defs", {})))
    document["properties"]["profile"]["properties"] = properties
    document["properties"]["profile"]["additionalProperties"] = False
    return document


def _inline_refs(schema: Any, defs: dict[str, Any]) -> Any:
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inline_refs(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
        return {k: _inline_refs(v, defs) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_inline_refs(v, defs) for v in schema]
    return schema


def agent_problems(document: dict[str, Any]) -> tuple[list[Problem], set[str]]:
    """The problems of a raw document's agent and profile overrides, and the subagent types its agent
    knows (none when the agent is unknown)."""
    agent = document.get("agent", DEFAULT_AGENT)
    if agent not in PROFILES:
        return [(("agent",), f"unknown agent {agent!r}; expected one of {', '.join(PROFILES)}")], set()
    overrides = document.get("profile")
    found = _number_problems(PROFILES[agent], overrides if isinstance(overrides, dict) else {})
    return found, set(PROFILES[agent].subagents.types)


def _number_problems(base: Profile, overrides: dict[str, Any]) -> list[Problem]:
    names = base.number_names()
    found: list[Problem] = [
        (("profile", key), f"unknown profile parameter {key!r}; see `ctxviz schema`")
        for key in overrides
        if key not in names
    ]
    known = {k: v for k, v in overrides.items() if k in names}
    try:
        current = {f.name: getattr(base.numbers, f.name) for f in dataclasses.fields(base.numbers)}
        numbers_adapter(base).validate_python({**current, **known})
    except ValidationError as error:
        found += [(("profile", *item["loc"]), item["msg"]) for item in error.errors()]
    return found


def window_problems(scenario: Scenario) -> list[Problem]:
    """A window too small for the profile's reserves would put the thresholds at or below zero."""
    profile = resolve_profile(scenario)
    spec = profile.model_window(scenario.model, scenario.window)
    limits = profile.thresholds.thresholds(spec.window, spec.max_output, scenario.autocompact, scenario.autocompact_pct)
    floor = limits.blocking if limits.autocompact is None else min(limits.blocking, limits.autocompact)
    if floor > 0:
        return []
    cap = scenario.autocompact
    if not isinstance(cap, bool) and cap < spec.window and limits.autocompact is not None:
        needed = cap - limits.autocompact + 1
        return [
            (
                ("autocompact",),
                f"{cap:,} is too small: {profile.name} keeps {needed - 1:,} tokens in reserve "
                f"below it, so auto-compaction would start at {limits.autocompact:,}; the smallest is {needed:,}",
            )
        ]
    needed = spec.window - floor + 1
    where: Location = ("window",) if scenario.window else ("model",)
    return [
        (
            where,
            f"a {spec.window:,}-token window is smaller than the {needed - 1:,} tokens {profile.name} "
            f"keeps in reserve; the smallest window it can run is {needed:,}",
        )
    ]
