"""An agent-neutral session → Timeline steps and blocks (pure).

A reader turns its agent's records into a flat sequence of three things: ``Item`` (content that
entered the conversation, with an estimated size), ``Call`` (an API call whose prompt size the agent
recorded) and ``Compaction``. Here they become steps:

- a call's ``used`` is measured; what entered since the call before shares the measured growth in
  proportion to the estimates, so the live blocks always sum to ``used``. The first call's remainder
  is the overhead the transcript does not hold (system prompt, tools);
- a compaction removes the conversation (not the overhead, instructions or memory files), keeps the
  items the agent says it kept, and adds its summary; its size is an estimate until the next call;
- with ``Checkpoint`` a reader whose agent records no per-call usage still gets steps, at the estimated
  size of what it recorded (``measured`` False).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ctxviz.fates import summarised_by_kind
from ctxviz.kinds import BlockKind, CompactionTrigger, StepKind
from ctxviz.layout import share_cells
from ctxviz.timeline import Block, Category, Fate, Source, Step, Thresholds, Timeline, Visibility

UNRECORDED_LABEL = "input the transcript does not record"
TRIGGER_NOT_RECORDED_NOTE = "the transcript does not record whether this compaction was automatic or /compact"
SPLIT_NOTE = "split among the new items by estimated size (chars/4)"
_CONVERSATION = frozenset({Category.MESSAGES})


@dataclass(frozen=True, slots=True)
class Item:
    kind: BlockKind
    label: str
    estimate: int  # tokens, estimated
    category: Category = Category.MESSAGES
    origin: str | None = None  # the record it came from, for compactions that keep some records


@dataclass(frozen=True, slots=True)
class Call:
    used: int  # the prompt's size, measured by the API
    label: str = ""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Compaction:
    trigger: CompactionTrigger
    pre_tokens: int | None = None  # as the agent recorded it
    post_tokens: int | None = None  # as the agent recorded it (None: estimated until the next call)
    post_measured: bool = True  # False when the agent's own figure after is itself an estimate
    summary: Item | None = None
    restored: tuple[Item, ...] = ()  # what the new context starts with beside the summary
    keep: frozenset[str] = frozenset()  # origins of items kept verbatim
    # origins of items outside the conversation that the new context replaces (an agent whose
    # instructions are part of the history it rebuilds sends them again among ``restored``)
    replaces: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A step at the estimated size of what has entered (for agents without per-call usage)."""

    kind: StepKind
    label: str
    notes: tuple[str, ...] = ()


Event = Item | Call | Compaction | Checkpoint


@dataclass
class LiveBlocks:
    """A timeline builder's running state: the blocks and steps so far, the blocks still in the window and
    their total, and the step each removed block left at."""

    blocks: list[Block] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    live: dict[int, Block] = field(default_factory=dict)  # insertion order = age
    total: int = 0
    left: dict[int, int] = field(default_factory=dict)

    def add_block(self, category: Category, kind: str, label: str, tokens: int, *, shown_whole: bool) -> Block:
        """A new live block (``shown_whole``: a prompt or reply, shown in full rather than in brief)."""
        # what the log does not record (the system prompt, tools, reminders) is never on your screen either
        visibility: Visibility = "hidden" if kind == BlockKind.OVERHEAD else "full" if shown_whole else "brief"
        block = Block(len(self.blocks), category, kind, label, tokens, len(self.steps), visibility=visibility)
        self.blocks.append(block)
        self.live[block.id] = block
        self.total += tokens
        return block

    def remove(self, block_id: int) -> None:
        block = self.live.pop(block_id)
        self.total -= block.tokens
        self.left[block_id] = len(self.steps)


@dataclass
class _State(LiveBlocks):
    overhead_label: str = field(kw_only=True)
    origins: dict[int, str | None] = field(default_factory=dict)
    pending: list[Item] = field(default_factory=list)
    calls: int = 0
    overhead: int | None = None

    def add(self, item: Item, tokens: int) -> int:
        shown_whole = item.kind in (BlockKind.PROMPT, BlockKind.REPLY)
        block = self.add_block(item.category, item.kind, item.label, tokens, shown_whole=shown_whole)
        self.origins[block.id] = item.origin
        return block.id

    def remove(self, block_id: int) -> None:
        super().remove(block_id)
        del self.origins[block_id]  # asked of live blocks only: a long session's would fill memory

    def step(self, kind: StepKind, label: str, added: list[int], removed: list[int], *, measured: bool,
             notes: Iterable[str], fates: Sequence[Fate] = (), used: int | None = None,
             trigger: CompactionTrigger | None = None, pre_tokens: int | None = None) -> None:  # fmt: skip
        total = self.total if used is None else used
        self.steps.append(Step(len(self.steps), kind, label, tuple(added), tuple(removed), total,
                               measured=measured, notes=tuple(notes), fates=tuple(fates), trigger=trigger,
                               pre_tokens=pre_tokens))  # fmt: skip


class Estimated(Protocol):
    """Something that entered the conversation with an estimated size (an ``Item``, a Claude Code piece)."""

    @property
    def estimate(self) -> int: ...


def split_by_estimate(total: int, parts: Sequence[Estimated]) -> list[int]:
    """``total`` shared in proportion to the estimates, summing exactly (largest remainder); equally when
    every estimate is 0."""
    weights = [max(p.estimate, 0) for p in parts]
    if sum(weights) == 0:
        weights = [1] * len(parts)
    return share_cells(weights, total)


def first_call_shares(used: int, parts: Sequence[Estimated]) -> tuple[list[int], int]:
    """The first call's share of each recorded part (its estimate when they all fit in ``used``, else
    ``used`` split among them) and what is left: the overhead the log does not hold."""
    estimated = sum(p.estimate for p in parts)
    shares = [p.estimate for p in parts] if estimated <= used else split_by_estimate(used, parts)
    return shares, used - sum(shares)


def _label(items: Sequence[Item]) -> str:
    named = [i.label for i in items if i.kind != BlockKind.REPLY and i.label] or [i.label for i in items if i.label]
    if not named:
        return ""
    return named[0] + (f" +{len(named) - 1} more" if len(named) > 1 else "")


def _shrink(state: _State, excess: int) -> tuple[list[int], list[int]]:
    """Take ``excess`` tokens from the oldest conversation blocks (the last one re-enters smaller)."""
    removed: list[int] = []
    added: list[int] = []
    for block in [b for b in state.live.values() if b.category in _CONVERSATION and b.id != state.overhead]:
        if excess <= 0:
            break
        state.remove(block.id)
        removed.append(block.id)
        if block.tokens > excess:
            added.append(state.add(Item(BlockKind(block.kind), block.label, 0, block.category), block.tokens - excess))
        excess -= block.tokens
    return removed, added


def _call(state: _State, call: Call) -> None:
    items = [i for i in state.pending if i.estimate > 0] or list(state.pending)
    notes = list(call.notes)
    added: list[int] = []
    removed: list[int] = []
    if state.overhead is None:
        shares, fixed = first_call_shares(call.used, items)
        state.overhead = state.add(Item(BlockKind.OVERHEAD, state.overhead_label, fixed, Category.SYSTEM_PROMPT), fixed)
        added.append(state.overhead)
        notes.append(f"the first call's {fixed:,} tokens beyond the recorded items: {state.overhead_label}")
    else:
        delta = call.used - state.total
        if delta >= 0:
            shares = split_by_estimate(delta, items) if items else []
            if delta > 0 and not items:
                items, shares = [Item(BlockKind.OVERHEAD, UNRECORDED_LABEL, delta)], [delta]
            notes.append(f"+{delta:,} tokens measured; {SPLIT_NOTE}")
        else:
            shares = [i.estimate for i in items]
            removed, added = _shrink(state, state.total + sum(shares) - call.used)
            if state.total + sum(shares) > call.used:
                shares = split_by_estimate(max(0, call.used - state.total), items) if items else []
            notes.append(f"usage fell by {-delta:,} tokens without a compaction; the oldest content is shown "
                         "as removed (estimate)")  # fmt: skip
    for item, tokens in zip(items, shares, strict=True):
        if tokens > 0:
            added.append(state.add(item, tokens))
    state.calls += 1
    label = call.label or f"call {state.calls}" + (f": {_label(items)}" if items else "")
    state.step(StepKind.API_CALL, label, added, removed, measured=True, notes=notes, used=call.used)
    state.pending = []


def _compact(state: _State, event: Compaction) -> None:
    kept = event.keep
    gone = [b for b in state.live.values()
            if (b.category in _CONVERSATION and b.id != state.overhead and state.origins[b.id] not in kept)
            or state.origins[b.id] in event.replaces]  # fmt: skip
    why = "replaced by the compaction summary"
    fates = summarised_by_kind(((b.kind, b.tokens) for b in gone), lambda _kind: why)
    fates += summarised_by_kind(((i.kind, i.estimate) for i in state.pending if i.origin not in event.keep),
                                lambda _kind: "arrived after the last call; summarised")  # fmt: skip
    removed = [b.id for b in gone]
    for block_id in removed:
        state.remove(block_id)
    added = [state.add(i, i.estimate) for i in state.pending if i.origin is not None and i.origin in event.keep]
    new = [*event.restored] + ([event.summary] if event.summary is not None else [])
    # When the agent recorded the size after, the new items take what the rest leaves of it.
    post = event.post_tokens
    measured = post is not None and bool(new) and post >= state.total
    sizes = split_by_estimate(post - state.total, new) if post is not None and measured else [i.estimate for i in new]
    measured = measured and event.post_measured
    for item, tokens in zip(new, sizes, strict=True):
        added.append(state.add(item, tokens))
        why = "the compaction's new context"
        fates.append(Fate(item.label, item.kind, "new" if item is event.summary else "kept", tokens, why))
    what = {CompactionTrigger.AUTO: "auto-compaction", CompactionTrigger.MANUAL: "manual compaction"}.get(
        event.trigger, "compaction"
    )
    after = f" after call {state.calls}" if state.calls else ""
    notes = [f"{what}{after}"
             + (f" at {event.pre_tokens:,} tokens (as recorded)" if event.pre_tokens is not None else "")]  # fmt: skip
    if post is None:
        notes.append("size after the compaction estimated until the next call measures it")
    if event.trigger is CompactionTrigger.UNKNOWN:
        notes.append(TRIGGER_NOT_RECORDED_NOTE)
    # a compaction of unknown trigger stays an auto-compact step (no step kind is neither); its note says so
    kind = StepKind.COMPACT if event.trigger is CompactionTrigger.MANUAL else StepKind.AUTO_COMPACT
    label = "auto-compaction" if event.trigger is CompactionTrigger.AUTO else "compaction"
    state.step(kind, label, added, removed, measured=measured, notes=[*notes, *event.notes], fates=fates,
               trigger=event.trigger, pre_tokens=event.pre_tokens)  # fmt: skip
    state.pending = []


def _checkpoint(state: _State, event: Checkpoint) -> None:
    added = [state.add(i, i.estimate) for i in state.pending if i.estimate > 0]
    state.step(event.kind, event.label, added, [], measured=False, notes=event.notes)
    state.pending = []


def assemble(events: Iterable[Event], overhead_label: str) -> tuple[tuple[Step, ...], tuple[Block, ...]]:
    """The steps and blocks of a session's events. ``overhead_label`` names what the first call holds
    beyond the recorded items (it differs by agent)."""
    state = _State(overhead_label=overhead_label)
    for event in events:
        if isinstance(event, Item):
            state.pending.append(event)
        elif isinstance(event, Call):
            _call(state, event)
        elif isinstance(event, Compaction):
            _compact(state, event)
        else:
            _checkpoint(state, event)
    # each block that left gets its step, in place: a second list of every block would double the peak
    for block_id, left in state.left.items():
        b = state.blocks[block_id]
        state.blocks[block_id] = Block(b.id, b.category, b.kind, b.label, b.tokens, b.entered, left, b.visibility)
    return tuple(state.steps), tuple(state.blocks)


def transcript_timeline(
    agent: str,
    name: str,
    path: str,
    project: str | None,
    *,
    model: str,
    window: int,
    autocompact: int,
    assembled: tuple[tuple[Step, ...], tuple[Block, ...]],
    notices: Iterable[str],
    tokenizer: str = "chars4",
) -> Timeline:
    """A reader's Timeline of session ``name`` read from ``path``: ``assembled`` its steps and blocks, the
    agent compacting at ``autocompact`` with no warning of its own (``Thresholds.from_trigger``)."""
    steps, blocks = assembled
    thresholds = Thresholds.from_trigger(autocompact, window)
    source = Source("transcript", name, path, project)
    return Timeline(source, agent, model, window, thresholds, steps, blocks, tokenizer, tuple(notices))
