"""Claude Code's ``sessions`` rows through the summary index: a file whose size and time (and its
subagents folder's) are unchanged is served from the index, read by nothing; the others are summarised
one after the other. Light to import: a run served from the index reads no transcript."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ctxviz.transcripts.packed import session_stem
from ctxviz.transcripts.reads import Reads
from ctxviz.transcripts.session_row import SessionSummary

if TYPE_CHECKING:
    from ctxviz.transcripts.claude_code.discover import SessionFile
    from ctxviz.transcripts.index import Answer, SummaryIndex


def summaries(files: Sequence[SessionFile], index: SummaryIndex) -> Iterator[Answer]:
    """Each file's summary (or why it could not be read): first the answers kept in the index where
    nothing changed, then the others as they are summarised. The caller saves the index once every
    agent's rows are in."""
    todo: list[tuple[SessionFile, Reads]] = []
    for file in files:
        name = str(file.path)
        index.stats.known(name, (file.size, file.mtime_ns))  # taken by discovery, before any reading
        kept = index.get(name, name)
        if kept is not None:
            yield kept
            continue
        reads = Reads(index.stats)
        reads.path(file.path)
        reads.path(file.path.parent / session_stem(file.path) / "subagents")  # a subagent added there adds a file
        todo.append((file, reads))
    if todo:
        from ctxviz.transcripts.claude_code.summary import summarize_all

        for (file, reads), answer in zip(todo, summarize_all([file for file, _ in todo]), strict=True):
            if not isinstance(answer, SessionSummary) or answer.file == str(file.path):
                index.put(str(file.path), reads, answer)
            yield answer
