"""Parsed transcript → Timeline (pure): the active chain, its steps, the window, the notices."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from ctxviz.kinds import AgentName
from ctxviz.timeline import Block, Source, Step, Timeline
from ctxviz.transcripts.claude_code.build import build_steps
from ctxviz.transcripts.claude_code.chain import active_chain
from ctxviz.transcripts.claude_code.parse import Entry, Parsed
from ctxviz.transcripts.claude_code.window import session_window

TOKENIZER = "chars4"  # every split of a measured difference is a chars/4 estimate


def main_entries(parsed: Parsed) -> list[Entry]:
    """The main chain's records; a file holding only a sidechain (a subagent's file) is its own chain."""
    main = [e for e in parsed.entries if not e.sidechain]
    if any(e.conversational for e in main):
        return main
    return [e for e in parsed.entries if e.sidechain]


def timeline_of(
    entries: Sequence[Entry],
    *,
    name: str,
    path: str | None,
    summary: str | None = None,
    children: Mapping[str, Timeline] | None = None,
    compaction_children: Sequence[Timeline] = (),
    notices: Sequence[str] = (),
    compaction_call: bool = False,
    consume: bool = False,
) -> Timeline:
    """``consume``: ``entries`` is a list nothing else holds, emptied here and each record let go once its
    step is built, so that a big session's memory holds its records or its timeline, not both."""
    chain, chain_notes = active_chain(entries)
    seen: set[str] = set()
    models = []
    for entry in chain:
        if entry.used is not None and entry.model and entry.message_id not in seen:
            seen.add(entry.message_id or "")
            models.append(entry.model)
    if consume and isinstance(entries, list):
        entries.clear()
    built = _drained(chain) if consume else chain
    steps, blocks, _ = build_steps(built, children or {}, compaction_children, compaction_call=compaction_call)
    return session_timeline(
        steps, blocks, models, name=name, path=path, summary=summary, notices=notices, chain_notes=chain_notes
    )


def _drained(chain: list[Entry]) -> Iterator[Entry]:
    """The chain's entries in order, each dropped from the list as it is handed out."""
    chain.reverse()
    while chain:
        yield chain.pop()


def session_timeline(
    steps: Sequence[Step],
    blocks: Sequence[Block],
    models: Sequence[str],
    *,
    name: str,
    path: str | None,
    summary: str | None = None,
    notices: Sequence[str] = (),
    chain_notes: Sequence[str] = (),
    peak: int | None = None,
    models_read: bool = False,
) -> Timeline:
    """A Claude Code session's Timeline from its steps and blocks (whole-file read or live follower alike):
    the window its models name; the notices given, then the window's, then the chain's. ``peak``: the
    largest step of the session when ``steps`` are only some of them; ``models_read``: ``models`` are
    only the calls read, not every call of the session."""
    if peak is None:
        peak = max((s.used for s in steps), default=0)
    window = session_window(models, peak, models_read=models_read)
    return Timeline(
        source=Source("transcript", name, path, summary),
        agent=AgentName.CLAUDE_CODE,
        model=window.model,
        window=window.window,
        thresholds=window.thresholds,
        steps=tuple(steps),
        blocks=tuple(blocks),
        tokenizer=TOKENIZER,
        notices=tuple(notices) + window.notices + tuple(chain_notes),
    )
