"""Reading a session file for import: the I/O edge around the pure ``build_session``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ctxviz.errors import FOLDER_GIVEN, InputError
from ctxviz.importer.session import Session, Tools, build_session
from ctxviz.transcripts.claude_code.chain import active_chain
from ctxviz.transcripts.claude_code.discover import subagent_files
from ctxviz.transcripts.claude_code.parse import parse_lines
from ctxviz.transcripts.claude_code.timeline import main_entries
from ctxviz.transcripts.lines import numbered_lines


@dataclass(frozen=True)
class Loaded:
    session: Session
    problems: tuple[str, ...]
    subagents: dict[str, Session]  # agent id → the subagent's own session (its file beside the main one)


def _nothing_to_import(path: Path, count: int, readable: bool, problems: tuple[str, ...]) -> InputError:
    if count == 0:
        return InputError(f"{path}: empty file, nothing to import")
    if not readable:
        # every other agent's reader was asked before this one: none recognised the file
        first = f"; first: {problems[0]}" if problems else ""
        return InputError(
            f"{path}: not a session of any agent ctxviz reads: no record of one in {count:,} "
            f"line{'s' * (count != 1)} (expected one JSON object a line){first}"
        )
    return InputError(f"{path}: no API calls recorded in this transcript: nothing to import")


COMPACTION_AGENT = "acompact-"  # the agent id Claude Code gives the compaction call's own transcript


def _compaction_call(path: Path, agent: str, session: str | None) -> InputError:
    beside = f" {session}.jsonl" if session else ""
    return InputError(
        f"{path}: the compaction call's own transcript (agent {agent}): its one call sends the whole "
        f"conversation before the compaction, which this file does not hold; import the session{beside} instead"
    )


def _read_chain(path: Path) -> tuple[Session, tuple[str, ...], int, bool]:
    problems: list[str] = []
    lines: dict[int, bytes] = {}

    def keep() -> Iterator[tuple[int, bytes, bool]]:
        for number, line, complete in numbered_lines(path, problems):
            lines[number] = line
            yield number, line, complete

    parsed = parse_lines(keep(), str(path))
    compaction = next((e.agent for e in parsed.entries if e.agent and e.agent.startswith(COMPACTION_AGENT)), None)
    if compaction is not None:
        raise _compaction_call(path, compaction, parsed.session)
    chain, _ = active_chain(main_entries(parsed))
    session = build_session(chain, lines, parsed.cwd, parsed.session)
    readable = any(e.conversational for e in parsed.entries)
    return session, tuple(problems) + parsed.problems, parsed.lines, readable


def load_session(path: Path) -> Loaded:
    """The session's main chain and its subagents' files. ``InputError`` when the file cannot be read or
    records no API call; a damaged subagent file is left out."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: {FOLDER_GIVEN} .jsonl file")
    session, problems, count, readable = _read_chain(path)
    if not session.calls:
        raise _nothing_to_import(path, count, readable, problems)
    wanted = {use.agent for seg in session.segments for item in seg.items if isinstance(item, Tools)
              for use in item.calls if use.agent}  # fmt: skip
    subagents: dict[str, Session] = {}
    for agent, file in subagent_files(path, session.session_id) if wanted else ():
        if agent in wanted:
            try:
                subagents[agent] = _read_chain(file)[0]
            except InputError:
                continue
    return Loaded(session, problems, subagents)
