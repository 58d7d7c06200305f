"""Open any supported input as a Timeline: a scenario (YAML) or a transcript (JSONL). The I/O edge."""

from __future__ import annotations

from pathlib import Path

from ctxviz.timeline import Timeline

DEFAULT_SCENARIO = "explore-context-window"
SCENARIO_SUFFIXES = (".yaml", ".yml")
TRANSCRIPT_SUFFIXES = (".jsonl",)


def open_timeline(
    path: str | Path | None = None, *, tokenizer: str = "cl100k", allow_outside: bool = False
) -> Timeline:
    """The timeline of ``path`` (None: the built-in default scenario). Raises ``InputError``."""
    from ctxviz.errors import InputError

    if path is None:
        path = builtin_scenario(DEFAULT_SCENARIO)
    path = Path(path)
    if path.suffix in TRANSCRIPT_SUFFIXES:
        from ctxviz.transcripts import open_transcript

        return open_transcript(path)
    if path.suffix in SCENARIO_SUFFIXES or not path.exists():
        from ctxviz.engine import simulate
        from ctxviz.scenario.load import load_scenario
        from ctxviz.tokens import get_counter

        if not path.exists() and (named := builtin_scenario(path.name)).exists():
            path = named
        scenario = load_scenario(path, counter=get_counter(tokenizer), allow_outside=allow_outside)
        return simulate(scenario, source_path=str(path))
    raise InputError(f"{path}: not a scenario (.yaml) or a transcript (.jsonl)")


def builtin_dir() -> Path:
    return Path(__file__).parent / "scenarios"


def builtin_scenario(name: str) -> Path:
    """A built-in scenario by name (``one-million`` or ``one-million.yaml``)."""
    stem = name.removesuffix(".yaml").removesuffix(".yml")
    return builtin_dir() / f"{stem}.yaml"


def builtin_scenarios() -> list[Path]:
    return sorted(builtin_dir().glob("*.yaml"))
