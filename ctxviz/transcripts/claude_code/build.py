"""Active-chain entries → Timeline: one step per API call, one per compaction.

Each call's ``used`` is measured (input + cache creation + cache read). What entered since the call
before — the previous reply, tool calls and results, prompts, attachments — becomes blocks sharing the
measured difference in proportion to their estimated sizes, so the live blocks always sum to ``used``.
The first call's remainder is the fixed overhead the transcript does not record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ctxviz.fates import summarised_by_kind
from ctxviz.kinds import BlockKind, CompactionTrigger, StepKind
from ctxviz.timeline import Block, Category, Fate, Step, Timeline
from ctxviz.transcripts.assemble import LiveBlocks, first_call_shares, split_by_estimate
from ctxviz.transcripts.claude_code.parse import Entry, Piece

OVERHEAD_LABEL = "system prompt, tools, CLAUDE.md and memory: not recorded in transcripts"
# In a compaction call's own file the first call's unrecorded part is the conversation being summarised.
SUMMARISED_LABEL = "the conversation being summarised: sent to this call, not recorded in its file"
UNRECORDED_LABEL = "input not recorded in the transcript (reminders, hook context)"
SPLIT_NOTE = "split among the new items by estimated size (chars/4)"
# Shrunk first when usage falls without a compaction: microcompaction clears old tool results.
AFTER_ESTIMATED_NOTE = "size after compaction estimated until the next call measures it"
_SHRINK_ORDER = (
    BlockKind.TOOL_OUTPUT,
    BlockKind.FILE_READ,
    BlockKind.EDIT,
    BlockKind.SUBAGENT_RESULT,
    BlockKind.TOOL_CALL,
    BlockKind.REPLY,
)


class BuildState(LiveBlocks):
    """The builder's running state; the Timeline it yields is immutable."""

    def add(self, piece: Piece, tokens: int, kind: str | None = None) -> int:
        shown_whole = piece.kind in (BlockKind.PROMPT, BlockKind.REPLY)
        return self.add_block(piece.category, kind or piece.kind, piece.label, tokens, shown_whole=shown_whole).id


def _label(pieces: Sequence[Piece]) -> str:
    named = [p.label for p in pieces if p.kind not in (BlockKind.REPLY,) and p.label]
    if not named:
        named = [p.label for p in pieces if p.label]
    if not named:
        return ""
    more = f" +{len(named) - 1} more" if len(named) > 1 else ""
    return f"{named[0]}{more}"


def _shrink(state: BuildState, excess: int, keep: int | None) -> tuple[list[int], list[int], int | None]:
    """Take ``excess`` tokens out of the oldest content (whole blocks, the last one re-entered smaller);
    the block ``keep`` (the first call's unrecorded part) is taken last, when nothing else is left: in a
    resumed session it holds the earlier conversation, which a compaction summarised. Returns the
    removed and added blocks and ``keep``'s id afterwards (a new one when it re-entered smaller)."""
    removed: list[int] = []
    added: list[int] = []
    order = [b for kind in _SHRINK_ORDER for b in state.live.values() if b.kind == kind]
    chosen = {b.id for b in order}
    order += [b for b in state.live.values() if b.id not in chosen and b.id != keep]
    if keep is not None and keep in state.live:
        order.append(state.live[keep])
    for block in order:
        if excess <= 0:
            break
        state.remove(block.id)
        removed.append(block.id)
        if block.tokens > excess:
            smaller = Piece(block.kind, block.category, block.label, 0)
            added.append(state.add(smaller, block.tokens - excess))
            keep = added[-1] if block.id == keep else keep
        excess -= block.tokens
    return removed, added, keep


@dataclass
class StepBuilder:
    children: Mapping[str, Timeline]
    compaction_call: bool = False  # the file is a compaction call's own transcript
    state: BuildState = field(default_factory=BuildState)
    pending: list[Piece] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    calls: int = 0
    overhead: int | None = None

    def call(self, entry: Entry) -> None:
        used = entry.used or 0
        state = self.state
        pieces = [p for p in self.pending if p.estimate > 0] or list(self.pending)
        notes = list(self.notes)
        added: list[int] = []
        removed: list[int] = []
        if self.overhead is None:
            shares, fixed = first_call_shares(used, pieces)
            if self.compaction_call:
                overhead = Piece(BlockKind.OVERHEAD, Category.MESSAGES, SUMMARISED_LABEL, fixed)
                notes.append(f"the first call's {fixed:,} tokens beyond the recorded messages: the conversation "
                             "being summarised, with the system prompt and tools (not in this file)")  # fmt: skip
            else:
                overhead = Piece(BlockKind.OVERHEAD, Category.SYSTEM_PROMPT, OVERHEAD_LABEL, fixed)
                notes.append(f"the first call's {fixed:,} tokens beyond the recorded messages: system prompt, "
                             "tools, CLAUDE.md and memory (not in the transcript)")  # fmt: skip
            self.overhead = state.add(overhead, fixed)
            added.append(self.overhead)
        else:
            delta = used - state.total
            if delta >= 0:
                shares = split_by_estimate(delta, pieces)
                if delta > 0 and not pieces:
                    pieces = [Piece(BlockKind.OVERHEAD, Category.MESSAGES, UNRECORDED_LABEL, delta)]
                    shares = [delta]
                notes.append(f"+{delta:,} tokens measured; {SPLIT_NOTE}")
            else:
                shares = [p.estimate for p in pieces]
                excess = state.total + sum(shares) - used
                removed, added, self.overhead = _shrink(state, excess, self.overhead)
                if state.total + sum(shares) > used:  # nothing left to take from: the new items shrink
                    shares = split_by_estimate(max(0, used - state.total), pieces)
                notes.append(f"usage fell by {-delta:,} tokens without a compaction (cleared tool results or "
                             "dropped thinking); the oldest content is shown as removed (estimate)")  # fmt: skip
        child = None
        for piece, tokens in zip(pieces, shares, strict=True):
            if tokens > 0:
                added.append(state.add(piece, tokens))
            if piece.agent is not None and piece.agent in self.children:
                found = self.children[piece.agent]
                if child is None:
                    child = found
                notes.append(f"subagent {piece.label}: {found.source.name}, peak {found.peak:,} tokens")
        self.calls += 1
        label = f"call {self.calls}" + (f": {_label(pieces)}" if pieces else "")
        state.steps.append(Step(len(state.steps), StepKind.API_CALL, label, tuple(added), tuple(removed), used,
                                measured=True, notes=tuple(notes), child=child))  # fmt: skip
        self.pending = []
        self.notes = []

    def compact(self, entry: Entry, summary: Piece | None, child: Timeline | None) -> None:
        state = self.state
        trigger, pre, post = entry.compact or ("auto", None, None)
        fates = summarised_by_kind(((b.kind, b.tokens) for b in state.live.values() if b.id != self.overhead),
                                   lambda kind: "replaced by the compaction summary")  # fmt: skip
        fates += summarised_by_kind(((p.kind, p.estimate) for p in self.pending),
                                    lambda kind: "arrived after the last call; summarised")  # fmt: skip
        removed = [i for i in list(state.live) if i != self.overhead]
        for block_id in removed:
            state.remove(block_id)
        added: list[int] = []
        if summary is not None:
            tokens = summary.estimate
            if post is not None and post >= state.total:
                tokens = post - state.total
            added.append(state.add(summary, tokens))
            fates.append(Fate(summary.label, summary.kind, "new", tokens, "the summary starts the new context"))
        auto = trigger == "auto"
        notes = [f"{'auto-compaction' if auto else 'manual /compact'} after call {self.calls}"
                 + (f"; {_pre_tokens_note(pre)}" if pre is not None else "")]  # fmt: skip
        if post is None:
            notes.append(AFTER_ESTIMATED_NOTE)
        state.steps.append(Step(len(state.steps), StepKind.AUTO_COMPACT if auto else StepKind.COMPACT,
                                "auto-compaction" if auto else "/compact", tuple(added), tuple(removed),
                                state.total, measured=post is not None, notes=tuple(notes + self.notes),
                                child=child, fates=tuple(fates),
                                trigger=CompactionTrigger.AUTO if auto else CompactionTrigger.MANUAL,
                                pre_tokens=pre))  # fmt: skip
        self.pending = []
        self.notes = []


def build_steps(
    chain: Iterable[Entry],
    children: Mapping[str, Timeline],
    compaction_children: Sequence[Timeline] = (),
    *,
    compaction_call: bool = False,
) -> tuple[tuple[Step, ...], tuple[Block, ...], list[str]]:
    """Steps and blocks for an active chain. ``children`` maps a subagent id (or ``task:<tool id>``) to
    its timeline; ``compaction_children`` are the compactions' own calls, in order; ``compaction_call``
    says the chain is a compaction call's own file."""
    builder = StepBuilder(children, compaction_call)
    seen: set[str] = set()
    open_compaction: Entry | None = None
    compactions = iter(compaction_children)

    def close(summary: Piece | None) -> None:
        nonlocal open_compaction
        if open_compaction is not None:
            builder.compact(open_compaction, summary, next(compactions, None))
            open_compaction = None

    for entry in chain:
        if entry.compact is not None:
            close(None)
            open_compaction = entry
            continue
        if entry.summary and open_compaction is not None:
            close(entry.pieces[0] if entry.pieces else None)
            continue
        if entry.used is not None and entry.message_id not in seen:
            close(None)
            seen.add(entry.message_id or "")
            builder.call(entry)
        builder.pending.extend(entry.pieces)
        if entry.note:
            builder.notes.append(entry.note)
    close(None)
    state = builder.state
    left = state.left.get
    for n, b in enumerate(state.blocks):  # in place: a big session's blocks are not held twice
        state.blocks[n] = Block(b.id, b.category, b.kind, b.label, b.tokens, b.entered, left(b.id), b.visibility)
    return tuple(state.steps), tuple(state.blocks), builder.notes


def _pre_tokens_note(pre_tokens: int) -> str:
    """Whose figure it is: Claude Code's, not a measurement (the window view's "before" is the last call's)."""
    return (
        f"Claude Code counted {pre_tokens:,} tokens before it: the last call's measured size plus its "
        "estimate of what came after"
    )
