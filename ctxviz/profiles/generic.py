"""What several of the other agents share beyond the policies in ``profiles/policies``: opencode-style
thresholds, instruction files chosen by name, the bookkeeping every compaction needs, and how a why-note
writes a number (with "(assumed)" when it is one)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxviz.fates import summarised_by_kind
from ctxviz.kinds import BlockKind
from ctxviz.profiles.base import (
    ReadOutcome,
    ReadPolicy,
    Session,
    StartupPolicy,
    ThresholdPolicy,
    is_assumed,
    provenance,
)
from ctxviz.scenario.measure import Measure
from ctxviz.timeline import AUTOCOMPACT_BUFFER, COMPACT_BUFFER, Block, Category, Fate, Thresholds

if TYPE_CHECKING:
    from ctxviz.scenario.model import RuleEntry

M = Category.MESSAGES


def shown(numbers: Any, name: str, unit: str = "tokens") -> str:
    """A number as a why-note writes it: ``4,000 tokens``, or ``4,000 tokens (assumed)``."""
    value = provenance(numbers)[name][0]
    text = f"{value:,}" if isinstance(value, int) else str(value)
    return f"{text}{' ' + unit if unit else ''}{' (assumed)' if is_assumed(numbers, name) else ''}"


# --- thresholds ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class OutputReserveTrigger:
    """Compaction at context − output − min(reserve cap, output) (opencode's ``usable``), where output
    is the model's max output capped at ``output_cap`` (what the agent asks the model for at most)."""

    reserve_cap: int
    output_cap: int

    def output(self, max_output: int) -> int:
        return min(max_output, self.output_cap)

    def usable(self, window: int, max_output: int) -> int:
        output = self.output(max_output)
        return window - output - min(self.reserve_cap, output)

    def thresholds(
        self, window: int, max_output: int, autocompact: bool | int = True, autocompact_pct: float | None = None
    ) -> Thresholds:
        blocking = window - self.output(max_output)  # the rest of the window is the answer's
        if autocompact is False:
            return Thresholds(None, blocking, blocking, 0, COMPACT_BUFFER)
        base = window if autocompact is True else min(window, autocompact)
        trigger = self.usable(base, max_output)
        if autocompact_pct is not None:
            trigger = min(trigger, int(base * autocompact_pct // 100))
        return Thresholds(trigger, trigger, blocking, window - trigger, AUTOCOMPACT_BUFFER)

    def formula(self) -> str:
        output = f"min(max output, {self.output_cap:,})"
        return f"window − {output} − min({self.reserve_cap:,}, that)"


@dataclass(frozen=True, slots=True)
class AssumedTrigger:
    """A trigger nobody published: the same arithmetic, and every why-note that names it says "assumed"."""

    inner: ThresholdPolicy

    def thresholds(
        self, window: int, max_output: int, autocompact: bool | int = True, autocompact_pct: float | None = None
    ) -> Thresholds:
        return self.inner.thresholds(window, max_output, autocompact, autocompact_pct)

    def formula(self) -> str:
        return f"{self.inner.formula()} (assumed)"


@dataclass(frozen=True, slots=True)
class AssumedStartupNoted:
    """The agent's startup, with one why-note up front naming which of its sizes are assumptions."""

    inner: StartupPolicy
    numbers: Any
    names: tuple[str, ...]  # the numbers the startup uses

    def startup(self, session: Session, hook_source: str) -> None:
        guesses = [name for name in self.names if is_assumed(self.numbers, name)]
        if guesses and session.subagent_type is None and hook_source == "startup":
            values = provenance(self.numbers)
            listed = ", ".join(f"{name.replace('_', ' ')} {values[name][0]:,}" for name in guesses)
            session.note(f"assumed (nobody published them): {listed}")
        self.inner.startup(session, hook_source)


@dataclass(frozen=True, slots=True)
class AssumedReadLimit:
    """A read policy whose limit nobody published: each note it writes says the limit is assumed."""

    inner: ReadPolicy
    why: str

    @property
    def unchanged_stub(self) -> int | None:
        return self.inner.unchanged_stub

    def read(self, path: str, size: Measure, lines: tuple[int, int] | None = None) -> ReadOutcome:
        outcome = self.inner.read(path, size, lines)
        if outcome.why is None:
            return outcome
        return ReadOutcome(outcome.kind, outcome.tokens, f"{outcome.why} (assumed: {self.why})")


# --- what a mention put in the prompt ----------------------------------------------------------------
MENTIONED = "mentioned-content"  # ids of blocks a mention added: prompt text, not a tool's result


def read_as_prompt_text(session: Session, path: str, label: str, lines: tuple[int, int] | None = None) -> None:
    """A mention's read: its content is part of the user's message, so no pruning or masking of tool
    results touches it later."""
    before = {b.id for b in session.live()}
    session.read(path, label=label, mention=True, lines=lines)
    mentioned: set[int] = session.state.policy.setdefault(MENTIONED, set())
    mentioned.update(b.id for b in session.live() if b.id not in before)


def tool_results(session: Session, blocks: Iterable[Block], skip: set[int]) -> list[Block]:
    """The tool results among ``blocks``, leaving out what a mention put in a prompt and the ids in ``skip``."""
    mentioned = session.state.policy.get(MENTIONED, set())
    return [b for b in blocks if b.kind in TOOL_RESULTS and b.id not in mentioned and b.id not in skip]


TOOL_RESULTS = (BlockKind.TOOL_OUTPUT, BlockKind.FILE_READ, BlockKind.SPILLED_OUTPUT, BlockKind.SUBAGENT_RESULT)


# --- instruction files -----------------------------------------------------------------------------------
def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class NamedInstructions:
    """Instruction files chosen by name. In each folder an agent reads either the first name found
    (``first_only``) or every one; ``user`` are the user-level paths it reads (first found), ``nested_names``
    the names it loads when a file below their folder is touched. ``header`` is text added per file."""

    agent: str
    names: tuple[str, ...]
    first_only: bool
    user: tuple[str, ...] = ()
    nested_names: tuple[str, ...] = ()
    header: Callable[[str], int] | None = None

    def startup_files(self, session: Session) -> list[tuple[str, int]]:
        memory = session.scenario.setup.memory
        chosen = [p for p in self.user if p in memory][:1]
        root = [name for name in self.names if name in memory]
        chosen += root[:1] if self.first_only else root
        for path in memory:
            if path not in chosen:
                session.note(f"{path} not loaded: {self.agent} reads {self._reads()}")
        return [(p, memory[p].memory_size.tokens + (self.header(p) if self.header else 0)) for p in chosen]

    def _reads(self) -> str:
        names = ", ".join(self.names)
        return f"the first of {names}" if self.first_only and len(self.names) > 1 else names

    def nested(self, files: Iterable[str]) -> list[tuple[str, str]]:
        return [(_folder(p), p) for p in files if "/" in p and _name(p) in self.nested_names]

    def scoped_rules(self, rules: Mapping[str, RuleEntry]) -> dict[str, RuleEntry]:
        """Path-scoped rules are Claude Code's and Cursor's: this agent reads none."""
        return {}


# --- compaction bookkeeping ------------------------------------------------------------------------------
def history(session: Session) -> list[Block]:
    """The message history: every live block in Messages, oldest first."""
    return [block for block in session.live() if block.category is M]


def drop(session: Session, blocks: Sequence[Block], why: Callable[[str], str]) -> list[Fate]:
    """Remove ``blocks`` as summarised: one fate per kind."""
    for block in blocks:
        session.remove(block.id)
    return summarised_by_kind(((b.kind, b.tokens) for b in blocks), why)


def kept_fates(blocks: Sequence[Block], why: str) -> list[Fate]:
    return [Fate(b.label, b.kind, "kept", b.tokens, why) for b in blocks]


def add_summary(session: Session, tokens: int, label: str, why: str) -> Fate:
    session.add(M, BlockKind.SUMMARY, label, tokens, "brief")
    return Fate("Summary", BlockKind.SUMMARY, "new", tokens, why)


def reset_reads(session: Session) -> None:
    """After a compaction nothing counts as read or loaded any more."""
    state = session.state
    state.loaded_rules.clear()
    state.loaded_nested.clear()
    state.current.clear()
    state.crossed_warning = False


class ClearsHistory:
    """A compaction policy's /clear for an agent whose /clear empties the history and adds nothing back
    (every agent but claude-code, which lists its skills again)."""

    __slots__ = ()  # its subclasses are slotted dataclasses

    def clear(self, session: Session) -> None:
        for block in history(session):
            session.remove(block.id)


class FoldsHistory(ClearsHistory):
    """A compaction that keeps what is not history (it is sent with every request) and folds the history:
    ``fold`` replaces what it replaces, returns a fate per piece and whether anything changed; if it did,
    nothing counts as read or loaded any more."""

    __slots__ = ()

    def compact(self, session: Session, *, manual: bool, focus: str | None, summary: Measure | None) -> list[Fate]:
        fates = startup_kept(session)
        folded, changed = self.fold(session, history(session), summary)
        if changed:
            reset_reads(session)
        return fates + folded

    def fold(self, session: Session, blocks: list[Block], summary: Measure | None) -> tuple[list[Fate], bool]:
        raise NotImplementedError


def summary_tokens(
    session: Session, requested: Measure | None, default: int, each: Sequence[int], new_context: Sequence[int] = ()
) -> int:
    """A compaction's summary: the size a /compact gives; else for the n-th automatic compaction what the new
    context the agent's own figures give (``new_context``) leaves beyond what is in the window now, or its
    recorded summary (``each``; ``import`` sets both); else ``default``."""
    if requested is not None:
        return requested.tokens
    automatic: int = session.state.policy.get(_AUTOMATIC_SUMMARIES, 0)
    session.state.policy[_AUTOMATIC_SUMMARIES] = automatic + 1
    if automatic < len(new_context):
        return max(0, new_context[automatic] - sum(block.tokens for block in session.live()))
    return each[automatic] if automatic < len(each) else default


_AUTOMATIC_SUMMARIES = "generic.automatic_summaries"  # how many automatic compactions took their summary


def startup_kept(session: Session) -> list[Fate]:
    """What is not history stays: it is sent with every request."""
    return [
        Fate(b.label, b.kind, "kept", b.tokens, "not history: sent with every request")
        for b in session.live()
        if b.category is not M
    ]
