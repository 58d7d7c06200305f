"""Builds a Timeline step by step. Blocks are drafted while their step is open and frozen at the end,
once each block's ``left`` is known; nothing outside this module sees a draft."""

from __future__ import annotations

from dataclasses import dataclass

from ctxviz.timeline import Block, Category, Fate, Source, Step, Thresholds, Timeline, Visibility


@dataclass(slots=True)
class _Draft:
    id: int
    category: Category
    kind: str
    label: str
    tokens: int
    entered: int
    visibility: Visibility
    left: int | None = None


class Recorder:
    def __init__(self) -> None:
        self._drafts: list[_Draft] = []
        self._live: dict[int, _Draft] = {}
        self._steps: list[Step] = []
        self._added: list[int] = []
        self._removed: list[int] = []
        self._notes: list[str] = []
        self.used = 0

    @property
    def index(self) -> int:
        """The index of the step being recorded."""
        return len(self._steps)

    def add(self, category: Category, kind: str, label: str, tokens: int, visibility: Visibility = "hidden") -> int:
        draft = _Draft(len(self._drafts), category, kind, label, tokens, len(self._steps), visibility)
        self._drafts.append(draft)
        self._live[draft.id] = draft
        self._added.append(draft.id)
        self.used += tokens
        return draft.id

    def remove(self, block_id: int) -> None:
        draft = self._live.pop(block_id)
        draft.left = len(self._steps)
        self._removed.append(block_id)
        self.used -= draft.tokens

    def note(self, text: str) -> None:
        self._notes.append(text)

    def live(self) -> list[_Draft]:
        return list(self._live.values())

    def tokens_of(self, block_id: int) -> int:
        return self._live[block_id].tokens

    def is_live(self, block_id: int) -> bool:
        return block_id in self._live

    def pending(self) -> bool:
        return bool(self._added or self._removed or self._notes)

    def close_step(
        self,
        kind: str,
        label: str,
        *,
        note: str | None = None,
        child: Timeline | None = None,
        fates: tuple[Fate, ...] = (),
    ) -> Step:
        step = Step(
            index=self.index,
            kind=kind,
            label=label,
            added=tuple(self._added),
            removed=tuple(self._removed),
            used=self.used,
            notes=tuple(self._notes),
            note=note,
            child=child,
            fates=fates,
        )
        self._steps.append(step)
        self._added, self._removed, self._notes = [], [], []
        return step

    def finish(
        self, *, source: Source, agent: str, model: str, window: int, thresholds: Thresholds, notices: tuple[str, ...]
    ) -> Timeline:
        blocks = tuple(
            Block(d.id, d.category, d.kind, d.label, d.tokens, d.entered, d.left, d.visibility) for d in self._drafts
        )
        return Timeline(
            source=source,
            agent=agent,
            model=model,
            window=window,
            thresholds=thresholds,
            steps=tuple(self._steps),
            blocks=blocks,
            notices=notices,
        )
