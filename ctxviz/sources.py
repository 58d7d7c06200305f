"""Open any supported input as a Timeline: a scenario (YAML) or an agent's session file. The I/O edge."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ctxviz.allocation import without_cycle_collection
from ctxviz.timeline import Timeline

DEFAULT_SCENARIO = "explore-context-window"
SCENARIO_SUFFIXES = (".yaml", ".yml")
TRANSCRIPT_SUFFIXES = (".jsonl",)


def open_timeline(
    path: str | Path | None = None, *, tokenizer: str = "cl100k", allow_outside: bool = False, agent: str | None = None
) -> Timeline:
    """The timeline of ``path`` (None: the built-in default scenario), a scenario replayed under ``agent``
    (default: the scenario's own). Raises ``InputError``."""
    from ctxviz.errors import InputError

    if agent is not None and path is not None and Path(path).suffix in TRANSCRIPT_SUFFIXES:
        raise InputError(f"{path}: --agent replays a scenario; a transcript is read as it was recorded")

    display = str(path) if path is not None else f"scenarios/{DEFAULT_SCENARIO}.yaml"
    path = Path(path) if path is not None else builtin_scenario(DEFAULT_SCENARIO)
    if path.suffix in TRANSCRIPT_SUFFIXES or (path.suffix not in SCENARIO_SUFFIXES and _is_session(path)):
        from ctxviz.transcripts import open_transcript

        return open_transcript(path)
    if path.suffix in SCENARIO_SUFFIXES or not path.exists():
        from ctxviz.engine import simulate
        from ctxviz.scenario.load import load_scenario
        from ctxviz.tokens import LazyCounter

        if not path.exists() and (named := builtin_scenario(path.name)).exists():
            path, display = named, f"scenarios/{named.name}"
        counter = LazyCounter(tokenizer)
        scenario = load_scenario(path, counter=counter, allow_outside=allow_outside)
        with without_cycle_collection():  # replace() derives the timeline's tables again: no GC passes over it
            timeline = simulate(scenario, agent=agent, source_path=display)
            reason = counter.reason
            notices = (*timeline.notices, f"text counted as chars/4: {reason}") if reason else timeline.notices
            return replace(timeline, tokenizer=counter.description, notices=notices)
    raise InputError(f"{path}: not a scenario (.yaml) or an agent's session file")


def _is_session(path: Path) -> bool:
    """An agent's session file in another format than JSONL (gemini-cli's .json chats, opencode's files)."""
    from ctxviz.transcripts.registry import reader_for

    return path.is_file() and reader_for(path) is not None


def builtin_dir() -> Path:
    return Path(__file__).parent / "scenarios"


def builtin_scenario(name: str) -> Path:
    """A built-in scenario by name (``one-million`` or ``one-million.yaml``)."""
    stem = name.removesuffix(".yaml").removesuffix(".yml")
    return builtin_dir() / f"{stem}.yaml"


def builtin_scenarios() -> list[Path]:
    return sorted(builtin_dir().glob("*.yaml"))
