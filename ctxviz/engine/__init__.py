"""The scenario engine: pure, deterministic — the same scenario and profile give the same Timeline."""

from __future__ import annotations

from ctxviz.allocation import without_cycle_collection
from ctxviz.engine.session import Session
from ctxviz.scenario.check import resolve_profile
from ctxviz.scenario.model import Scenario
from ctxviz.timeline import Source, Timeline


def simulate(scenario: Scenario, *, source_path: str | None = None) -> Timeline:
    """Replay ``scenario`` under its agent's profile (with the scenario's overrides)."""
    source = Source(kind="scenario", name=scenario.name, path=source_path, summary=scenario.summary or None)
    with without_cycle_collection():
        return Session(scenario, resolve_profile(scenario), source=source).run()


__all__ = ["simulate"]
