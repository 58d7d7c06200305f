"""Test-wide settings. Hypothesis runs without its per-example deadline: CI machines are shared and
a slow moment must not fail a property that holds (the engine's speed is measured in benchmarks/)."""

from hypothesis import settings

settings.register_profile("ctxviz", deadline=None)
settings.load_profile("ctxviz")
