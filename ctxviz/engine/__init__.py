"""The scenario engine: pure, deterministic, agent-neutral — the same scenario and profile give the same
Timeline. Every agent-specific rule and number comes from the profile."""

from __future__ import annotations

from ctxviz.engine.replay import replay
from ctxviz.engine.session import EngineSession
from ctxviz.profiles import Profile
from ctxviz.profiles.scenario_fit import resolve_profile
from ctxviz.scenario.model import Scenario
from ctxviz.timeline import Source, Timeline


def simulate(
    scenario: Scenario, *, agent: str | None = None, profile: Profile | None = None, source_path: str | None = None
) -> Timeline:
    """Replay ``scenario`` under ``profile`` (given), or the profile of ``agent`` / the scenario's agent
    with the scenario's overrides. The timeline's ``agent`` names the profile. Raises ``UnknownAgent``."""
    chosen = profile if profile is not None else resolve_profile(scenario, agent)
    source = Source(kind="scenario", name=scenario.name, path=source_path, summary=scenario.summary or None)
    notices: tuple[str, ...] = ()
    if profile is None and (unused := sorted(set(scenario.profile) - chosen.number_names())):
        notices = (f"profile: {', '.join(unused)} not used: {chosen.name} has no such number",)
    return replay(EngineSession(scenario, chosen, source=source, notices=notices))


__all__ = ["resolve_profile", "simulate"]
