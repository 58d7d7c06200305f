"""The ``opencode`` profile: sst/opencode (now anomalyco/opencode), read one file at a time at the commits
named beside each number. opencode runs Claude models, so a scenario's Claude model applies. An @-mention
becomes a synthetic Read call; old tool output is pruned; compaction keeps the recent turns and an anchored
summary."""

from __future__ import annotations

from dataclasses import dataclass

from ctxviz.kinds import AgentName, BlockKind, Touch
from ctxviz.profiles.base import OutputOutcome, Profile, Session, ToolNames, number
from ctxviz.profiles.generic import (
    FoldsHistory,
    NamedInstructions,
    OutputReserveTrigger,
    add_summary,
    drop,
    history,
    kept_fates,
    read_as_prompt_text,
    shown,
    tool_results,
)
from ctxviz.profiles.limits import tokens_of
from ctxviz.profiles.policies.mentions import directory_entries
from ctxviz.profiles.policies.reads import TruncateAtLimits, within
from ctxviz.profiles.policies.subagents import TaskSubagents
from ctxviz.profiles.skeleton import McpSizesAsClaudeCode, agent_profile, claude_models, noted_startup
from ctxviz.profiles.teaching import CompactionWords, Teaching
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.mentions import Mention
from ctxviz.timeline import Block, Category, Fate

_SRC = "anomalyco/opencode packages/opencode/src"
_SST = "sst/opencode session/compaction.ts @3df4a255"
PRUNED_MARKER = "[Old tool result content cleared]"
_CLEARED = "opencode.cleared"  # ids of the markers that stand for pruned outputs


@dataclass(frozen=True, slots=True)
class OpencodeNumbers(McpSizesAsClaudeCode):
    default_model: str = number("claude-sonnet-4-6", "assumed", "opencode has no fixed default: ctxviz's")
    model_windows: str = number(
        "as claude-code", "assumed", "its provider catalog: the same windows as claude-code's table, we assume"
    )
    reserve_cap: int = number(20_000, "source", f"{_SRC}/session/overflow.ts @31e22f65")
    output_cap: int = number(
        32_000, "source", f"{_SRC}/provider/transform.ts OUTPUT_TOKEN_MAX: max output is min(the model's, this)"
    )
    system_prompt: int = number(2_053, "source", f"{_SRC}/session/prompt/anthropic.txt @06a2ad5b: 8,209 chars / 4")
    tools: int = number(8_000, "assumed", "tool definitions not measured")
    environment: int = number(60, "assumed", "<env>: cwd, git, platform, date; not measured")
    read_max_lines: int = number(2_000, "source", f"{_SRC}/tool/read.ts @00937b92")
    read_max_bytes: int = number(51_200, "source", f"{_SRC}/tool/read.ts @00937b92 (50 KB)")
    output_max_lines: int = number(2_000, "source", f"{_SRC}/tool/truncation.ts @2e0f2320")
    output_max_bytes: int = number(51_200, "source", f"{_SRC}/tool/truncation.ts @2e0f2320 (50 KB)")
    spill_hint: int = number(50, "assumed", "'…truncated, full output saved to <path>; use Grep or Read'; not measured")
    list_max_entries: int = number(100, "assumed", "the list tool's limit not read")
    tokens_per_entry: int = number(6, "assumed", "one indented name")
    tail_percent: int = number(25, "source", f"{_SST} (a quarter of the usable window)")
    tail_min: int = number(2_000, "source", _SST)
    tail_max: int = number(15_000, "source", _SST)
    prune: bool = number(
        True, "assumed", "ran by default in earlier versions; opt-in (compaction.prune) since 31e22f65"
    )
    prune_protect: int = number(40_000, "source", f"{_SST} PRUNE_PROTECT")
    prune_minimum: int = number(20_000, "source", f"{_SST} PRUNE_MINIMUM")
    summary: int = number(4_000, "assumed", "the anchored summary's length is not fixed")
    continue_message: int = number(10, "assumed", "the auto-continue message; not measured")


NUMBERS = OpencodeNumbers()


def read_call(path: str, lines: tuple[int, int] | None = None) -> str:
    """The text an @-mention becomes before the Read output (session/prompt.ts); a range ``#a-b`` is passed
    as offset = a − 1, limit = b − offset."""
    arguments = f'{{"filePath":"{path}"'
    if lines is not None:
        offset = max(lines[0] - 1, 0)
        arguments += f',"offset":{offset},"limit":{lines[1] - offset}'
    return f"Called the Read tool with the following input: {arguments}}}"


def list_call(path: str) -> str:
    return f'Called the list tool with the following input: {{"path":"{path}"}}'


@dataclass(frozen=True, slots=True)
class SyntheticReadCall:
    """``@file`` runs the Read tool for real and puts the call and its output in the prompt (Read's caps
    apply; a range reads those lines); ``@dir/`` becomes a list call and its output."""

    numbers: OpencodeNumbers

    def mention(self, session: Session, mention: Mention) -> None:
        n, m = self.numbers, Category.MESSAGES
        if mention.is_directory:
            entries = directory_entries(list(session.files), mention.path)
            shown_entries = min(entries, n.list_max_entries)
            tokens = tokens_of(list_call(mention.path)) + shown_entries * n.tokens_per_entry
            session.add(m, BlockKind.TOOL_OUTPUT, f"@{mention.path} (list)", tokens, "brief")
            session.note(
                f"{mention}: a synthetic list call, {shown_entries:,} entries of {shown(n, 'tokens_per_entry')} "
                f"({tokens:,} tokens)"
            )
            return
        call = read_call(mention.path, mention.lines)
        session.add(m, BlockKind.TOOL_CALL, f"{mention} (synthetic Read call)", tokens_of(call), "hidden")
        session.note(f"{mention}: a synthetic Read call ({tokens_of(call):,} tokens: {call}) and the Read output")
        read_as_prompt_text(session, mention.path, str(mention), mention.lines)


@dataclass(frozen=True, slots=True)
class SaveWithHead:
    """Any tool's output over 2,000 lines or 50 KB is saved under tool-output/; the model gets the head
    within those limits and a hint to search the file or read it in parts."""

    numbers: OpencodeNumbers
    turn_budget_chars: int | None = None

    def limit(self, tool: str) -> int | None:
        return self.numbers.output_max_bytes

    def result(self, tool: str, label: str, size: Measure, forced: bool) -> OutputOutcome:
        n = self.numbers
        kept = within(size, n.output_max_lines, n.output_max_bytes)
        if kept == size:
            return OutputOutcome(size.tokens, spilled=False)
        tokens = kept.tokens + n.spill_hint
        return OutputOutcome(
            tokens,
            spilled=True,
            why=f"{label}: {size.lines:,} lines / {size.bytes:,} bytes > {n.output_max_lines:,} lines or "
            f"{n.output_max_bytes:,} bytes: saved to a file; the head ({kept.tokens:,} tokens) and a hint "
            f"({shown(n, 'spill_hint')}) stay",
        )


def turns(blocks: list[Block], cleared: set[int]) -> list[list[Block]]:
    """The history as turns: each user prompt with everything after it up to the next one. A ``cleared``
    output's marker entered when it was cleared, but it stands where the output was, in an old turn."""
    grouped: list[list[Block]] = []
    markers = [b for b in blocks if b.id in cleared]
    for block in blocks:
        if block.id in cleared:
            continue
        if block.kind == BlockKind.PROMPT or not grouped:
            grouped.append([])
        grouped[-1].append(block)
    if markers:
        grouped = [markers + grouped[0], *grouped[1:]] if grouped else [markers]
    return grouped


def prunable(outputs: list[tuple[int, int]], protect: int, minimum: int) -> list[int]:
    """Tool outputs (id, tokens), oldest first, older than the last two turns → the ids prune clears:
    walking back, once the outputs seen pass ``protect`` tokens, that one and all older ones go — if
    together they free more than ``minimum``."""
    seen, chosen, freed = 0, [], 0
    for block_id, tokens in reversed(outputs):
        seen += tokens
        if seen > protect:
            chosen.append(block_id)
            freed += tokens
    return sorted(chosen) if freed > minimum else []


@dataclass(frozen=True, slots=True)
class PruneThenSummarise(FoldsHistory):
    """Before the summary, old tool output beyond the newest 40,000 tokens is cleared (the last two turns
    are never touched); then the recent turns that fit a quarter of the usable window (2,000–15,000) stay
    and the older ones become an anchored summary, followed by an auto-continue message."""

    numbers: OpencodeNumbers
    trigger: OutputReserveTrigger

    def prune(self, session: Session) -> None:
        """Clear old tool outputs as opencode's prune does: each becomes a short marker."""
        n = self.numbers
        cleared: set[int] = session.state.policy.setdefault(_CLEARED, set())
        grouped = turns(history(session), cleared)
        older = tool_results(session, (b for turn in grouped[:-2] for b in turn), cleared)
        ids = set(prunable([(b.id, b.tokens) for b in older], n.prune_protect, n.prune_minimum))
        if not ids:
            return
        marker, freed = tokens_of(PRUNED_MARKER), 0
        for block in older:
            if block.id in ids:
                session.remove(block.id)
                cleared.add(
                    session.add(Category.MESSAGES, BlockKind.TOOL_OUTPUT, f"{block.label} (cleared)", marker, "hidden")
                )
                freed += block.tokens - marker
        session.note(
            f"prune: {len(ids)} old tool output(s) cleared to '{PRUNED_MARKER}', {freed:,} tokens freed "
            f"(the newest {n.prune_protect:,} tokens of tool output are protected)"
        )

    def between_turns(self, session: Session) -> None:
        """opencode prunes when a turn ends, before the next prompt."""
        if self.numbers.prune:
            self.prune(session)

    def fold(self, session: Session, blocks: list[Block], summary: Measure | None) -> tuple[list[Fate], bool]:
        n = self.numbers
        fates: list[Fate] = []
        if n.prune:
            self.prune(session)
        grouped = turns(history(session), session.state.policy.get(_CLEARED, set()))
        usable = self.trigger.usable(session.window, session.profile.model_window(session.scenario.model).max_output)
        budget = max(n.tail_min, min(n.tail_max, usable * n.tail_percent // 100))
        kept_count, total = 0, 0
        for turn in reversed(grouped):
            tokens = sum(b.tokens for b in turn)
            if total + tokens > budget:
                break
            kept_count, total = kept_count + 1, total + tokens
        older = [b for turn in grouped[: len(grouped) - kept_count] for b in turn]
        newer = [b for turn in grouped[len(grouped) - kept_count :] for b in turn]
        kept_why = f"a recent turn within {budget:,} tokens"
        within = f"{total:,} of at most {budget:,} tokens: {n.tail_percent}% of {usable:,} usable"
        if not older:
            # the summary stands for what is older than the tail: with nothing older there is nothing to write
            session.note(f"every turn fits the recent tail ({within}): nothing older to summarise")
            return kept_fates(newer, kept_why), False
        fates += drop(session, older, lambda kind: "older turns: folded into the anchored summary")
        tokens = summary.tokens if summary is not None else n.summary
        size = f"{tokens:,} tokens" if summary is not None else shown(n, "summary")
        fates.append(add_summary(session, tokens, "Anchored summary", f"the anchored summary ({size})"))
        fates += kept_fates(newer, kept_why)
        session.add(
            Category.MESSAGES, BlockKind.PROMPT, "Continue if you have next steps", n.continue_message, "hidden"
        )
        session.note(f"an auto-continue message follows the summary ({shown(n, 'continue_message')})")
        session.note(
            f"{kept_count} recent turn(s) kept ({within}, within {n.tail_min:,}–{n.tail_max:,}); the "
            f"{len(grouped) - kept_count} older turn(s), {sum(b.tokens for b in older):,} tokens, summarised "
            f"in {size}"
        )
        return fates, True


def build(n: OpencodeNumbers) -> Profile:
    trigger = OutputReserveTrigger(n.reserve_cap, n.output_cap)
    return agent_profile(
        n,
        build,
        claude_models(),  # opencode runs the same models
        name=AgentName.OPENCODE,
        title="opencode",
        reply_label="opencode's reply",
        tools=ToolNames("read", "edit", "write", "grep", "glob", "bash", "task", "skill"),
        rule_triggers=(Touch.READ,),
        thresholds=trigger,
        startup=noted_startup(n),
        instructions=NamedInstructions(
            "opencode",
            ("AGENTS.md", "CLAUDE.md", "CONTEXT.md"),
            first_only=True,
            user=("~/.config/opencode/AGENTS.md", "~/.claude/CLAUDE.md"),
            nested_names=("AGENTS.md", "CLAUDE.md"),
            header=lambda path: tokens_of(f"Instructions from: {path}\n"),
        ),
        mention=SyntheticReadCall(n),
        reads=TruncateAtLimits(max_lines=n.read_max_lines, max_bytes=n.read_max_bytes),
        output=SaveWithHead(n),
        compaction=PruneThenSummarise(n, trigger),
        subagents=TaskSubagents(types=("general", "explore"), prompt_tokens=n.system_prompt),
        # opencode keeps its recent turns and summarises only the older ones; prune clears old tool output.
        teaching=Teaching(
            CompactionWords(
                summary="Anchored summary",
                keeps=f"the recent turns within {n.tail_percent}% of the usable window ({n.tail_min:,}–{n.tail_max:,})",
                drops=f"older turns; tool output beyond the newest {n.prune_protect:,} tokens is cleared first",
            ),
            words={"stub": "A short marker left where an old tool output was cleared (pruned)."},
        ),
    )


PROFILE = build(NUMBERS)
