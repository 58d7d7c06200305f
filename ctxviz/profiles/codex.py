"""The ``codex`` profile: OpenAI's Codex CLI (codex-rs), as read in openai/codex at the commits named beside
each number. What nobody publishes is assumed and says so."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ctxviz.kinds import AgentName, BlockKind
from ctxviz.profiles.base import Profile, ReadOutcome, Session, ToolNames, number
from ctxviz.profiles.generic import (
    FoldsHistory,
    NamedInstructions,
    add_summary,
    drop,
    shown,
    summary_tokens,
)
from ctxviz.profiles.policies.mentions import PathOnly
from ctxviz.profiles.policies.output import HeadAndTail
from ctxviz.profiles.policies.reads import line_range
from ctxviz.profiles.policies.subagents import TaskSubagents
from ctxviz.profiles.policies.thresholds import FractionOfWindow
from ctxviz.profiles.skeleton import McpSizesAsClaudeCode, agent_profile, noted_startup, own_window
from ctxviz.profiles.teaching import CompactionWords, Teaching
from ctxviz.scenario.measure import Measure
from ctxviz.timeline import Block, Category, Fate

if TYPE_CHECKING:
    from ctxviz.recorded import RecordedCall, RecordedCompaction, RecordedSession
    from ctxviz.scenario.model import RuleEntry

_REPO = "openai/codex"
_MODELS = f"{_REPO} codex-rs/models-manager/models.json @0dcb02e0"


@dataclass(frozen=True, slots=True)
class CodexNumbers(McpSizesAsClaudeCode):
    default_model: str = number("gpt-5.4", "source", f"{_MODELS} (its first entry)")
    window: int = number(272_000, "source", f"{_MODELS} (gpt-5.4 context_window)")
    max_output: int = number(128_000, "assumed", "not read; it does not move Codex's trigger")
    gpt_5_5_window: int = number(
        272_000, "measured", "rollouts of Codex 0.140-0.142 record model_context_window 258,400 for gpt-5.5: 95% of it"
    )
    spark_window: int = number(
        128_000,
        "measured",
        "a rollout of Codex 0.142 records model_context_window 121,600 for gpt-5.3-codex-spark: 95% of it",
    )
    autocompact_percent: int = number(90, "source", f"{_REPO} codex-rs/protocol/src/openai_models.rs @8db07003")
    effective_percent: int = number(
        95, "source", f"{_REPO} openai_models.rs @8db07003 effective_context_window_percent"
    )
    system_prompt: int = number(5_583, "source", f"{_REPO} codex-rs/core/prompt.md @1d005f8c: 22,329 chars / 4")
    tools: int = number(1_500, "assumed", "shell, apply_patch, update_plan definitions; not measured")
    environment: int = number(120, "assumed", "<environment_context>: cwd, shell, date, timezone; not measured")
    instructions_max_bytes: int = number(
        32_768, "source", f"{_REPO} codex-rs/core/src/project_doc.rs @0bd53e45 project_doc_max_bytes"
    )
    read_max_lines: int = number(
        2_000, "source", f"{_REPO} core/src/tools/handlers/read_file.rs @001cb8e2 (a copy mixing in fork code)"
    )
    output_max_tokens: int = number(10_000, "source", f"{_MODELS} truncation_policy {{tokens: 10000}}")
    truncation_marker: int = number(10, "assumed", "'…N tokens truncated…'; not measured")
    kept_user_tokens: int = number(
        20_000, "source", f"{_REPO} codex-rs/core/src/compact.rs @0100b103 COMPACT_USER_MESSAGE_MAX_TOKENS"
    )
    summary: int = number(4_000, "assumed", "the handoff summary's length is not fixed")
    summary_each: tuple[int, ...] = number(
        (), "measured", "a rollout's own: each automatic compaction's recorded summary in turn (import sets it)"
    )
    new_context_each: tuple[int, ...] = number(
        (),
        "measured",
        "a rollout's own: the new context after each automatic compaction, Codex's figure written with it plus "
        "after_beyond_own_count (import sets it; the summary is what it leaves)",
    )
    # What real rollouts show (Codex CLI 0.140-0.142, gpt-5.5 and gpt-5.3-codex-spark): fitted on the five
    # rollouts of the fit half, checked on the five others (benchmarks/fidelity_agents.py). The rule itself is
    # read in source.
    reasoning_estimate_percent: int = number(
        127,
        "measured",
        "Codex's estimate of an earlier turn's reasoning (its encrypted text's bytes x 3/4 - 650, / 4) as % of "
        "the reasoning tokens the rollout records: the middle of 124-129.6%, the values that place all 7 automatic "
        "compactions of the fit half at their call and none earlier (a fixed amount per reasoning item fits worse)",
    )
    after_beyond_own_count: int = number(
        3_197,
        "measured",
        "the next call over Codex's own figure written with a compaction (instructions and "
        "tool schemas, which that figure leaves out): median of the 7 compactions of the fit half",
    )
    after_beyond_first_call: int = number(
        2_166,
        "measured",
        "the next call over the session's first call when no figure of Codex's is known: "
        "median of the 7 compactions of the fit half",
    )


NUMBERS = CodexNumbers()


def compaction_limit(numbers: CodexNumbers, reported_window: int) -> int:
    """Where Codex compacts by default: 90% of the model's window, of which a rollout reports 95%."""
    full = round(reported_window * 100 / numbers.effective_percent)
    return min(reported_window, full * numbers.autocompact_percent // 100)


def instruction_cut(numbers: CodexNumbers, files: list[tuple[str, Measure]]) -> list[tuple[str, int, str | None]]:
    """AGENTS.md files in load order → (path, tokens kept, why): all together within
    ``project_doc_max_bytes``; the file that passes the budget is cut, the ones after it are left out."""
    budget = numbers.instructions_max_bytes
    kept: list[tuple[str, int, str | None]] = []
    for path, size in files:
        if size.bytes <= budget:
            kept.append((path, size.tokens, None))
            budget -= size.bytes
            continue
        part = size.scaled(budget / size.bytes).tokens if size.bytes else 0
        why = (
            f"{path}: cut to {budget:,} of {size.bytes:,} bytes ({part:,} of {size.tokens:,} tokens): AGENTS.md "
            f"files share {numbers.instructions_max_bytes:,} bytes (32 KiB) in all"
        )
        kept.append((path, part, why))
        budget = 0
    return kept


@dataclass(frozen=True, slots=True)
class CappedAgentsMd:
    """The user's ~/.codex/AGENTS.md, then in each folder from the git root down to the working folder the
    first of AGENTS.override.md and AGENTS.md; the project files share a 32 KiB budget. No file loads later."""

    numbers: CodexNumbers
    names: NamedInstructions

    def startup_files(self, session: Session) -> list[tuple[str, int]]:
        chosen = self.names.startup_files(session)
        memory = session.scenario.setup.memory
        user = [(p, t) for p, t in chosen if p.startswith("~/")]
        project = [(p, memory[p].memory_size) for p, _ in chosen if not p.startswith("~/")]
        kept = []
        for path, tokens, why in instruction_cut(self.numbers, project):
            if why:
                session.note(why)
            if tokens:
                kept.append((path, tokens))
        return user + kept

    def nested(self, files: Iterable[str]) -> list[tuple[str, str]]:
        return []

    def scoped_rules(self, rules: Mapping[str, RuleEntry]) -> dict[str, RuleEntry]:
        return {}  # Codex reads no path-scoped rules


@dataclass(frozen=True, slots=True)
class ReadThenTruncate:
    """read_file's first 2,000 lines, then the model's output truncation: over 10,000 tokens only the head
    and tail stay. Reads through the shell (``sed -n``, ``cat``) meet the same truncation."""

    numbers: CodexNumbers
    unchanged_stub: int | None = None

    def read(self, path: str, size: Measure, lines: tuple[int, int] | None = None) -> ReadOutcome:
        n, why = self.numbers, []
        if lines is not None:
            size = line_range(size, lines)
        if size.lines > n.read_max_lines:
            size = size.scaled(n.read_max_lines / size.lines)
            why.append(f"first {n.read_max_lines:,} lines ({size.tokens:,} tokens)")
        tokens = size.tokens
        if tokens > n.output_max_tokens:
            tokens = n.output_max_tokens + n.truncation_marker
            why.append(
                f"then {size.tokens:,} > {n.output_max_tokens:,} tokens: head and tail kept, the middle cut, "
                f"with a marker ({shown(n, 'truncation_marker')})"
            )
        return ReadOutcome("content", tokens, f"{path}: {'; '.join(why)}" if why else None)


@dataclass(frozen=True, slots=True)
class KeepUserMessages(FoldsHistory):
    """Local compaction (compact.rs): the initial context stays; of the history only the newest user
    messages up to 20,000 tokens survive (the oldest kept one cut), then the summary. Every tool call,
    tool output and reply goes."""

    numbers: CodexNumbers
    # The API stops sending the reasoning of earlier turns once a new turn starts: a rollout records it as
    # usage that falls with no compaction, which an imported scenario gives as an event's ``cleared``.
    clears_old_results: bool = True

    def fold(self, session: Session, blocks: list[Block], summary: Measure | None) -> tuple[list[Fate], bool]:
        n = self.numbers
        fates: list[Fate] = []
        # the person's messages: input the agent added itself (hidden) is context it sends again, not kept
        prompts = [b for b in blocks if b.kind == BlockKind.PROMPT and b.visibility != "hidden"]
        left = n.kept_user_tokens
        keep: dict[int, int] = {}
        for block in reversed(prompts):
            if left <= 0:
                break
            keep[block.id] = min(block.tokens, left)
            left -= keep[block.id]
        gone = [b for b in blocks if b.id not in keep]
        fates += drop(session, gone, lambda kind: "Codex keeps only recent user messages and the summary")
        kept_total = 0
        for block in prompts:
            if block.id not in keep:
                continue
            tokens = keep[block.id]
            kept_total += tokens
            if tokens == block.tokens:
                fates.append(Fate(block.label, block.kind, "kept", tokens, "a recent user message"))
                continue
            session.remove(block.id)
            session.add(Category.MESSAGES, BlockKind.PROMPT, f"{block.label} (cut)", tokens, "full")
            why = f"the oldest kept user message, cut to the {n.kept_user_tokens:,}-token budget's rest"
            fates.append(Fate(block.label, block.kind, "truncated", tokens, why))
        session.note(
            f"kept {len(keep)} recent user message(s), {kept_total:,} tokens (≤ {n.kept_user_tokens:,}); "
            "all tool calls, outputs and replies dropped"
        )
        tokens = summary_tokens(session, summary, n.summary, n.summary_each, n.new_context_each)
        summary_why = "a handoff summary" + ("" if summary is not None else f" ({shown(n, 'summary')})")
        fates.append(add_summary(session, tokens, "Summary (handoff)", summary_why))
        return fates, True


def build(n: CodexNumbers) -> Profile:
    models = own_window(n, ("gpt-5.4",), prefixes=("gpt-", "o3", "o4"))  # other GPT models: gpt-5.4's, a guess
    seen = {"gpt-5.5": n.gpt_5_5_window, "gpt-5.3-codex-spark": n.spark_window}
    models = replace(models, table={**models.table, **{m: replace(models.unknown, window=w) for m, w in seen.items()}})
    return agent_profile(
        n,
        build,
        models,
        name=AgentName.CODEX,
        title="Codex CLI",
        reply_label="Codex's reply",
        tools=ToolNames(
            "read_file", "apply_patch", "apply_patch", "grep_files", "list_dir", "shell", "spawn_agent", "skill"
        ),
        thresholds=FractionOfWindow(
            n.autocompact_percent / 100, warning_below=0, blocking_percent=n.effective_percent, checks_own_count=True
        ),
        startup=noted_startup(n),
        instructions=CappedAgentsMd(
            n,
            NamedInstructions(
                "Codex", ("AGENTS.override.md", "AGENTS.md"), first_only=True, user=("~/.codex/AGENTS.md",)
            ),
        ),
        mention=PathOnly(),
        reads=ReadThenTruncate(n),
        output=HeadAndTail(max_tokens=n.output_max_tokens, marker=n.truncation_marker),
        compaction=KeepUserMessages(n),
        subagents=TaskSubagents(types=("default",), prompt_tokens=n.system_prompt),
        # Codex keeps only the user's recent messages and a handoff summary.
        teaching=Teaching(
            CompactionWords(
                summary="Handoff summary",
                keeps=f"your newest messages, up to {n.kept_user_tokens:,} tokens (the oldest kept one cut)",
                drops="every tool call, tool output and reply",
            )
        ),
    )


PROFILE = build(NUMBERS)


@dataclass(frozen=True, slots=True)
class RecordedRules:
    """Codex's compaction for ``fidelity``, the rule the engine's threshold uses too (90% of the model's
    window, ``autocompact_percent``). After an answer that needs a follow-up, and before a new turn, Codex
    counts the last call's input and output, the items added since (bytes / 4, a tool output cut to the
    history's limit) and the reasoning items of earlier turns, which the API no longer sends but Codex
    still estimates from their encrypted text (get_total_token_usage in codex-rs
    core/src/context_manager/history.rs @023fad26, the check in core/src/session/turn.rs @000c857e,
    both read at commits later than the rollouts' 0.140-0.142, which they explain). The new context is
    Codex's own figure written with the compaction plus what that figure leaves out."""

    numbers: CodexNumbers

    def compacts(self, session: RecordedSession, size: int, call: RecordedCall) -> bool:
        return self.own_count(size, call) >= self.limit(session)

    def own_count(self, size: int, call: RecordedCall) -> int:
        """Codex's count after ``call``'s answer: the call's input and output, what entered since, and the
        reasoning of earlier turns, which it estimates from their encrypted text."""
        reasoning = call.earlier_reasoning * self.numbers.reasoning_estimate_percent // 100
        return size + call.output + call.added + reasoning

    def limit(self, session: RecordedSession) -> int:
        return compaction_limit(self.numbers, session.window)

    def typed(self, session: RecordedSession, compaction: RecordedCompaction) -> bool | None:
        return compaction.manual  # a rollout says it: a compaction that is a turn of its own was typed

    def size_after(self, session: RecordedSession, compaction: RecordedCompaction | None) -> int:
        if compaction is not None and compaction.agent_after is not None:
            return compaction.agent_after + self.numbers.after_beyond_own_count
        return session.calls[0].used + self.numbers.after_beyond_first_call


RECORDED_RULES = RecordedRules(NUMBERS)
