"""The ``pi`` profile: badlogic/pi-mono's coding agent, as read at @83378aad. pi runs Claude models, so a
scenario's Claude model applies. A small prompt and four tools; bash keeps the tail of long output; an
@-mention in the editor is only the path; compaction keeps the newest 20,000 tokens. It has no subagents:
a scenario's subagent work happens in the main window."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxviz.kinds import AgentName, BlockKind
from ctxviz.profiles.base import OutputOutcome, Profile, Session, ToolNames, number
from ctxviz.profiles.generic import (
    TOOL_RESULTS,
    FoldsHistory,
    NamedInstructions,
    add_summary,
    drop,
    kept_fates,
    shown,
    summary_tokens,
)
from ctxviz.profiles.limits import tokens_of
from ctxviz.profiles.policies.mentions import PathOnly
from ctxviz.profiles.policies.reads import TruncateAtLimits, within
from ctxviz.profiles.policies.subagents import NoSubagents
from ctxviz.profiles.policies.thresholds import WindowMinus
from ctxviz.profiles.skeleton import SizesAsClaudeCode, agent_profile, claude_models, noted_startup
from ctxviz.profiles.teaching import CompactionWords, Teaching
from ctxviz.scenario.measure import Measure
from ctxviz.timeline import Block, Fate

if TYPE_CHECKING:
    from ctxviz.recorded import RecordedCall, RecordedCompaction, RecordedSession

_AT = "badlogic/pi-mono packages/coding-agent @83378aad"


@dataclass(frozen=True, slots=True)
class PiNumbers(SizesAsClaudeCode):
    default_model: str = number("claude-sonnet-4-6", "assumed", "pi has no fixed default: ctxviz's")
    model_windows: str = number(
        "as claude-code", "assumed", "its provider catalog: the same windows as claude-code's table, we assume"
    )
    reserve: int = number(16_384, "source", f"{_AT} src/core/compaction/compaction.ts reserveTokens")
    system_prompt: int = number(625, "source", f"{_AT} src/core/system-prompt.ts: ~2,500 chars / 4")
    tools: int = number(1_200, "assumed", "read, bash, edit, write definitions; not measured")
    read_max_lines: int = number(2_000, "source", f"{_AT} src/core/tools/truncate.ts")
    read_max_bytes: int = number(51_200, "source", f"{_AT} src/core/tools/truncate.ts (50 KB)")
    bash_max_lines: int = number(2_000, "source", f"{_AT} src/core/tools/bash.ts (the tail)")
    bash_max_bytes: int = number(51_200, "source", f"{_AT} src/core/tools/bash.ts (the tail, 50 KB)")
    spill_note: int = number(30, "assumed", "'full output: pi-bash-<id>.log'; not measured")
    keep_recent: int = number(20_000, "source", f"{_AT} src/core/compaction/compaction.ts keepRecentTokens")
    summary: int = number(4_000, "assumed", "the structured summary's length is not fixed")
    summary_each: tuple[int, ...] = number(
        (), "measured", "a session's own: each automatic compaction's recorded summary in turn (import sets it)"
    )
    new_context_each: tuple[int, ...] = number(
        (),
        "measured",
        "a session's own: the new context after each automatic compaction, pi's count of what it kept and "
        "its summary (import sets it; the summary is what it leaves)",
    )


NUMBERS = PiNumbers()


@dataclass(frozen=True, slots=True)
class RecordedRules:
    """pi's compaction for ``fidelity`` (compaction.ts at @83378aad, the same rule at 66ba6305 of December
    2025): after an answer, the last call's ``totalTokens`` (input, output, cache read and write) over the
    window less ``reserveTokens`` compacts; the new context is the overhead, what pi counted for the entries
    it kept, and the summary. pi's log does not say whether a compaction was typed (``/compact``): one
    whose ``tokensBefore`` is not over that line cannot be automatic, so it was typed."""

    numbers: PiNumbers

    def compacts(self, session: RecordedSession, size: int, call: RecordedCall) -> bool:
        return self.own_count(size, call) > self.limit(session)

    def own_count(self, size: int, call: RecordedCall) -> int:
        """pi's count after ``call``'s answer: its ``totalTokens``, input and output; nothing since."""
        return size + call.output

    def limit(self, session: RecordedSession) -> int:
        return session.window - self.numbers.reserve

    def typed(self, session: RecordedSession, compaction: RecordedCompaction) -> bool | None:
        if compaction.manual is not None:
            return compaction.manual
        if compaction.pre_tokens is None:
            return None
        return True if compaction.pre_tokens <= self.limit(session) else None

    def size_after(self, session: RecordedSession, compaction: RecordedCompaction | None) -> int:
        if compaction is not None and compaction.kept is not None:
            return session.overhead + compaction.kept
        return session.overhead + self.numbers.keep_recent + self.numbers.summary


RECORDED_RULES = RecordedRules(NUMBERS)


@dataclass(frozen=True, slots=True)
class KeepTail:
    """Every tool runs through bash here (pi has read, bash, edit, write): over 2,000 lines or 50 KB the
    tail is kept; over 50 KB the full output also goes to a temp file, and the model is told where."""

    numbers: PiNumbers
    turn_budget_chars: int | None = None

    def limit(self, tool: str) -> int | None:
        return self.numbers.bash_max_bytes

    def result(self, tool: str, label: str, size: Measure, forced: bool) -> OutputOutcome:
        n = self.numbers
        kept = within(size, n.bash_max_lines, n.bash_max_bytes)
        if kept == size:
            return OutputOutcome(size.tokens, spilled=False)
        spilled = size.bytes > n.bash_max_bytes
        tokens = kept.tokens + n.spill_note
        where = "; the full output is in a temp file" if spilled else ""
        return OutputOutcome(
            tokens,
            spilled=spilled,
            why=f"{label}: {size.lines:,} lines / {size.bytes:,} bytes: the last {kept.lines:,} lines "
            f"({kept.tokens:,} tokens) are kept with a notice ({shown(n, 'spill_note')}){where}",
        )


def cut_point(blocks: list[tuple[int, bool]], keep_recent: int) -> int:
    """Where compaction cuts the history, given (tokens, may start the kept part) per block, oldest first:
    walking back from the newest, at the block where ``keep_recent`` tokens are reached, then forward to
    the first block that may start a kept part. Returns the index of the first block kept; 0 keeps all."""
    total = 0
    for n in range(len(blocks) - 1, -1, -1):
        total += blocks[n][0]
        if total >= keep_recent:
            return next((m for m in range(n, len(blocks)) if blocks[m][1]), len(blocks))
    return 0


@dataclass(frozen=True, slots=True)
class KeepRecentTokens(FoldsHistory):
    """Compaction (compaction.ts): the newest ~20,000 tokens stay verbatim, cut only where a message
    starts (never at a tool result); the rest becomes a structured summary with the files read and
    modified."""

    numbers: PiNumbers
    # A session's usage sometimes falls with no compaction (an aborted answer's partial output, a provider's
    # own trimming): an imported scenario gives it as an event's ``cleared``, which the replay honours.
    clears_old_results: bool = True

    def fold(self, session: Session, blocks: list[Block], summary: Measure | None) -> tuple[list[Fate], bool]:
        n = self.numbers
        fates: list[Fate] = []
        # pi cuts only where a user, assistant, bash or custom message starts, never at a tool result
        cut = cut_point([(b.tokens, b.kind not in TOOL_RESULTS) for b in blocks], n.keep_recent)
        older, newer = blocks[:cut], blocks[cut:]
        if not older:
            session.note(f"the whole history is within the newest {n.keep_recent:,} tokens: nothing to summarise")
            return kept_fates(newer, f"among the newest {n.keep_recent:,} tokens"), False
        read = sorted({b.label for b in older if b.kind == BlockKind.FILE_READ})
        edited = sorted(
            {b.label.removeprefix("Edit ").removeprefix("Write ") for b in older if b.kind == BlockKind.EDIT}
        )
        fates += drop(session, older, lambda kind: "older history: folded into the structured summary")
        lists = tokens_of(
            "\n".join(["<read-files>", *read, "</read-files>", "<modified-files>", *edited, "</modified-files>"])
        )
        tokens = summary_tokens(session, summary, n.summary, n.summary_each, n.new_context_each) + lists
        why = f"the structured summary ({shown(n, 'summary')}) and the lists of files read and modified ({lists:,})"
        fates.append(add_summary(session, tokens, "Summary (structured)", why))
        kept = sum(b.tokens for b in newer)
        fates += kept_fates(newer, f"among the newest {n.keep_recent:,} tokens")
        session.note(f"the newest {kept:,} tokens kept verbatim (from {n.keep_recent:,}, cut where a message starts)")
        return fates, True


def build(n: PiNumbers) -> Profile:
    return agent_profile(
        n,
        build,
        claude_models(),  # pi runs the same models
        name=AgentName.PI,
        title="pi",
        reply_label="pi's reply",
        # no search tools: rg and find run through bash, whose cap applies
        tools=ToolNames(
            read="read", edit="edit", write="write", grep="bash", glob="bash", bash="bash", subagent="", skill="read"
        ),
        thresholds=WindowMinus(n.reserve, warning_below=0, checks_own_count=True),
        startup=noted_startup(n, environment=None, mcp="none"),  # the date and folder are in the system prompt
        instructions=NamedInstructions(
            "pi", ("AGENTS.md", "CLAUDE.md"), first_only=True, user=("~/.pi/agent/AGENTS.md", "~/.pi/agent/CLAUDE.md")
        ),
        mention=PathOnly(),
        reads=TruncateAtLimits(max_lines=n.read_max_lines, max_bytes=n.read_max_bytes),
        output=KeepTail(n),
        compaction=KeepRecentTokens(n),
        subagents=NoSubagents(),
        # pi's compaction keeps a token tail verbatim and lists the files the summarised part touched.
        teaching=Teaching(
            CompactionWords(
                summary="Structured summary",
                keeps=f"the newest {n.keep_recent:,} tokens, cut where a message starts",
                drops="older messages; the summary lists the files they read and modified",
            )
        ),
    )


PROFILE = build(NUMBERS)
