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


@pytest.fixture
def ctxviz_cli():  # noqa: ANN201 (click's Result, imported only where a test invokes the CLI)
    """``ctxviz_cli(*args, env=…, width=…)``: the command line run in-process, its Result (exit code,
    stdout and stderr apart)."""
    from click.testing import CliRunner

    from ctxviz.cli import main

    def invoke(*args: str, env: dict[str, str] | None = None, width: int = 80):  # noqa: ANN202
        return CliRunner().invoke(main, list(args), env=env, terminal_width=width)

    return invoke
