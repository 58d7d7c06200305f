"""Builds a Timeline step by step. A block enters with ``left=None``; when it leaves, it is replaced by a
copy that records the step (a block itself never changes). The engine's session is a Recorder (a base
class, not a member: its window operations run 60,000 times for 10,000 events, and a forwarding call
each cost about 10 ms)."""

from __future__ import annotations

from msgspec.structs import replace

from ctxviz.kinds import CompactionTrigger
from ctxviz.timeline import Block, Category, Fate, Source, Step, Thresholds, Timeline, Visibility


class Recorder:
    def __init__(self) -> None:
        self._blocks: list[Block] = []  # by id
        self._live: dict[int, Block] = {}  # in the order they entered
        self._steps: list[Step] = []
        self._added: list[int] = []
        self._removed: list[int] = []
        self._notes: list[str] = []
        self.used = 0

    def add(self, category: Category, kind: str, label: str, tokens: int, visibility: Visibility = "hidden") -> int:
        block = Block(len(self._blocks), category, kind, label, tokens, len(self._steps), None, visibility)
        self._blocks.append(block)
        self._live[block.id] = block
        self._added.append(block.id)
        self.used += tokens
        return block.id

    def remove(self, block_id: int) -> None:
        block = self._live.pop(block_id)
        self._blocks[block_id] = replace(block, left=len(self._steps))
        self._removed.append(block_id)
        self.used -= block.tokens

    def withdraw_added(self) -> int:
        """Take back every block added in the step being built (a request refused as too long never
        entered the window); returns their tokens."""
        tokens = 0
        for block_id in reversed(self._added):
            block = self._live.pop(block_id, None)
            if block is not None and block_id == len(self._blocks) - 1:
                self._blocks.pop()
                tokens += block.tokens
            elif block is not None:
                self._live[block_id] = block
        self._added = [b for b in self._added if b < len(self._blocks)]
        self.used -= tokens
        return tokens

    def note(self, text: str) -> None:
        self._notes.append(text)

    def live(self) -> list[Block]:
        return list(self._live.values())

    def is_live(self, block_id: int) -> bool:
        return block_id in self._live

    def pending(self) -> bool:
        return bool(self._added or self._removed or self._notes)

    def record_step(
        self,
        kind: str,
        label: str,
        *,
        note: str | None = None,
        child: Timeline | None = None,
        fates: tuple[Fate, ...] = (),
        event: int | None = None,
        trigger: CompactionTrigger | None = None,
    ) -> Step:
        step = Step(
            index=len(self._steps),
            kind=kind,
            label=label,
            added=tuple(self._added),
            removed=tuple(self._removed),
            used=self.used,
            notes=tuple(self._notes),
            note=note,
            child=child,
            fates=fates,
            event=event,
            trigger=trigger,
        )
        self._steps.append(step)
        self._added, self._removed, self._notes = [], [], []
        return step

    def build_timeline(
        self, *, source: Source, agent: str, model: str, window: int, thresholds: Thresholds, notices: tuple[str, ...]
    ) -> Timeline:
        return Timeline(
            source=source,
            agent=agent,
            model=model,
            window=window,
            thresholds=thresholds,
            steps=tuple(self._steps),
            blocks=tuple(self._blocks),
            notices=notices,
        )
