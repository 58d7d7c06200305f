"""One row per session for ``ctxviz sessions``: calls, peak, last, compactions, subagents, size.

Every line is decoded with a struct that declares only the fields a summary reads: msgspec skips the
rest (tool results, content) without building objects, which measured faster than any byte search
over the same lines (benchmarks/transcripts.py). Calls are counted on the active chain, the same
records the full reader uses (tests check the two agree on every sample).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec
from msgspec import Struct

from ctxviz.allocation import without_cycle_collection
from ctxviz.errors import InputError
from ctxviz.transcripts.chain import active_chain
from ctxviz.transcripts.discover import AGENT_PREFIX, COMPACTION_PREFIX, SessionFile, decode_project
from ctxviz.transcripts.lines import Line
from ctxviz.transcripts.parse import IGNORED_TYPES, SYNTHETIC_MODEL, Entry
from ctxviz.transcripts.records import CompactMetadata, Usage


class _Message(Struct, frozen=True):
    role: str | None = None
    id: str | None = None
    model: str | None = None
    usage: Usage | None = None


class _Record(Struct, frozen=True):
    type: str | None = None
    subtype: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    logicalParentUuid: str | None = None
    isSidechain: bool | None = False
    timestamp: str | None = None
    sessionId: str | None = None
    cwd: str | None = None
    message: _Message | None = None
    compactMetadata: CompactMetadata | None = None


_DECODE = msgspec.json.Decoder(_Record).decode
_KEPT = ("user", "assistant", "system", "attachment")  # conversational records
_WARMUP = b'"Warmup"'


@dataclass(frozen=True, slots=True)
class Compaction:
    trigger: str
    pre_tokens: int | None
    at_call: int  # the calls before it (1-based number of the last one)


@dataclass(frozen=True, slots=True)
class SessionSummary:
    session: str
    project: str
    file: str
    started: str | None
    ended: str | None
    models: tuple[str, ...]
    calls: int
    first: int
    peak: int
    last: int
    compactions: tuple[Compaction, ...]
    subagents: int
    bytes: int
    problems: tuple[str, ...]

    def as_json(self) -> dict[str, object]:
        return {
            "session": self.session,
            "project": self.project,
            "file": self.file,
            "started": self.started,
            "ended": self.ended,
            "models": list(self.models),
            "calls": self.calls,
            "peak": self.peak,
            "last": self.last,
            "compactions": [
                {"trigger": c.trigger, "pre_tokens": c.pre_tokens, "at_call": c.at_call} for c in self.compactions
            ],
            "subagents": self.subagents,
            "bytes": self.bytes,
        }


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


def summarize_lines(lines: Iterable[Line], where: str) -> FileNumbers:
    """Pure: the numbers of one session file's lines (see ``SessionSummary``)."""
    entries: list[Entry] = []
    problems: list[str] = []
    started = ended = session = cwd = None
    side_roots = 0
    # hot loop (every line of every session): names bound locally, entries built positionally
    decode, keep, add = _DECODE, _KEPT, entries.append
    for number, line, complete in lines:
        try:
            record = decode(line)
        except msgspec.DecodeError as error:
            problems.append(f"{where}:{number}: {'incomplete last line' if not complete else error}, skipped")
            continue
        message = record.message
        kind = record.type or (message.role if message is not None else None)
        conversational = kind in keep
        if not conversational and kind not in IGNORED_TYPES:
            problems.append(f"{where}:{number}: record type {kind!r} not known to ctxviz, skipped")
            continue
        if session is None:
            session, cwd = record.sessionId, cwd or record.cwd
        elif cwd is None:
            cwd = record.cwd
        used = model = message_id = compact = None
        if kind == "assistant":
            if message is not None and message.usage is not None and message.model != SYNTHETIC_MODEL:
                used, model, message_id = message.usage.context, message.model, message.id or f"line:{number}"
        elif kind == "user":
            if record.isSidechain and record.parentUuid is None and _WARMUP not in line:
                side_roots += 1
        elif kind == "system" and record.subtype == "compact_boundary":
            meta = record.compactMetadata or CompactMetadata()
            compact = (meta.trigger or "auto", meta.preTokens, meta.postTokens)
        uuid, stamp = record.uuid, record.timestamp
        if uuid or conversational:
            add(Entry(number, uuid, record.parentUuid, record.logicalParentUuid, bool(record.isSidechain),
                      conversational, stamp, (), message_id, model, used, compact))  # fmt: skip
        if stamp:
            started = started or stamp
            ended = stamp
    main = [e for e in entries if not e.sidechain]
    if not any(e.conversational for e in main):
        main = [e for e in entries if e.sidechain]
    chain, _ = active_chain(main)
    seen: set[str] = set()
    usage: list[int] = []
    models: list[str] = []
    found: list[Compaction] = []
    for entry in chain:
        if entry.compact is not None:
            trigger, pre, _post = entry.compact
            found.append(Compaction(trigger, pre, len(usage)))
        elif entry.used is not None and entry.message_id not in seen:
            seen.add(entry.message_id or "")
            usage.append(entry.used)
            if entry.model and entry.model not in models:
                models.append(entry.model)
    return FileNumbers(session, cwd, started, ended, tuple(models), tuple(usage), tuple(found), side_roots,
                       tuple(problems))  # fmt: skip


def _is_warmup(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return _WARMUP in handle.read(4096).split(b"\n", 1)[0]
    except OSError:
        return True


def count_subagents(session_path: Path, session: str | None, side_roots: int) -> int:
    from ctxviz.transcripts.discover import subagent_files

    if session_path.name.startswith(AGENT_PREFIX):  # a subagent's own file: its siblings are not its children
        return 0
    files = [f for _, f in subagent_files(session_path, session) if not f.name.startswith(COMPACTION_PREFIX)]
    return side_roots + sum(1 for f in files if f.name.startswith(AGENT_PREFIX) and not _is_warmup(f))


def summarize(path: Path, project_dir: Path | None = None) -> SessionSummary:
    """The summary row of one session file (``InputError`` if it cannot be read at all)."""
    from ctxviz.transcripts.lines import numbered_lines

    problems: list[str] = []
    numbers = summarize_lines(numbered_lines(path, problems), str(path))
    session = numbers.session or path.stem
    usage = numbers.usage
    return SessionSummary(
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
        subagents=count_subagents(path, session, numbers.side_roots),
        bytes=path.stat().st_size,
        problems=tuple(problems) + numbers.problems,
    )


# Below these, starting worker processes costs more than it saves (measured on the 97 MB benchmark).
_PARALLEL_FILES = 8
_PARALLEL_BYTES = 16 * 1024 * 1024


def _summarize_or_error(job: tuple[Path, Path | None]) -> SessionSummary | InputError:
    try:
        with without_cycle_collection():
            return summarize(*job)
    except InputError as error:
        return error


def summarize_all(files: Sequence[SessionFile]) -> Iterator[SessionSummary | InputError]:
    """Each file's summary (or why it could not be read), in order. Many large files are shared among
    worker processes, one per CPU: the work is per file and independent."""
    jobs = [(f.path, f.project_dir) for f in files]
    workers = min(os.cpu_count() or 1, len(jobs))
    if workers < 2 or len(jobs) < _PARALLEL_FILES or sum(f.size for f in files) < _PARALLEL_BYTES:
        yield from map(_summarize_or_error, jobs)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        yield from pool.map(_summarize_or_error, jobs, chunksize=max(1, len(jobs) // (workers * 4)))
