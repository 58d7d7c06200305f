"""Open any supported input: as a Timeline (a scenario replayed, or an agent's session file as recorded),
or as a scenario to replay (``open_replayable``: what ``compare`` and the what-ifs run). The I/O edge."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ctxviz.timeline import Timeline
from ctxviz.transcripts.packed import COMPRESSED  # a session file may be gzip-compressed: x.jsonl.gz reads as x.jsonl

if TYPE_CHECKING:
    from ctxviz.importer import MeasuredCall
    from ctxviz.scenario.model import Scenario

DEFAULT_SCENARIO = "explore-context-window"
SCENARIO_SUFFIXES = (".yaml", ".yml")
TRANSCRIPT_SUFFIXES = (".jsonl",)


def is_transcript_name(path: str | Path) -> bool:
    """A session file by its name: .jsonl, or .jsonl.gz."""
    path = Path(path)
    suffix = Path(path.stem).suffix if path.suffix == COMPRESSED else path.suffix
    return suffix in TRANSCRIPT_SUFFIXES


def open_timeline(
    path: str | Path | None = None, *, tokenizer: str = "cl100k", allow_outside: bool = False, agent: str | None = None
) -> Timeline:
    """The timeline of ``path`` (None: the built-in default scenario), a scenario replayed under ``agent``
    (default: the scenario's own). Raises ``InputError``."""
    from ctxviz.errors import InputError

    if agent is not None and path is not None and is_transcript_name(path):
        raise InputError(f"{path}: --agent replays a scenario; a transcript is read as it was recorded")

    path, display = _given(path)
    if is_transcript_name(path) or (path.suffix not in SCENARIO_SUFFIXES and _is_session(path)):
        from ctxviz.transcripts import open_transcript

        return open_transcript(path)
    if path.suffix in SCENARIO_SUFFIXES or not path.exists():
        from ctxviz.engine import simulate

        path, display = _builtin_if_missing(path, display)
        replayable = _scenario(path, display, tokenizer, allow_outside)
        return replayable.finish(simulate(replayable.scenario, agent=agent, source_path=display))
    what = "a folder, not" if path.is_dir() else "not"
    raise InputError(f"{path}: {what} a scenario (.yaml) or an agent's session file")


@dataclass(frozen=True)
class Replayable:
    """A scenario ready to simulate, with how its timelines are finished (the tokenizer's name, and a
    notice when text had to be counted as chars/4), and for a real session the context it measured after
    each event."""

    scenario: Scenario
    display: str
    finish: Callable[[Timeline], Timeline]
    measured: tuple[int | None, ...] | None = None


def last_call_from_end(path: str | Path | None) -> Timeline | None:
    """A big session's last call alone, read from the file's end (``Reader.window_from_end``): what the
    TUI shows first while ``open_timeline`` reads the whole file. None for a scenario, a session small
    enough to be read whole at once, or one only the whole read can tell."""
    from ctxviz.errors import InputError
    from ctxviz.transcripts.registry import open_session

    if path is None or not is_transcript_name(path):
        return None
    try:
        reader, ref = open_session(Path(path))
        window = reader.window_from_end(ref, 0)
    except InputError:
        return None  # the whole read says what is wrong with the file
    return window.timeline if window is not None else None


def open_replayable(path: str | None, tokenizer: str = "cl100k", allow_outside: bool = False) -> Replayable:
    """A scenario file, a built-in scenario's name (None: the default scenario), or an agent's session
    (.jsonl) turned into a scenario (``imported_session``). Raises ``InputError``."""
    file, display = _given(path)
    if is_transcript_name(file) or (file.suffix not in SCENARIO_SUFFIXES and _is_session(file)):
        from ctxviz.importer.imported import measured_per_event

        scenario, calls = imported_session(file)
        measured = tuple(measured_per_event(calls, len(scenario.events)))
        return Replayable(scenario, display, lambda timeline: timeline, measured)
    return _scenario(*_builtin_if_missing(file, display), tokenizer, allow_outside)


def imported_session(file: Path, timeline: Timeline | None = None) -> tuple[Scenario, tuple[MeasuredCall, ...]]:
    """A session as a scenario that replays it, and its measured calls: a Claude Code session through its
    importer, another agent's from what its reader read (``timeline``, when already read). Raises
    ``InputError``."""
    from ctxviz.importer import IMPORTED_AGENT, session_to_scenario
    from ctxviz.transcripts.registry import read_target, reader_for

    if timeline is None:
        reader = reader_for(file)
        agent = IMPORTED_AGENT if reader is None else reader.name
    else:
        agent = timeline.agent
    if agent == IMPORTED_AGENT:
        imported = session_to_scenario(file)
        return imported.scenario, imported.calls
    from ctxviz.importer.from_timeline import timeline_to_scenario

    other = timeline_to_scenario(timeline or read_target(file).timeline, file.name.split(".")[0])
    return other.scenario, other.measured


def _scenario(path: Path, display: str, tokenizer: str, allow_outside: bool) -> Replayable:
    from ctxviz.scenario_file import load_scenario
    from ctxviz.tokens import LazyCounter

    counter = LazyCounter(tokenizer)  # cl100k is loaded only if some text is counted
    scenario = load_scenario(path, counter=counter, allow_outside=allow_outside)

    def finish(timeline: Timeline) -> Timeline:
        reason = counter.reason
        notices = (*timeline.notices, f"text counted as chars/4: {reason}") if reason else timeline.notices
        return replace(timeline, tokenizer=counter.description, notices=notices)

    return Replayable(scenario, display, finish)


def _given(path: str | Path | None) -> tuple[Path, str]:
    """The file named and how to name it where the output says where it came from (None: the default
    scenario)."""
    if path is None:
        return builtin_scenario(DEFAULT_SCENARIO), f"scenarios/{DEFAULT_SCENARIO}.yaml"
    return Path(path), str(path)


def _builtin_if_missing(path: Path, display: str) -> tuple[Path, str]:
    """A name that is no file but a built-in scenario's (``mention-myth``): that scenario."""
    if not path.exists() and (named := builtin_scenario(path.name)).exists():
        return named, f"scenarios/{named.name}"
    return path, display


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
