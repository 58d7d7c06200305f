"""The one product type: a Timeline of steps and the blocks they put into (and take out of) a window.

Both the scenario engine and the transcript readers produce a Timeline; the report and the TUI only
consume it. Pure values: no I/O, no Textual, no Rich.

A block is in the window for steps ``entered <= i < left`` (``left`` None = until the end). Per-step
category totals are computed once (on first use), so ``used_at``/``breakdown_at`` are O(1) and ``state_at`` replays at
most ``_CHECKPOINT_EVERY`` steps from a stored live set — scrubbing a 100,000-step timeline costs the
same per step as scrubbing a 10-step one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Literal

import msgspec

from ctxviz.kinds import COMPACTION_STEP_KINDS as COMPACTION_STEP_KINDS  # re-exported: timeline vocabulary
from ctxviz.kinds import USER_STEP_KINDS as USER_STEP_KINDS
from ctxviz.kinds import BlockKind as BlockKind
from ctxviz.kinds import CompactionTrigger as CompactionTrigger
from ctxviz.kinds import StepKind as StepKind

Visibility = Literal["hidden", "brief", "full"]


class Category(StrEnum):
    """The categories of Claude Code's ``/context``, in its order."""

    SYSTEM_PROMPT = "System prompt"
    SYSTEM_TOOLS = "System tools"
    MCP_TOOLS = "MCP tools"
    CUSTOM_AGENTS = "Custom agents"
    MEMORY_FILES = "Memory files"
    SKILLS = "Skills"
    MESSAGES = "Messages"


CATEGORIES: tuple[Category, ...] = tuple(Category)
FREE_SPACE = "Free space"
AUTOCOMPACT_BUFFER = "Autocompact buffer"
COMPACT_BUFFER = "Compact buffer"  # what /context calls the reserve when auto-compaction is off

_CHECKPOINT_EVERY = 64


# Blocks, fates and steps are frozen msgspec Structs rather than frozen dataclasses: just as immutable,
# but built in C (0.1 µs against 2.6–4.2 µs a frozen dataclass takes here), which matters at 100,000
# steps; and msgspec writes them as JSON objects in field order, which is the documented key order.
class Block(msgspec.Struct, frozen=True):
    """One piece of content in the window. Never mutated: a change is one block leaving, another entering."""

    id: int
    category: Category
    kind: str
    label: str
    tokens: int
    entered: int
    left: int | None = None
    visibility: Visibility = "hidden"


class Fate(msgspec.Struct, frozen=True):
    """What a compaction did with one piece of content, and why (for the compaction table)."""

    label: str
    kind: str
    fate: Literal[
        "kept", "reinjected", "restored", "truncated", "referenced", "dropped", "summarised", "new", "not-restored"
    ]
    tokens: int
    why: str


class Step(msgspec.Struct, frozen=True):
    """One event and its effect on the window."""

    index: int
    kind: str
    label: str
    added: tuple[int, ...]
    removed: tuple[int, ...]
    used: int
    measured: bool = False
    notes: tuple[str, ...] = ()
    note: str | None = None  # the scenario author's narration
    child: Timeline | None = None
    fates: tuple[Fate, ...] = ()
    event: int | None = None  # index of the scenario event it came from; None: startup, automatic, transcripts
    trigger: CompactionTrigger | None = None  # a compaction's; None for every other step
    pre_tokens: int | None = None  # a compaction's size before, as the agent itself recorded it (None: not recorded)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Where the warnings and compaction happen. ``autocompact`` is None when auto-compaction is off."""

    autocompact: int | None
    warning: int
    blocking: int
    buffer: int  # the reserve /context shows after Free space
    buffer_label: str = AUTOCOMPACT_BUFFER

    @classmethod
    def from_trigger(cls, autocompact: int, window: int) -> Thresholds:
        """An agent with no warning of its own before it compacts, blocked only by the full window (what
        the readers of other agents' transcripts know)."""
        return cls(autocompact=autocompact, warning=autocompact, blocking=window, buffer=window - autocompact)


@dataclass(frozen=True, slots=True)
class Source:
    kind: Literal["scenario", "transcript"]
    name: str
    path: str | None = None
    summary: str | None = None


@dataclass(frozen=True, eq=False)
class Timeline:
    source: Source
    agent: str
    model: str
    window: int
    thresholds: Thresholds
    steps: tuple[Step, ...]
    blocks: tuple[Block, ...]
    tokenizer: str = "cl100k_base"
    notices: tuple[str, ...] = ()  # things the viewer must be told (a guessed window, a fallback counter)

    # The per-step tables are derived on first use, not at construction: a timeline that is only copied
    # (``dataclasses.replace`` to relabel it) or written out never pays for them twice.
    @cached_property
    def _by_id(self) -> Mapping[int, Block]:
        return {block.id: block for block in self.blocks}

    @cached_property
    def _tables(self) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
        """Category totals after each step, and the live set every ``_CHECKPOINT_EVERY`` steps (as a
        tuple: a frozenset of each took four times the memory, 34 MB for a 67,000-call session)."""
        column = {category: n for n, category in enumerate(CATEGORIES)}
        where = {block.id: (column[block.category], block.tokens) for block in self.blocks}
        running = [0] * len(CATEGORIES)
        live: set[int] = set()
        totals: list[tuple[int, ...]] = []
        checkpoints: list[tuple[int, ...]] = []
        for step in self.steps:
            if step.index % _CHECKPOINT_EVERY == 0:
                checkpoints.append(tuple(live))
            for block_id in step.removed:
                n, tokens = where[block_id]
                running[n] -= tokens
                live.discard(block_id)
            for block_id in step.added:
                n, tokens = where[block_id]
                running[n] += tokens
                live.add(block_id)
            totals.append(tuple(running))
        return tuple(totals), tuple(checkpoints)

    @cached_property
    def _last_totals(self) -> tuple[int, ...]:
        """Category totals after the last step, the sum ``_tables`` arrives at: what a subagent's result
        and the JSON's breakdown ask for, in about half the time of the tables (6 ms against 11 for
        10,000 steps)."""
        totals = dict.fromkeys(CATEGORIES, 0)
        by_id = {block.id: block for block in self.blocks}
        for step in self.steps:
            for block_id in step.removed:
                block = by_id[block_id]
                totals[block.category] -= block.tokens
            for block_id in step.added:
                block = by_id[block_id]
                totals[block.category] += block.tokens
        return tuple(totals.values())

    def _totals_at(self, index: int) -> tuple[int, ...]:
        if index == len(self.steps) - 1 >= 0 and "_tables" not in self.__dict__:
            return self._last_totals
        return self._tables[0][index]

    # --- cheap queries for any step -------------------------------------------------------------
    def block(self, block_id: int) -> Block:
        return self._by_id[block_id]

    def used_at(self, index: int) -> int:
        return self.steps[index].used

    def category_totals_at(self, index: int) -> dict[Category, int]:
        """Tokens per category from the live blocks (for a measured transcript these are estimates)."""
        return dict(zip(CATEGORIES, self._totals_at(index), strict=True))

    def breakdown_at(self, index: int) -> dict[str, int]:
        """The ``/context`` rows at step ``index``: the categories, Free space and the buffer."""
        rows: dict[str, int] = {c.value: t for c, t in zip(CATEGORIES, self._totals_at(index), strict=True)}
        used = self.used_at(index)
        rows[FREE_SPACE] = max(0, self.window - used - self.thresholds.buffer)
        rows[self.thresholds.buffer_label] = self.thresholds.buffer
        return rows

    @cached_property
    def _last_live(self) -> set[int]:
        """The blocks in the window after the last step, without the tables (what ``context`` at the last
        call asks for)."""
        live: set[int] = set()
        for step in self.steps:
            live.difference_update(step.removed)
            live.update(step.added)
        return live

    def state_at(self, index: int) -> list[Block]:
        """The blocks in the window after step ``index``, in the order they entered."""
        if index == len(self.steps) - 1 >= 0 and "_tables" not in self.__dict__:
            return sorted((self._by_id[i] for i in self._last_live), key=lambda b: (b.entered, b.id))
        start = (index // _CHECKPOINT_EVERY) * _CHECKPOINT_EVERY
        live = set(self._tables[1][index // _CHECKPOINT_EVERY])
        for step in self.steps[start : index + 1]:
            live.difference_update(step.removed)
            live.update(step.added)
        return sorted((self._by_id[i] for i in live), key=lambda b: (b.entered, b.id))

    def blocks_of(self, ids: Iterable[int]) -> list[Block]:
        return [self._by_id[i] for i in ids]

    # --- navigation helpers shared by every face ------------------------------------------------
    @property
    def last(self) -> int:
        return len(self.steps) - 1

    @property
    def peak(self) -> int:
        return max((s.used for s in self.steps), default=0)

    def compaction_indices(self) -> list[int]:
        return [s.index for s in self.steps if s.kind in COMPACTION_STEP_KINDS]

    def level_at(self, index: int) -> Literal["ok", "warning", "over"]:
        """Colour state of the header: below warning, warning, or at/over the compaction threshold."""
        used = self.used_at(index)
        limit = self.thresholds.autocompact
        if limit is None:
            limit = self.thresholds.blocking
        if used >= limit:
            return "over"
        if used >= self.thresholds.warning:
            return "warning"
        return "ok"
