"""A session's timeline kept up to date as records arrive: work per new record, not per file.

Pure (entries in, figures and timelines out). The batch reader decides the active chain once the whole
file is known (``active_chain``); a growing file is the same file with more records, and in a running
session new records almost always continue the conversation below its last API call. So the state
keeps that frontier — the last call on the chain and the records hanging below it — and a new record
whose parent is on the frontier goes straight to the step builder. Anything else (a rewind that
abandons calls, a parent missing from the file, a record relinking an earlier one) may change the
chain retroactively: ``feed`` says so and the caller rebuilds from the whole file with ``from_entries``,
which runs the batch reader's own chain code — so the result always equals a whole-file read.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxviz.kinds import BlockKind
from ctxviz.timeline import Block, Thresholds, Timeline
from ctxviz.transcripts.claude_code.build import BuildState, StepBuilder
from ctxviz.transcripts.claude_code.chain import REORDERED_NOTE, active_chain
from ctxviz.transcripts.claude_code.parse import Entry, Piece

# The window and the profile behind it are imported where they are needed (a timeline, new
# thresholds): a statusline run that finds the model unchanged does without them.

# not "an item added": fixed overhead, the compaction summary
NOT_ITEMS = frozenset({BlockKind.OVERHEAD, BlockKind.SUMMARY})


class Tally(list[Any]):
    """A history list whose items nobody reads (the statusline's steps and blocks): only its length is
    kept, because the builder numbers steps and blocks by it."""

    def __init__(self, length: int = 0) -> None:
        super().__init__()
        self.length = length

    def append(self, item: object) -> None:
        self.length += 1

    def __len__(self) -> int:
        return self.length


class Forget(dict[int, int]):
    """When each removed block left: only a timeline needs it."""

    def __setitem__(self, key: int, value: int) -> None:
        pass


@dataclass(frozen=True, slots=True)
class Figures:
    """What a status line shows: the last step's context, and the largest item in the window now."""

    used: int
    measured: bool
    calls: int | None  # None: not counted (the file was read from its last compaction)
    model: str
    biggest: tuple[str, int] | None  # label, tokens


@dataclass
class Follower:
    """The incremental reader of one session's entries. ``lean`` keeps no history (no steps, no
    removed blocks): enough for ``figures()``, and small enough to cache between statusline runs."""

    lean: bool = False
    compaction_call: bool = False  # a compaction call's own file (its unrecorded part is the conversation)
    builder: StepBuilder = field(init=False)
    mode: str | None = None  # "main", or "side" for a subagent's own file (its sidechain is the chain)
    last_call: str | None = None  # uuid of the last API call on the chain
    below: set[str] = field(default_factory=set)  # uuids on the chain hanging below it (no call among them)
    last_conversational: str | None = None  # where a record with a missing parent is joined (file order)
    linked: bool = False  # any record with a uuid seen
    bridged: set[str] = field(default_factory=set)  # missing parents: one turning up relinks the chain
    seen: set[str] = field(default_factory=set)  # message ids already counted as calls
    open_compaction: Entry | None = None  # a boundary waiting for its summary record
    models: list[str] = field(default_factory=list)  # each call's model, in order
    last_used: int | None = None
    last_measured: bool = True
    peak: int = 0
    calls_counted: bool = True  # False when read from the last compaction: the calls before it are unknown

    reordered: bool = False  # the file's records are out of order: every change is a rebuild
    children: Mapping[str, Timeline] = field(default_factory=dict)  # subagent id → its timeline
    compaction_child: Callable[[int], Timeline | None] | None = None  # the n-th compaction's own timeline
    compactions: int = 0
    duplicates: int = 0  # records written twice that ``feed`` read once (the batch reader notes them)

    def __post_init__(self) -> None:
        state = BuildState(blocks=Tally(), steps=Tally(), left=Forget()) if self.lean else BuildState()
        self.builder = StepBuilder(self.children, compaction_call=self.compaction_call, state=state)

    # --- building ---------------------------------------------------------------------------------
    @classmethod
    def from_entries(cls, entries: Sequence[Entry], **settings: Any) -> Follower:
        """The state after a whole file's entries, the chain chosen as the batch reader chooses it.
        ``settings`` are the follower's own (``lean``, ``compaction_call``, ``children``, …)."""
        follower = cls(**settings)
        follower._take_file(entries)
        return follower

    @classmethod
    def from_last_compaction(cls, head: Follower, entries: Sequence[Entry]) -> Follower | None:
        """A lean state from a file's records since its last compaction boundary (``entries`` start with
        it), on top of ``head``: the lean follower of the file's first records up to its first call, whose
        fixed overhead the compaction keeps. What the compaction replaced is not read, so the calls before
        it are not counted. None when the tail alone may not give what the whole file gives: its chain does
        not run unbroken from the boundary (a rewind, a parent before it, records out of order or written
        twice), or no call follows the boundary (the model is then the one of a call before it)."""
        follower = cls(lean=True, compaction_call=head.compaction_call)
        follower.builder, follower.models, follower.peak = head.builder, list(head.models), head.peak
        follower.calls_counted = False
        chain, notes = follower._take_file(entries)
        if notes or not chain or chain[0] is not entries[0] or follower.last_call is None:
            return None
        return follower

    def _take_file(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[str]]:
        conversational = [e for e in entries if e.conversational]
        if not conversational:
            return [], []
        self.mode = "main" if any(not e.sidechain for e in conversational) else "side"
        mine = [e for e in entries if e.sidechain == (self.mode == "side")]
        known = {e.uuid for e in mine if e.uuid}
        chain, notes = active_chain(mine)
        self.reordered = REORDERED_NOTE in notes
        on_chain = {id(e) for e in chain}
        previous: str | None = None  # the conversational record before, in file order (the bridge)
        taken: set[str] = set()
        for entry in mine:  # the frontier and the bridge follow the file's order
            if not entry.uuid or entry.uuid in taken:
                continue  # unlinked, or written twice (read once)
            taken.add(entry.uuid)
            self.linked = True
            parent = entry.parent if entry.parent is not None else entry.logical_parent
            if parent is not None and parent not in known:
                self.bridged.add(parent)
            if id(entry) in on_chain:
                # calls on the chain are all on its path (a branch holding a call off the path is
                # dropped), so the frontier is the last call and what descends from it
                target = parent if parent in known else previous
                self._place(entry, target, first=previous is None)
            if entry.conversational:
                previous = entry.uuid
        self.last_conversational = previous
        for entry in chain:  # the builder follows the chain's order (timestamps, in a reordered file)
            self._take(entry)
        return chain, notes

    def start(self, entries: Sequence[Entry]) -> bool:
        """Take a file's first entries as ``from_entries`` does, on this follower's own builder. False
        when they hold no conversational record, or when the batch reader has something to say of their
        chain (a rewind, a gap, a record written twice, records out of order)."""
        chain, notes = self._take_file(entries)
        return bool(chain) and not notes

    def finish(self) -> None:
        """Close a compaction still waiting for its summary, as the batch reader does at the file's end."""
        self._close(None)

    def feed(self, entries: Iterable[Entry]) -> bool:
        """Take new entries (file order). False: they may change the chain already built, and nothing
        is trustworthy until ``from_entries`` rebuilds it from the whole file."""
        for entry in entries:
            if self.mode is None:
                if not entry.conversational:
                    continue  # which records are the chain is not known yet; a rebuild will reread them
                return False
            if entry.sidechain != (self.mode == "side"):
                if entry.conversational and self.mode == "side" and not entry.sidechain:
                    return False  # a main conversation after all: the file's chain is another one
                continue
            if entry.uuid:
                if self.reordered or entry.uuid in self.bridged:
                    return False  # the batch reader orders such a file by timestamps: so must we
                if self._on_frontier(entry.uuid):
                    self.duplicates += 1
                    continue  # written twice: read once, as the batch reader does
                if not self._attach(entry):
                    return False
            self._take(entry)
        return True

    def _attach(self, entry: Entry) -> bool:
        parent = entry.parent if entry.parent is not None else entry.logical_parent
        first = not self.linked
        self.linked = True
        if parent is None and not entry.conversational:
            return True  # a parentless progress record: off any path, adds nothing
        if parent is not None and (parent == self.last_call or parent in self.below):
            target: str | None = parent
        elif parent is None and (first or self._on_frontier(self.last_conversational)):
            target = self.last_conversational  # a root (the first) or a later root joined in file order
        else:
            return False  # a parent elsewhere in the file, or not in it: the batch rules decide
        self._place(entry, target, first=first)
        if entry.conversational:
            self.last_conversational = entry.uuid
        return True

    def _on_frontier(self, uuid: str | None) -> bool:
        return uuid is not None and (uuid == self.last_call or uuid in self.below)

    def _place(self, entry: Entry, parent: str | None, *, first: bool) -> None:
        if entry.used is not None:
            self.last_call, self.below = entry.uuid, set()
        elif first or self._on_frontier(parent) or self.last_call is None:
            self.below.add(entry.uuid or "")

    def _take(self, entry: Entry) -> None:
        """The batch builder's loop body (``build_steps``), one entry at a time."""
        builder = self.builder
        if entry.compact is not None:
            self._close(None)
            self.open_compaction = entry
            return
        if entry.summary and self.open_compaction is not None:
            self._close(entry.pieces[0] if entry.pieces else None)
            return
        if entry.used is not None and entry.message_id not in self.seen:
            self._close(None)
            self.seen.add(entry.message_id or "")
            builder.call(entry)
            if entry.model:
                self.models.append(sys.intern(entry.model))  # one string per model, not per call
            self.last_used, self.last_measured = entry.used, True
            self.peak = max(self.peak, entry.used)
        builder.pending.extend(entry.pieces)
        if entry.note:
            builder.notes.append(entry.note)

    def _close(self, summary: Piece | None) -> None:
        if self.open_compaction is not None:
            self.builder.compact(self.open_compaction, summary, self._compaction_child())
            self.open_compaction = None
            self.compactions += 1
            step_used = self.builder.state.total
            self.last_used, self.last_measured = step_used, summary is not None
            self.peak = max(self.peak, step_used)

    # --- reading ----------------------------------------------------------------------------------
    def figures(self) -> Figures | None:
        """The last step's figures (None before the first call). A compaction still waiting for its
        summary counts as done, as a whole-file read of the same bytes counts it."""
        state = self.builder.state
        overhead = self.builder.overhead
        if self.last_used is None and self.open_compaction is None:
            return None
        if self.open_compaction is not None:
            used = state.live[overhead].tokens if overhead is not None and overhead in state.live else 0
            post = self.open_compaction.compact[2] if self.open_compaction.compact else None
            return Figures(used, post is not None, self._calls(), self._model(), None)
        items = [b for b in state.live.values() if b.kind not in NOT_ITEMS]
        top = min(items, key=lambda b: (-b.tokens, b.entered, b.id), default=None)
        biggest = (top.label, top.tokens) if top is not None else None
        return Figures(self.last_used or 0, self.last_measured, self._calls(), self._model(), biggest)

    def _calls(self) -> int | None:
        return self.builder.calls if self.calls_counted else None

    def _compaction_child(self) -> Timeline | None:
        return self.compaction_child(self.compactions) if self.compaction_child is not None else None

    def _model(self) -> str:
        return self.models[-1] if self.models else "unknown"

    def timeline(self, *, name: str, path: str | None, summary: str | None = None,
                 notices: Sequence[str] = ()) -> Timeline | None:  # fmt: skip
        """The timeline so far (None before the first call); not available in lean mode."""
        if self.lean:
            raise ValueError("a lean follower keeps no history")
        from ctxviz.transcripts.claude_code.timeline import session_timeline

        builder = self.builder
        if self.open_compaction is not None:
            builder = _trial(builder)
            builder.compact(self.open_compaction, None, self._compaction_child())
        state = builder.state
        if not state.steps:
            return None
        for block_id, left in state.left.items():  # in place, once each: the blocks are not held twice
            b = state.blocks[block_id]
            if b.left is None:
                state.blocks[block_id] = Block(b.id, b.category, b.kind, b.label, b.tokens, b.entered, left,
                                               b.visibility)  # fmt: skip
        blocks = tuple(state.blocks)
        return session_timeline(state.steps, blocks, self.models, name=name, path=path, summary=summary,
                                notices=notices)  # fmt: skip


def _trial(builder: StepBuilder) -> StepBuilder:
    """A copy to finish provisionally (an open compaction) without touching the real state: the lists
    are copied (references only), the blocks and steps themselves are immutable."""
    state = builder.state
    copy = BuildState(list(state.blocks), list(state.steps), dict(state.live), state.total, dict(state.left))
    return StepBuilder(builder.children, compaction_call=builder.compaction_call, state=copy,
                    pending=list(builder.pending), notes=list(builder.notes), calls=builder.calls,
                    overhead=builder.overhead)  # fmt: skip


def window_thresholds(models: Sequence[str], peak: int, window: int | None = None) -> tuple[str, int, Thresholds]:
    """Model, window and thresholds: the transcript's own, or for ``window`` when the agent says which."""
    from ctxviz.transcripts.claude_code.window import session_window

    found = session_window(models, peak)
    if window is None or window == found.window:
        return found.model, found.window, found.thresholds
    from ctxviz.profiles.claude_code import PROFILE

    spec = PROFILE.model_window(found.model, window, foreign=False)
    return found.model, window, PROFILE.thresholds.thresholds(window, spec.max_output)
