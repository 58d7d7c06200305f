"""Test-wide settings. Hypothesis runs without its per-example deadline: CI machines are shared and
a slow moment must not fail a property that holds (the engine's speed is measured in benchmarks/)."""

from hypothesis import settings

settings.register_profile("ctxviz", deadline=None)
settings.load_profile("ctxviz")


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's own cache folder (the sessions summary index lives there)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
