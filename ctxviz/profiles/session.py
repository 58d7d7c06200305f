"""What a policy sees of a replay in progress: the ``Session`` protocol (the engine's session implements it)
and the memory a session keeps between events. Pure: no engine import, so profiles depend only on this."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ctxviz.kinds import BlockKind, StepKind
from ctxviz.scenario.measure import Measure
from ctxviz.timeline import Block, Category, Fate, Thresholds, Visibility

if TYPE_CHECKING:
    from ctxviz.profiles.base import Profile
    from ctxviz.scenario.model import FileEntry, Hook, Scenario


@dataclass(frozen=True, slots=True)
class Triggered:
    kind: BlockKind  # RULE or NESTED_MEMORY
    path: str
    tokens: int
    why: str


@dataclass
class Background:
    label: str
    remaining: int
    tokens: int
    why: str


@dataclass
class SessionState:
    """What the session remembers between events (reset in part by compaction and /clear)."""

    touched: dict[str, int] = field(default_factory=dict)  # path → order of the last read or edit
    current: set[str] = field(default_factory=set)  # read and unchanged since: a re-read is a stub
    sent_outputs: dict[str, int] = field(default_factory=dict)  # a tool output's digest → the block that holds it
    loaded_rules: set[str] = field(default_factory=set)
    loaded_nested: set[str] = field(default_factory=set)
    invoked_skills: dict[str, int] = field(default_factory=dict)  # name → order of the last invocation
    plan: int | None = None
    plan_block: int | None = None
    loaded_schemas: set[str] = field(default_factory=set)
    background: list[Background] = field(default_factory=list)
    crossed_warning: bool = False
    # a policy's own memory, by policy (e.g. what a dedup mention policy has already sent); compaction and
    # /clear leave it to the policy that owns it
    policy: dict[str, Any] = field(default_factory=dict)


class Session(Protocol):
    """What a policy may read and do while the engine replays a scenario (the engine's session)."""

    profile: Profile
    scenario: Scenario
    window: int
    thresholds: Thresholds
    subagent_type: str | None  # None: the main session
    state: SessionState
    event_index: int | None  # the scenario event being replayed (None during startup and automatic steps)

    @property
    def used(self) -> int: ...
    @property
    def files(self) -> Mapping[str, FileEntry]:
        """The scenario's project files (see ``exists`` and ``file_size`` for files a write created)."""
        ...

    def exists(self, path: str) -> bool: ...
    def file_version(self, path: str) -> int:
        """How many times an edit or write changed ``path`` (its content differs between versions)."""
        ...

    def add(
        self, category: Category, kind: BlockKind, label: str, tokens: int, visibility: Visibility = "hidden"
    ) -> int:
        """A block enters; returns its id."""
        ...

    def remove(self, block_id: int) -> None: ...
    def note(self, text: str) -> None:
        """A why-note for the step being built."""
        ...

    def live(self) -> list[Block]: ...
    def is_live(self, block_id: int) -> bool: ...
    def pending(self) -> bool: ...
    def close_step(self, kind: StepKind, label: str, *, fates: tuple[Fate, ...] = ()) -> None: ...
    def order(self) -> int:
        """A counter for recency (touched files, invoked skills)."""
        ...

    def file_size(self, path: str) -> Measure:
        """The size of a project file (a file created by a write has the size written)."""
        ...

    def read(
        self,
        path: str,
        *,
        label: str,
        mention: bool,
        kind: BlockKind = BlockKind.FILE_READ,
        lines: tuple[int, int] | None = None,
    ) -> int | None:
        """A read through the profile's read policy (``lines``: a 1-based inclusive range), with the rules
        and nested instruction files it triggers; returns the tokens added, None when the read failed.
        ``mention`` True: not a tool call (no unchanged-file stub)."""
        ...

    def triggered_by(self, path: str, how: str) -> list[Triggered]: ...
    def triggers(self, path: str, how: str) -> None: ...
    def tool_call(self, tool: str, label: str, extra: int = 0, visibility: Visibility = "brief") -> None: ...
    def hooks(self, event: str, subject: str) -> tuple[Hook, ...]: ...
    def hook_tokens(self, hook: Hook) -> int: ...
    def session_start_hooks(self, source: str) -> None: ...
