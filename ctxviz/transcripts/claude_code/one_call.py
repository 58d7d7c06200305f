"""One call's ``/context`` from a single pass over a Claude Code transcript, holding the window, not the
session: what ``context --json`` prints, without the whole timeline of a session of 400,000 calls.

The file is parsed in batches and fed to the live follower (``follow``), whose builder is the
batch reader's own; its steps and the blocks that leave are not kept but counted as they pass: the
calls, the compactions, the blocks carried most. Whenever the follower cannot vouch that the whole-file
read would choose the same chain (a rewind, a gap, a record written twice, records out of order), or
anything else it would not reproduce, the answer is None and the caller reads the file whole.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ctxviz.errors import InputError
from ctxviz.kinds import COMPACTION_STEP_KINDS, CompactionTrigger, StepKind
from ctxviz.timeline import Block, Step
from ctxviz.transcripts.claude_code.build import BuildState, StepBuilder
from ctxviz.transcripts.claude_code.discover import COMPACTION_PREFIX
from ctxviz.transcripts.claude_code.parse import Entry, ParseState, parse_lines
from ctxviz.transcripts.lines import Line, numbered_lines
from ctxviz.transcripts.packed import session_stem
from ctxviz.transcripts.protocol import CallWindow, Carried

if TYPE_CHECKING:
    from ctxviz.transcripts.claude_code.follow import Follower

BATCH_LINES = 5_000


class _Passing(list[Any]):
    """A history list the builder appends to and numbers by: each item is handed on, not kept."""

    def __init__(self, take: Any) -> None:
        super().__init__()
        self.length = 0
        self.take = take

    def append(self, item: object) -> None:
        self.take(item)
        self.length += 1

    def __len__(self) -> int:
        return self.length


class _Leaving(dict[int, int]):
    """When each block left (the builder writes it there): handed on, not kept."""

    def __init__(self, take: Any) -> None:
        super().__init__()
        self.take = take

    def __setitem__(self, block_id: int, step: int) -> None:
        self.take(block_id)


@dataclass
class StepTally:
    """What the steps and blocks passing by add up to, for the call asked (``at_call``; None: the last
    step). Blocks are ranked by carried tokens as they leave; only the ``top`` first are kept."""

    at_call: int | None
    top: int
    state: BuildState = field(init=False)
    calls: int = 0
    steps: int = 0
    peak: int = 0
    previous: tuple[int, bool] = (0, False)  # the step before: its size and whether it was measured
    compactions: list[dict[str, object]] = field(default_factory=list)
    waiting: list[dict[str, object]] = field(default_factory=list)  # compactions before their next call
    entered: dict[int, tuple[Block, int]] = field(default_factory=dict)  # live block → (block, calls before it)
    ranked: list[tuple[int, int, int, Block, int, int]] = field(default_factory=list)
    asked: tuple[Step, list[Block]] | None = None  # the call asked, with the window after it
    last: Step | None = None
    asked_calls: int = 0  # the calls up to the step asked

    def __post_init__(self) -> None:
        self.state = BuildState(blocks=_Passing(self._entered), steps=_Passing(self._step), left=_Leaving(self._left))

    def _entered(self, block: Block) -> None:
        self.entered[block.id] = (block, self.calls)

    def _left(self, block_id: int) -> None:
        block, first = self.entered.pop(block_id)
        self._rank(block, first, self.calls)

    def _rank(self, block: Block, first: int, stop: int) -> None:
        if self.at_call is not None:
            stop = min(stop, self.at_call)
        if stop <= first or block.tokens == 0 or self.top <= 0:
            return
        carried = block.tokens * (stop - first)
        # the worst kept first: least carried, then the latest first call, then the highest id
        entry = (carried, -first, -block.id, block, first, stop)
        if len(self.ranked) < self.top:
            heapq.heappush(self.ranked, entry)
        elif entry[:3] > self.ranked[0][:3]:
            heapq.heapreplace(self.ranked, entry)

    def _step(self, step: Step) -> None:
        self.steps += 1
        self.last = step
        self.peak = max(self.peak, step.used)
        if step.kind == StepKind.API_CALL:
            self.calls += 1
            for compaction in self.waiting:
                compaction["next_call_used"] = step.used
            self.waiting = []
            if self.calls == self.at_call:
                self.asked = (step, list(self.state.live.values()))
                self.asked_calls = self.calls
        elif step.kind in COMPACTION_STEP_KINDS and (self.at_call is None or self.calls < self.at_call):
            self._compaction(step)
        self.previous = (step.used, step.measured)

    def _compaction(self, step: Step) -> None:
        pre, (used_before, measured_before) = step.pre_tokens, self.previous
        found: dict[str, object] = {
            "trigger": (step.trigger or CompactionTrigger.UNKNOWN).value,
            "at_call": self.calls,
            "step": step.index,
            "pre_tokens": pre,
            "before": pre if pre is not None else used_before if step.index > 0 else 0,
            "before_measured": pre is not None or (step.index > 0 and measured_before),
            "after": step.used,
            "after_measured": step.measured,
            "next_call_used": None,
            "notes": list(step.notes),
        }
        self.compactions.append(found)
        if not step.measured:
            self.waiting.append(found)

    def calls_at(self, step: Step) -> int:
        """The calls up to ``step``, itself included: the one asked, or the last step."""
        return self.asked_calls if self.at_call is not None else self.calls

    def carried(self) -> tuple[Carried, ...]:
        """The blocks carried most, largest first: the ones still in the window counted to the end."""
        for block, first in self.entered.values():
            self._rank(block, first, self.calls)
        self.entered = {}
        best = sorted(self.ranked, key=lambda r: (-r[0], -r[1], -r[2]))
        return tuple(Carried(block, first, stop) for _, _, _, block, first, stop in best)


def _batches(lines: Iterator[Line]) -> Iterator[list[Line]]:
    with closing(lines):  # type: ignore[type-var]  # a generator: closing it closes the file
        while batch := list(islice(lines, BATCH_LINES)):
            yield batch


@dataclass
class Pass:
    """The streaming pass over one file: what was parsed, followed and counted so far. It can be taken up
    again where it stopped (``one_call_cache``), when the file has only grown."""

    tally: StepTally
    follower: Follower
    tools: ParseState = field(default_factory=ParseState)
    line_problems: list[str] = field(default_factory=list)
    parse_problems: list[str] = field(default_factory=list)
    session: str | None = None
    waiting: list[Entry] = field(default_factory=list)  # the first records, until one is conversational

    @classmethod
    def new(cls, at_call: int | None, top: int) -> Pass:
        from ctxviz.transcripts.claude_code.follow import Follower

        tally = StepTally(at_call, top)
        follower = Follower(lean=True)
        follower.builder = StepBuilder({}, state=tally.state)
        return cls(tally, follower)

    def take(self, path: Path, lines: Iterator[Line]) -> bool:
        """Parse and follow ``lines`` (their problems are this pass's); False as soon as only the
        whole-file read can tell (``InputError``: the file cannot be read)."""
        follower = self.follower
        for batch in _batches(lines):
            parsed = parse_lines(batch, str(path), self.tools)
            self.session = self.session or parsed.session
            self.parse_problems += parsed.problems
            if any(e.used is not None and not e.model for e in parsed.entries):
                return False  # a call naming no model: the whole-file read lists models its own way
            if follower.mode is None:
                self.waiting += parsed.entries
                if any(e.conversational for e in self.waiting):
                    if not follower.start(self.waiting):
                        return False
                    self.waiting = []
            elif not follower.feed(parsed.entries):
                return False
        return True

    def window(self, path: Path) -> CallWindow | None:
        """The window asked, once every line is taken (this ends the pass: nothing more can be taken)."""
        self.follower.finish()
        problems = (*self.line_problems, *self.parse_problems)
        return _window(path, self.follower, self.tally, self.tools, self.session, problems)


def call_window(path: Path, at_call: int | None, top: int) -> CallWindow | None:
    """The window at the ``at_call``-th call (None: the last step) and the session's figures around it,
    or None when only the whole-file read can tell (see the module's note), or the file cannot be read."""
    if path.name.startswith(COMPACTION_PREFIX):
        return None  # a compaction call's own file: its first call is read differently
    taken = Pass.new(at_call, top)
    try:
        if not taken.take(path, numbered_lines(path, taken.line_problems)):
            return None
    except InputError:
        return None
    return taken.window(path)


def _window(
    path: Path, follower: Follower, tally: StepTally, tools: ParseState, session: str | None, problems: tuple[str, ...]
) -> CallWindow | None:
    """The window asked, as a timeline of that one step (the session's model, window and notices, as the
    whole-file read words them), with the figures about the session around it."""
    from ctxviz.transcripts.claude_code.load import reading_notices
    from ctxviz.transcripts.claude_code.timeline import session_timeline
    from ctxviz.transcripts.safe import safe_text, safe_timeline

    if follower.mode != "main" or follower.duplicates or tally.calls == 0:
        return None  # a subagent's own file, a duplicate, no call: the whole-file read words these
    if tally.at_call is None and tally.last is not None:
        tally.asked = (tally.last, list(tally.state.live.values()))
    if tally.asked is None:
        return None  # no such call: the whole-file read says so
    step, live = tally.asked
    notices = reading_notices(len(problems), len(tools.unmeasured - tools.measured))
    alone = msgspec.structs.replace(step, index=0, added=tuple(b.id for b in live), removed=())
    timeline = session_timeline(
        [alone],
        live,
        follower.models,
        name=session or session_stem(path),
        path=str(path),
        summary=safe_text(tools.cwd) if tools.cwd else None,
        notices=notices,
        peak=tally.peak,
    )
    return CallWindow(safe_timeline(timeline), step.index, tally.calls_at(step), tally.calls, tuple(tally.compactions),
                      tally.carried(), problems)  # fmt: skip
