"""One row per session for ``ctxviz sessions``: calls, peak, last, compactions, subagents, size.

The timeline's parser made lighter: every line is decoded with the same declaration (``records``),
leaving a message's content as bytes, and the same rules (``records.call_id``, ``compaction``, the
record types) say what is a call and what a compaction holds; instead of an entry per record, only
small numbers are kept. msgspec skips the undeclared fields without building objects, which measured
faster than any byte search over the same lines (benchmarks/transcripts.py). Calls are counted on the
active chain, the same records the full reader uses (tests check the two agree on every sample).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import msgspec
from msgspec import Raw

from ctxviz.errors import InputError
from ctxviz.kinds import AgentName
from ctxviz.regular_file import read_regular
from ctxviz.transcripts.claude_code.chain import NO_PARENT, Links, active_chain
from ctxviz.transcripts.claude_code.discover import AGENT_PREFIX, COMPACTION_PREFIX, SessionFile, decode_project
from ctxviz.transcripts.claude_code.records import (
    CONVERSATIONAL_TYPES,
    IGNORED_TYPES,
    SUBAGENT_TOOLS,
    Content,
    CountedRecord,
    call_id,
    compaction,
    unknown_type,
)
from ctxviz.transcripts.lines import Line
from ctxviz.transcripts.packed import session_stem
from ctxviz.transcripts.safe import safe_or_none, safe_text
from ctxviz.transcripts.session_row import Compaction, SessionSummary

_DECODE = msgspec.json.Decoder(CountedRecord).decode
_DECODE_LINES = msgspec.json.Decoder(CountedRecord).decode_lines
_DECODE_TOOLS = msgspec.json.Decoder(list[Content] | str | None).decode
# A chunk's decoded records sit beside the chunk: 1 MB measured as fast as 8 MB on a 150 MB session
# and held ~25 MB less at the peak.
DECODED_CHUNK_BYTES = 1024 * 1024
UNLINKED = -1
COMPACTION = -1
# each record type ctxviz knows: conversational (True) or carrying nothing for the window (False)
_CONVERSATIONAL: dict[str | None, bool] = {
    **dict.fromkeys(IGNORED_TYPES, False),
    **dict.fromkeys(CONVERSATIONAL_TYPES, True),
}
_WARMUP = b'"Warmup"'
# A quoted subagent tool name: the content is decoded only where one stands. One regular-expression pass
# over the bytes measured twice as fast as a bytes search per name (JSON's many quotes slow that down).
_SUBAGENT_NAME = re.compile(b'"(?:%s)"' % b"|".join(re.escape(name.encode()) for name in sorted(SUBAGENT_TOOLS)))


@dataclass(frozen=True, slots=True)
class FileNumbers:
    """What one file's lines say, before the file system adds its size and subagent files."""

    session: str | None
    cwd: str | None
    started: str | None
    ended: str | None
    models: tuple[str, ...]
    usage: tuple[int, ...]  # each call's measured context, in order
    compactions: tuple[Compaction, ...]
    side_roots: int  # subagents recorded inside the file (older layout)
    problems: tuple[str, ...]
    subagent_calls: int = 0  # Task/Agent tool calls made (a Plan subagent leaves no file of its own)
    unmeasured_calls: int = 0  # API calls whose record carries no usage
    out_of_order: bool = False  # a parent after its child: only the full reader can order the records


class _Chain:
    """One chain's calls and compactions, kept as small numbers: the record tree (``Links``) and, for
    each call or compaction in file order, its record's index and its figures."""

    def __init__(self) -> None:
        self.links = Links()
        self.conversational = False
        self.record = array("q")  # the record's index in ``links``; UNLINKED when it has no uuid
        self.used = array("q")  # a call's context; COMPACTION for a boundary
        self.message = array("q")  # hash of a call's message id (a message's records repeat its usage)
        self.model = array("h")  # index into ``models``
        self.models: list[str] = []
        self.compactions: dict[int, tuple[str, int | None]] = {}
        self.repeated_calls: set[int] = set()  # message hashes of calls on a record written twice

    def add(self, uuid: str | None, record: CountedRecord, conversational: bool,
            call: tuple[int, str, str | None] | None, compact: tuple[str, int | None] | None) -> None:  # fmt: skip
        self.conversational = self.conversational or conversational
        at = UNLINKED
        if uuid:
            at = self.links.add(uuid, record.parentUuid, record.logicalParentUuid, conversational, call is not None)
            if at == NO_PARENT:  # written twice: read once
                if call is not None:
                    self.repeated_calls.add(hash(call[1]))
                return
        if call is not None:
            used, message_id, model = call
            self.record.append(at)
            self.used.append(used)
            self.message.append(hash(message_id))
            if model is not None and model not in self.models:
                self.models.append(model)
            self.model.append(self.models.index(model) if model is not None else -1)
        elif compact is not None:
            self.compactions[len(self.record)] = compact
            self.record.append(at)
            self.used.append(COMPACTION)
            self.message.append(0)
            self.model.append(-1)

    def drop_measured(self, messages: set[int]) -> None:
        """Take out of ``messages`` the hashes of the calls read with their usage (one pass over the
        calls: no set of every call's hash is kept)."""
        messages.difference_update(self.message)
        messages.difference_update(self.repeated_calls)

    def numbers(self) -> tuple[tuple[int, ...], tuple[str, ...], tuple[Compaction, ...], bool]:
        """Each call's context, the models, the compactions, and whether the records were out of order;
        the uuids are let go first, so the set of messages seen never sits beside them."""
        out_of_order = self.links.seal()
        kept, _ = self.links.kept()
        seen: set[int] = set()
        usage: list[int] = []
        models: list[str] = []
        found: list[Compaction] = []
        for n, at in enumerate(self.record):
            if at != UNLINKED and not kept[at]:
                continue
            used = self.used[n]
            if used == COMPACTION:
                trigger, pre = self.compactions[n]
                found.append(Compaction(trigger, pre, len(usage)))
            elif self.message[n] not in seen:
                seen.add(self.message[n])
                usage.append(used)
                model = self.model[n]
                if model >= 0 and self.models[model] not in models:
                    models.append(self.models[model])
        return tuple(usage), tuple(models), tuple(found), out_of_order


def _subagent_calls(content: Raw, found: set[str]) -> None:
    """Add the ids of the Task/Agent tool calls in an assistant message's content (decoded only when one
    may be there)."""
    if _SUBAGENT_NAME.search(content) is None:
        return
    try:
        blocks = _DECODE_TOOLS(content)
    except msgspec.DecodeError:
        return
    if isinstance(blocks, list):
        found.update(b.id for b in blocks if b.type == "tool_use" and b.name in SUBAGENT_TOOLS and b.id)


def _decoded_lines(lines: Iterable[Line], where: str, problems: list[str]) -> Iterator[tuple[int, CountedRecord]]:
    """Each line's record, one line at a time; a damaged line is located in ``problems`` and skipped."""
    decode = _DECODE
    for number, line, complete in lines:
        try:
            yield number, decode(line)
        except msgspec.DecodeError as error:
            problems.append(f"{where}:{number}: {'incomplete last line' if not complete else error}, skipped")


def _one_line_each(chunk: bytes, end: int, records: int) -> bool:
    """Whether ``chunk[:end]`` (ending with a newline) holds exactly ``records`` lines. One ``find`` per
    record (memchr) measured 0.2 ms on a 3 MB file against 1.4 ms for ``bytes.count``, which looks at
    every byte in turn; a blank line or two records on one line make the counts differ."""
    find, at = chunk.find, 0
    for _ in range(records):
        at = find(b"\n", at, end) + 1
        if not at:
            return False
    return at == end


def _decoded_file(path: Path, where: str, problems: list[str]) -> Iterator[tuple[int, CountedRecord]]:
    """Each record of a file, decoded a chunk of whole lines at a time (one call for thousands of lines:
    the per-line work was a third of a summary). A chunk holding a damaged or blank line goes line by
    line, and so do a line longer than a chunk and a last line without its end: exact line numbers."""
    from ctxviz.transcripts.lines import lines_after, open_transcript_file, read_chunk

    handle, pending = open_transcript_file(path)
    number = 0
    with handle:
        while (cut := pending.rfind(b"\n") + 1) > 0:
            try:
                records = _DECODE_LINES(memoryview(pending)[:cut])  # no copy of the chunk
            except msgspec.DecodeError:
                records = []
            if _one_line_each(pending, cut, len(records)):  # the numbers are exact
                lines = len(records)
                yield from enumerate(records, number + 1)
            else:
                lines = pending.count(b"\n", 0, cut)
                split = enumerate(pending[: cut - 1].split(b"\n"), number + 1)
                numbered = ((n, line.removesuffix(b"\r"), True) for n, line in split if line.strip())
                yield from _decoded_lines(numbered, where, problems)
            records = []  # let this chunk's records (and the chunk they point into) go before the next
            number += lines
            rest = pending[cut:]
            pending = b""  # let go before the next chunk is read
            chunk = read_chunk(handle, path, DECODED_CHUNK_BYTES)
            pending = rest + chunk if chunk else rest
            if not chunk:
                break
        yield from _decoded_lines(lines_after(handle, path, problems, pending, number), where, problems)


def summarize_lines(lines: Iterable[Line], where: str) -> FileNumbers:
    """Pure: the numbers of one session file's lines (see ``SessionSummary``)."""
    problems: list[str] = []
    where = safe_text(where)
    return summarize_records(_decoded_lines(lines, where, problems), where, problems)


def summarize_records(records: Iterable[tuple[int, CountedRecord]], where: str, problems: list[str]) -> FileNumbers:
    """The numbers of one session file's decoded records; ``problems`` already holds the lines that
    could not be decoded."""
    main, side = _Chain(), _Chain()
    started: str | None = None
    ended: str | None = None
    session = cwd = None
    side_roots = 0
    subagents: set[str] = set()
    unmeasured: set[int] = set()  # hashes of message ids: no string kept per call
    # hot loop (every record of every session): names bound locally. Most records are "progress"
    # records: linked into the tree, nothing else, so they take the shortest way through.
    conversational_kinds = _CONVERSATIONAL
    main_links, side_links = main.links, side.links
    for number, record in records:
        kind = record.type
        if kind == "progress":
            conversational = False
        else:
            message = record.message
            if kind is None and message is not None:
                kind = message.role
            conversational = conversational_kinds.get(kind)  # type: ignore[assignment]
            if conversational is None:
                problems.append(unknown_type(where, number, kind))
                continue
        if session is None or cwd is None:
            if session is None:
                session, cwd = record.sessionId, cwd or record.cwd
            else:
                cwd = record.cwd
        # the earliest and the latest time, whatever order the lines were written in
        if stamp := record.timestamp:
            if ended is None:
                started = ended = stamp
            elif stamp > ended:
                ended = stamp
            elif stamp < started:  # type: ignore[operator]  # set together with ended
                started = stamp
        uuid = record.uuid
        if not conversational:
            if uuid:
                (side_links if record.isSidechain else main_links).add(
                    uuid, record.parentUuid, record.logicalParentUuid, False, False
                )
            continue
        call = compact = None
        if kind == "assistant":
            if message is not None and (message_id := call_id(message, number)) is not None:
                usage = message.usage
                used = usage.context if usage is not None else None
                if used is None:
                    unmeasured.add(hash(message_id))
                else:
                    call = (used, message_id, message.model)
                if not record.isSidechain:
                    _subagent_calls(message.content, subagents)
        elif kind == "user":
            if record.isSidechain and record.parentUuid is None:
                side_roots += message is None or _WARMUP not in bytes(message.content)
        elif kind == "system" and record.subtype == "compact_boundary":
            compact = compaction(record)[:2]
        (side if record.isSidechain else main).add(uuid, record, True, call, compact)
    chain = main if main.conversational or not side.conversational else side
    calls, models, found, out_of_order = chain.numbers()
    if unmeasured:
        main.drop_measured(unmeasured)
        side.drop_measured(unmeasured)
    return FileNumbers(safe_or_none(session), safe_or_none(cwd), started, ended,
                       tuple(safe_text(m) for m in models), calls, found, side_roots, tuple(problems),
                       len(subagents), len(unmeasured), out_of_order)  # fmt: skip


def _in_time_order(path: Path, numbers: FileNumbers) -> FileNumbers:
    """A file whose records are out of order: the full reader puts them in order, then they are counted."""
    from ctxviz.transcripts.claude_code.load import parse_file
    from ctxviz.transcripts.claude_code.timeline import main_entries

    chain, _ = active_chain(main_entries(parse_file(path)))
    seen: set[str] = set()
    usage: list[int] = []
    models: list[str] = []
    found: list[Compaction] = []
    for entry in chain:
        if entry.compact is not None:
            found.append(Compaction(entry.compact[0], entry.compact[1], len(usage)))
        elif entry.used is not None and entry.message_id not in seen:
            seen.add(entry.message_id or "")
            usage.append(entry.used)
            if entry.model and entry.model not in models:
                models.append(entry.model)
    return replace(numbers, usage=tuple(usage), models=tuple(models), compactions=tuple(found))


def _is_warmup(path: Path) -> bool:
    try:
        return _WARMUP in read_regular(path, 4096).split(b"\n", 1)[0]
    except OSError:
        return True


def count_subagents(session_path: Path, numbers: FileNumbers) -> int:
    """Subagents started: the Task/Agent calls the session made (a Plan subagent runs inside the session
    and leaves no file), or the subagent transcripts found when more (a call lost to a damaged line)."""
    from ctxviz.transcripts.claude_code.discover import subagent_files

    if session_path.name.startswith(AGENT_PREFIX):  # a subagent's own file: its siblings are not its children
        return 0
    files = [f for _, f in subagent_files(session_path, numbers.session) if not f.name.startswith(COMPACTION_PREFIX)]
    found = numbers.side_roots + sum(1 for f in files if f.name.startswith(AGENT_PREFIX) and not _is_warmup(f))
    return max(numbers.subagent_calls, found)


def summarize(path: Path, project_dir: Path | None = None) -> SessionSummary:
    """The summary row of one session file (``InputError`` if it cannot be read at all)."""
    where = safe_text(str(path))
    problems: list[str] = []
    numbers = summarize_records(_decoded_file(path, where, problems), where, problems)
    if numbers.out_of_order:
        numbers = _in_time_order(path, numbers)
    session = numbers.session or session_stem(path)
    usage = numbers.usage
    return SessionSummary(
        agent=AgentName.CLAUDE_CODE,
        session=session,
        project=numbers.cwd or decode_project((project_dir or path.parent).name),
        file=str(path),
        started=numbers.started,
        ended=numbers.ended,
        models=numbers.models,
        calls=len(usage),
        first=usage[0] if usage else 0,
        peak=max(usage, default=0),
        last=usage[-1] if usage else 0,
        compactions=numbers.compactions,
        subagents=count_subagents(path, numbers),
        bytes=path.stat().st_size,
        problems=numbers.problems,
        unmeasured_calls=numbers.unmeasured_calls,
    )


def _summarize_or_error(job: tuple[Path, Path | None]) -> SessionSummary | InputError:
    try:
        return summarize(*job)
    except InputError as error:
        return error


def summarize_all(files: Sequence[SessionFile]) -> Iterator[SessionSummary | InputError]:
    """Each file's summary (or why it could not be read), in order, one after the other (sharing them
    among processes saved under 10% of a cold ``sessions --json``: benchmarks/tricks.md)."""
    for file in files:
        yield _summarize_or_error((file.path, file.project_dir))


__all__ = ["Compaction", "FileNumbers", "SessionSummary", "count_subagents", "summarize", "summarize_all",
           "summarize_lines"]  # fmt: skip
