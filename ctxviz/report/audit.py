"""Carried cost: what a session sent, call by call, and which items it was made of. Pure: a Timeline in.

Every API call sends the whole window again, so an item costs its tokens times the calls it stayed in the
window (``carried``). The calls are a transcript's measured API calls; a replayed scenario has none of its
own, so there a call follows each event the model answers (a prompt, a tool's result). The items' carried
tokens add up to what the calls sent: a transcript's builder shares each call's measured growth among
what entered before it, and the engine's window is the sum of its blocks; whatever no item holds is
counted apart (``unaccounted``), never spread over the items.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ctxviz.kinds import ANSWERED_STEP_KINDS, BlockKind, CostKind, StepKind
from ctxviz.timeline import CATEGORIES, Block, Category, Timeline


@dataclass(frozen=True, slots=True)
class Item:
    """One block of the window as the calls sent it. Calls count from 1, as ``context --at`` counts."""

    block: int  # the block's id in its timeline
    label: str
    kind: str
    category: str
    tokens: int
    first_call: int
    last_call: int
    calls: int

    @property
    def carried(self) -> int:
        return self.tokens * self.calls


@dataclass(frozen=True)
class CarriedCost:
    call_steps: tuple[int, ...]  # the step each call sent (its window after that step)
    input_tokens: int  # the sum of every call's context
    items: tuple[Item, ...]  # largest carried first
    measured: bool  # the calls' sizes come from the API (a transcript), not from a replay
    # each file edited or written, with the first call that sent each change
    edits: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        return len(self.call_steps)

    @property
    def carried(self) -> int:
        return sum(item.carried for item in self.items)

    @property
    def unaccounted(self) -> int:
        """What the calls sent that no item holds (0 when the window is the sum of its blocks)."""
        return self.input_tokens - self.carried

    @property
    def carried_over(self) -> int:
        """What the calls sent again: each item's tokens times the calls after the one it entered with."""
        return sum(item.tokens * (item.calls - 1) for item in self.items)

    def categories(self) -> dict[str, int]:
        """Carried tokens per ``/context`` category, in its order; categories nothing was sent in are left
        out (for a transcript they are inside the unrecorded start-up, not zero)."""
        totals = dict.fromkeys((c.value for c in CATEGORIES), 0)
        for item in self.items:
            totals[item.category] += item.carried
        return {name: tokens for name, tokens in totals.items() if tokens}

    def share(self, item: Item) -> float:
        return item.carried / self.input_tokens if self.input_tokens else 0.0


_CHANGE_STEPS = frozenset({StepKind.EDIT, StepKind.WRITE})


def measured_call_steps(timeline: Timeline) -> list[int]:
    """A transcript's API calls whose usage the log records."""
    return [s.index for s in timeline.steps if s.kind == StepKind.API_CALL and s.measured]


def answered_call_steps(timeline: Timeline) -> list[int]:
    """A replayed scenario's calls: one after each event the model answers, sent with the window as that
    event (and any compaction it set off) left it. Start-up steps come before any event: no call."""
    calls: list[int] = []
    answered = False
    last = -1
    current: int | None = None
    for step in timeline.steps:
        if step.event is not None and step.event != current:
            if answered:
                calls.append(last)
            current, answered = step.event, False
        if current is not None:
            answered = answered or step.kind in ANSWERED_STEP_KINDS
            last = step.index
    if answered:
        calls.append(last)
    return calls


def call_steps(timeline: Timeline) -> list[int]:
    """The calls of a transcript (measured) or of a replay (answered events)."""
    if timeline.source.kind == "transcript":
        return measured_call_steps(timeline)
    return answered_call_steps(timeline)


def cost_kind(block: Block) -> str:
    """A transcript's unrecorded start-up is held in System prompt; what it could not place later, in
    Messages."""
    if block.kind == BlockKind.OVERHEAD:
        if block.category == Category.SYSTEM_PROMPT:
            return CostKind.STARTUP_OVERHEAD
        return CostKind.UNEXPLAINED_GROWTH
    return block.kind


def carried_cost(timeline: Timeline, steps: Sequence[int] | None = None) -> CarriedCost:
    """Each block's carried tokens over the calls at ``steps`` (default: ``call_steps``), and what the
    calls sent. A block is in a call when ``entered <= step < left``."""
    calls = list(call_steps(timeline) if steps is None else steps)
    items: list[Item] = []
    end = len(timeline.steps)
    for block in timeline.blocks:
        first = bisect_left(calls, block.entered)
        stop = bisect_left(calls, end if block.left is None else block.left)
        if stop <= first or block.tokens == 0:
            continue  # never sent: it left (or the session ended) before the next call
        kind = cost_kind(block)
        items.append(Item(block.id, block.label, kind, block.category.value, block.tokens, first + 1, stop,
                          stop - first))  # fmt: skip
    items.sort(key=lambda item: (-item.carried, item.first_call, item.block))
    sent = sum(timeline.steps[step].used for step in calls)
    edits: dict[str, list[int]] = {}
    # a file changed: a replay's edit or write step is named by the path, a transcript's edit block too
    changed = [(s.label, s.index) for s in timeline.steps if s.kind in _CHANGE_STEPS]
    changed += [(b.label, b.entered) for b in timeline.blocks if b.kind == BlockKind.EDIT]
    for path, step in changed:
        edits.setdefault(path, []).append(bisect_left(calls, step) + 1)
    measured = bool(calls) and all(timeline.steps[step].measured for step in calls)
    return CarriedCost(tuple(calls), sent, tuple(items), measured, {p: tuple(sorted(c)) for p, c in edits.items()})


def carried_so_far(timeline: Timeline, index: int) -> CarriedCost:
    """The carried cost of the calls up to step ``index`` (``ctxviz context --at N``)."""
    return carried_cost(timeline, [step for step in call_steps(timeline) if step <= index])
