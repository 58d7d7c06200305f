"""Every agent's reader, and the choice of reader for a file by its content (never by its name).

Adding an agent's reader is its package under ``transcripts/`` and one line in ``READERS``: every face
(``sessions``, ``context``, ``watch``, the TUI's open screen) asks the readers listed here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ctxviz.errors import FOLDER_GIVEN, InputError
from ctxviz.kinds import DEFAULT_AGENT
from ctxviz.transcripts.claude_code.reader import ClaudeCodeReader
from ctxviz.transcripts.codex.reader import CodexReader
from ctxviz.transcripts.cursor.reader import CursorReader
from ctxviz.transcripts.gemini_cli.reader import GeminiCliReader
from ctxviz.transcripts.grok_build.reader import GrokBuildReader
from ctxviz.transcripts.opencode.reader import OpencodeReader
from ctxviz.transcripts.packed import named
from ctxviz.transcripts.pi.reader import PiReader
from ctxviz.transcripts.protocol import FoundFile, Reader, Reading, SessionRef, ref_for

# Detection order: the most specific shapes first; Cursor's bare {role, message} lines last.
READERS: tuple[Reader, ...] = (
    CodexReader(),
    PiReader(),
    GeminiCliReader(),
    GrokBuildReader(),
    OpencodeReader(),
    ClaudeCodeReader(),
    CursorReader(),
)


def reader_named(name: str) -> Reader:
    for reader in READERS:
        if reader.name == name:
            return reader
    agents = ", ".join(sorted(reader.name for reader in READERS))
    raise InputError(f"no reader for agent {name!r}; choose one of: {agents}")


def reader_for(path: Path) -> Reader | None:
    """The reader whose agent wrote ``path``, judged from its first records; None when none does."""
    for reader in READERS:
        if reader.detect(path):
            return reader
    return None


def open_session(path: Path) -> tuple[Reader, SessionRef]:
    """The reader and reference for a file a user named. A file no reader recognises goes to the
    default agent's reader (Claude Code's), whose messages explain what it found instead."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: {FOLDER_GIVEN} file")
    reader = reader_for(path) or reader_named(DEFAULT_AGENT)
    return reader, ref_for(reader.name, path)


def read_target(target: Path | SessionRef) -> Reading:
    """A file a user named (its agent told by content) or a session found on disk, read by its reader."""
    from ctxviz.transcripts.safe import safe_timeline

    reader, ref = open_session(target) if isinstance(target, Path) else (reader_named(target.agent), target)
    reading = reader.read(ref)
    return Reading(safe_timeline(reading.timeline), reading.problems)


def agent_folders(env: Mapping[str, str], home: Path) -> list[Path]:
    """Every agent's folders on this machine: no cache of ctxviz's is ever written inside one."""
    return [root for reader in READERS for root in reader.roots(env, home)]


def discover(env: Mapping[str, str], home: Path, agents: Iterable[str] | None = None) -> list[SessionRef]:
    """Every session of the chosen agents under each agent's own roots."""
    chosen = [reader_named(a) for a in agents] if agents is not None else list(READERS)
    return discover_in({reader.name: reader.roots(env, home) for reader in chosen})


def discover_in(roots_of: Mapping[str, list[Path]]) -> list[SessionRef]:
    """Every session under each named agent's roots, already found."""
    found: dict[tuple[Path, str], SessionRef] = {}  # a database file holds many sessions
    for name, roots in roots_of.items():
        if not roots:
            continue  # none of its folders here: what its discovery imports is not needed
        for ref in reader_named(name).discover(roots):
            found.setdefault((ref.path, ref.session), ref)
    return sorted(found.values(), key=lambda r: (r.agent, str(r.path)))


def discover_under(
    roots: Iterable[Path], agents: Iterable[str] | None = None, unread: list[str] | None = None
) -> list[SessionRef]:
    """Every session under folders a user named, whatever their layout: each JSON, JSONL or database
    file found goes to the reader that recognises its content, which says which sessions its files are
    (a subagent's file is its session's; a folder or a database may be one session or many). ``unread``:
    where to say what under them could not be looked into."""
    from ctxviz.transcripts.walk import files_under

    chosen = [reader_named(a) for a in agents] if agents is not None else list(READERS)
    files_of: dict[str, list[FoundFile]] = {reader.name: [] for reader in chosen}
    for root in roots:
        for found in files_under(Path(root), _maybe_session, unread=unread):
            owner = reader_for(found[0])
            if owner is not None and owner.name in files_of:
                files_of[owner.name].append(found)
    refs = {(ref.path, ref.session): ref for reader in chosen for ref in reader.sessions_in(files_of[reader.name])}
    return sorted(refs.values(), key=lambda r: (r.agent, str(r.path)))


_JSON_FILE = named(".jsonl", ".json")


def _maybe_session(name: str) -> bool:
    """A JSON or JSONL file, compressed or not, or a database (SQLite reads a file on disk: never compressed)."""
    return name.endswith(".db") or _JSON_FILE(name)


def recorded_reader(agent: str) -> Callable[[Path], object] | None:
    """The function that reads the agent's session for ``fidelity``'s replay of its recorded calls: the
    ``read_recorded`` of its reader package's ``recorded`` module (None: the package has none)."""
    from importlib import import_module

    try:
        package = type(reader_named(agent)).__module__.rpartition(".")[0]
        module = import_module(f"{package}.recorded")
    except (InputError, ModuleNotFoundError):
        return None
    found: Callable[[Path], object] | None = getattr(module, "read_recorded", None)
    return found


def recorded_agents() -> list[str]:
    """The agents whose sessions ``fidelity`` replays as recorded, in the readers' order."""
    return [str(reader.name) for reader in READERS if recorded_reader(reader.name) is not None]
