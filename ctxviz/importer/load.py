"""Reading a session file for import: the I/O edge around the pure ``build_session``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ctxviz.errors import InputError
from ctxviz.importer.session import Session, build_session
from ctxviz.transcripts.chain import active_chain
from ctxviz.transcripts.lines import numbered_lines
from ctxviz.transcripts.parse import parse_lines
from ctxviz.transcripts.reader import main_entries


@dataclass(frozen=True)
class Loaded:
    session: Session
    problems: tuple[str, ...]


def load_session(path: Path) -> Loaded:
    """The session's main chain. ``InputError`` when the file cannot be read or records no API call."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: a folder; give a session's .jsonl file (or use --session / --latest)")
    problems: list[str] = []
    lines: dict[int, bytes] = {}

    def keep() -> Iterator[tuple[int, bytes, bool]]:
        for number, line, complete in numbered_lines(path, problems):
            lines[number] = line
            yield number, line, complete

    parsed = parse_lines(keep(), str(path))
    chain, _ = active_chain(main_entries(parsed))
    session = build_session(chain, lines, parsed.cwd, parsed.session)
    if not session.calls:
        if parsed.lines == 0:
            raise InputError(f"{path}: empty file, nothing to import")
        raise InputError(f"{path}: no API calls recorded in this transcript: nothing to import")
    return Loaded(session, tuple(problems) + parsed.problems)
