"""The ``gemini-cli`` profile: Google's gemini-cli, as read in google-gemini/gemini-cli @5411f113 unless a
number says otherwise. It sends a directory tree up front, inlines @-mentioned files whole, saves big shell
output to a file with a head-and-tail preview, and compresses at half of its 1M window."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ctxviz.kinds import AgentName, BlockKind, Touch
from ctxviz.profiles.base import (
    OutputOutcome,
    Profile,
    ReadOutcome,
    Session,
    ToolNames,
    number,
)
from ctxviz.profiles.generic import (
    FoldsHistory,
    NamedInstructions,
    add_summary,
    drop,
    history,
    kept_fates,
    read_as_prompt_text,
    shown,
    tool_results,
)
from ctxviz.profiles.limits import chars_tokens, tokens_of
from ctxviz.profiles.policies.reads import line_range
from ctxviz.profiles.policies.startup import TreeRule
from ctxviz.profiles.policies.subagents import TaskSubagents
from ctxviz.profiles.policies.thresholds import FractionOfWindow
from ctxviz.profiles.skeleton import McpSizesAsClaudeCode, agent_profile, noted_startup, own_window
from ctxviz.profiles.teaching import CompactionWords, Teaching
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.mentions import Mention
from ctxviz.timeline import Block, Category, Fate

_AT = "google-gemini/gemini-cli @5411f113"

# The markers read_many_files puts around mentioned files (utils/constants.ts), and the model's answer
# that follows a compression's state snapshot (chatCompressionService.ts).
MENTION_OPEN = "\n--- Content from referenced files ---\n"
MENTION_CLOSE = "\n--- End of content ---"
ACK = "Got it. Thanks for the additional context!"
_MARKED = "gemini-cli.marked-prompt"  # the prompt block whose mentions already paid for the markers
_MASKED = "gemini-cli.masked"  # ids of the previews that stand for masked outputs


@dataclass(frozen=True, slots=True)
class GeminiNumbers(McpSizesAsClaudeCode):
    default_model: str = number("gemini-2.5-pro", "assumed", "the default model's name was not read")
    window: int = number(1_048_576, "source", f"{_AT} core/tokenLimits.ts (Gemini models)")
    max_output: int = number(65_536, "assumed", "not read; it does not move gemini-cli's trigger")
    compress_percent: int = number(50, "source", f"{_AT} context/chatCompressionService.ts (70 before 2025-10-30)")
    preserve_percent: int = number(30, "source", f"{_AT} chatCompressionService.ts COMPRESSION_PRESERVE_THRESHOLD")
    system_prompt: int = number(
        4_678, "source", f"{_AT} core/__snapshots__/prompts.test.ts.snap: 18,710 chars / 4 (non-preview models)"
    )
    tools: int = number(4_000, "assumed", "tool declarations not measured")
    environment: int = number(80, "assumed", "<session_context>: date, OS, temp dir; not measured")
    tree_max_items: int = number(200, "source", f"{_AT} utils/getFolderStructure.ts MAX_ITEMS")
    tree_item: int = number(8, "assumed", "an indented file or folder name")
    read_max_lines: int = number(2_000, "source", f"{_AT} utils/constants.ts DEFAULT_MAX_LINES_TEXT_FILE")
    read_max_bytes: int = number(20 * 1024 * 1024, "source", f"{_AT} utils/fileUtils.ts (20 MB)")
    read_note: int = number(30, "assumed", "the line telling the model to use read_file; not measured")
    output_max_chars: int = number(40_000, "source", f"{_AT} config.ts DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD")
    preview_head_percent: int = number(20, "source", f"{_AT} utils/fileUtils.ts formatTruncatedToolOutput")
    spill_note: int = number(25, "assumed", "'Output too large… For full output see: <file>'; not measured")
    mask_protect: int = number(50_000, "source", f"{_AT} context/toolOutputMaskingService.ts")
    mask_minimum: int = number(30_000, "source", f"{_AT} toolOutputMaskingService.ts")
    mask_preview_chars: int = number(250, "source", f"{_AT} toolOutputMaskingService.ts")
    summary: int = number(4_000, "assumed", "the <state_snapshot>'s length is not fixed")
    subagent_prompt: int = number(1_500, "assumed", "codebase_investigator's prompt not measured")


NUMBERS = GeminiNumbers()


@dataclass(frozen=True, slots=True)
class GeminiRead:
    """read_file: the first 2,000 lines with a note to read on; a file over 20 MB is refused."""

    numbers: GeminiNumbers
    unchanged_stub: int | None = None

    def read(self, path: str, size: Measure, lines: tuple[int, int] | None = None) -> ReadOutcome:
        n = self.numbers
        if size.bytes > n.read_max_bytes:
            return ReadOutcome("error", n.read_note, f"{path} refused: {size.bytes:,} bytes > 20 MB")
        if lines is not None:
            size = line_range(size, lines)
        if size.lines <= n.read_max_lines:
            return ReadOutcome("content", size.tokens)
        kept = size.scaled(n.read_max_lines / size.lines)
        return ReadOutcome(
            "content",
            kept.tokens + n.read_note,
            f"{path}: first {n.read_max_lines:,} of {size.lines:,} lines ({kept.tokens:,} tokens) and a "
            f"note to read on ({shown(n, 'read_note')})",
        )


@dataclass(frozen=True, slots=True)
class InlineBetweenMarkers:
    """``@path`` runs read_many_files: each file's text, under a ``--- path ---`` line, goes into the prompt
    between two markers (paid once per prompt). ``:10-20`` suffixes are stripped: the whole file is sent. A
    folder sends every file below it."""

    numbers: GeminiNumbers

    def mention(self, session: Session, mention: Mention) -> None:
        paths = (
            sorted(p for p in session.files if p.startswith(mention.path)) if mention.is_directory else [mention.path]
        )
        prompt = next((b.id for b in reversed(session.live()) if b.kind == BlockKind.PROMPT), None)
        markers = 0
        if session.state.policy.get(_MARKED) != prompt:
            session.state.policy[_MARKED] = prompt
            markers = tokens_of(MENTION_OPEN + MENTION_CLOSE)
        headers = sum(tokens_of(f"--- {path} ---\n") for path in paths)
        session.add(Category.MESSAGES, BlockKind.MENTION, f"@{mention.path}: markers", markers + headers, "hidden")
        ranged = (
            "; gemini-cli has no line ranges: the suffix is stripped, the whole file is sent" if mention.lines else ""
        )
        session.note(
            f"{mention}: read_many_files inlines {len(paths)} file(s) between its markers "
            f"({markers + headers:,} tokens of markers){ranged}"
        )
        for path in paths:
            read_as_prompt_text(session, path, f"@{path}")


@dataclass(frozen=True, slots=True)
class SaveWithHeadAndTail:
    """Shell and MCP output over 40,000 chars is saved under tool-outputs/; the model gets 40,000 chars of
    it — the first fifth and the last four fifths — and the file's path. Other tools are not cut."""

    numbers: GeminiNumbers
    shell: str
    turn_budget_chars: int | None = None

    def limit(self, tool: str) -> int | None:
        return self.numbers.output_max_chars if tool == self.shell or tool.startswith("mcp") else None

    def result(self, tool: str, label: str, size: Measure, forced: bool) -> OutputOutcome:
        n, limit = self.numbers, self.limit(tool)
        if limit is None or size.chars <= limit:
            return OutputOutcome(size.tokens, spilled=False)
        head = limit * n.preview_head_percent // 100
        kept = chars_tokens(limit) + n.spill_note
        return OutputOutcome(
            kept,
            spilled=True,
            why=f"{label}: {size.chars:,} chars > {limit:,}: saved to a file; the model gets the first {head:,} "
            f"and last {limit - head:,} chars ({kept - n.spill_note:,} tokens) and the path ({shown(n, 'spill_note')})",
        )


def compression_split(blocks: list[tuple[int, bool]], preserve_percent: int) -> int:
    """Where compression splits the history, given (tokens, is a user prompt) per block, oldest first: the
    first user prompt with at least (100 − preserve)% of the history before it. Returns the index of the
    first block kept verbatim, or ``len(blocks)`` when no prompt qualifies (everything is summarised)."""
    total = sum(tokens for tokens, _ in blocks)
    before = 0
    for n, (tokens, is_prompt) in enumerate(blocks):
        if is_prompt and before * 100 >= total * (100 - preserve_percent):
            return n
        before += tokens
    return len(blocks)


@dataclass(frozen=True, slots=True)
class SnapshotAndRecent(FoldsHistory):
    """Compression (chatCompressionService.ts): the newest ~30% of the history stays verbatim, split only
    at a user prompt; the older part becomes a <state_snapshot>, which the model acknowledges."""

    numbers: GeminiNumbers

    def between_turns(self, session: Session) -> None:
        """Tool-output masking before a new turn (client.ts runs it before every request): walking back
        from the newest, tool output beyond the newest 50,000 tokens is replaced by a 250-char preview (the
        full text goes to a file) — but only when that much adds up to at least 30,000 tokens."""
        n = self.numbers
        masked: set[int] = session.state.policy.setdefault(_MASKED, set())
        outputs = tool_results(session, history(session), masked)
        protected = 0
        prunable: list[Block] = []
        for block in reversed(outputs):
            if not prunable and protected + block.tokens <= n.mask_protect:
                protected += block.tokens
            else:
                prunable.append(block)
        total = sum(b.tokens for b in prunable)
        if total < n.mask_minimum:
            return
        preview = chars_tokens(n.mask_preview_chars)
        for block in prunable:
            session.remove(block.id)
            masked.add(
                session.add(Category.MESSAGES, BlockKind.TOOL_OUTPUT, f"{block.label} (masked)", preview, "hidden")
            )
        session.note(
            f"masking: {len(prunable)} old tool output(s), {total:,} tokens, replaced by {n.mask_preview_chars}-char "
            f"previews ({preview} tokens each): {total - preview * len(prunable):,} freed; the newest "
            f"{n.mask_protect:,} tokens of tool output are protected"
        )

    def fold(self, session: Session, blocks: list[Block], summary: Measure | None) -> tuple[list[Fate], bool]:
        n = self.numbers
        fates: list[Fate] = []
        split = compression_split([(b.tokens, b.kind == BlockKind.PROMPT) for b in blocks], n.preserve_percent)
        older, newer = blocks[:split], blocks[split:]
        tokens = summary.tokens if summary is not None else n.summary
        ack = tokens_of(ACK)
        if sum(b.tokens for b in older) <= tokens + ack:
            session.note(
                f"compression rejected: the snapshot ({tokens + ack:,} tokens) would not be smaller than the "
                f"{sum(b.tokens for b in older):,} tokens it replaces"
            )
            return kept_fates(blocks, "compression was rejected: nothing changes"), False
        fates += drop(session, older, lambda kind: "older history: folded into the <state_snapshot>")
        fates.append(add_summary(session, tokens, "<state_snapshot>", f"the state snapshot ({shown(n, 'summary')})"))
        session.add(Category.MESSAGES, BlockKind.REPLY, "Got it. Thanks for the additional context!", ack, "hidden")
        fates.append(Fate("Acknowledgement", BlockKind.REPLY, "new", ack, "the model's fixed answer"))
        kept = sum(b.tokens for b in newer)
        fates += kept_fates(newer, f"the newest {n.preserve_percent}% of the history, kept verbatim")
        session.note(
            f"{len(newer)} newest blocks ({kept:,} tokens) kept verbatim from a user prompt on "
            f"(≤ ~{n.preserve_percent}% of the history); {len(older)} older ones folded into the snapshot"
        )
        return fates, True


def build(n: GeminiNumbers) -> Profile:
    shell = "run_shell_command"
    # tokenLimits.ts: 2,097,152 for gemini-1.5-pro, 1,048,576 (the default) for the others
    models = own_window(n, ("gemini-2.5-pro", "gemini-2.5-flash"), prefixes=("gemini-",))
    models = replace(models, table={**models.table, "gemini-1.5-pro": replace(models.unknown, window=2_097_152)})
    return agent_profile(
        n,
        build,
        models,
        name=AgentName.GEMINI_CLI,
        title="gemini-cli",
        reply_label="Gemini's reply",
        tools=ToolNames(
            "read_file",
            "replace",
            "write_file",
            "search_file_content",
            "glob",
            shell,
            "codebase_investigator",
            "activate_skill",
        ),
        rule_triggers=(Touch.READ, Touch.WRITE, Touch.EDIT),
        thresholds=FractionOfWindow(n.compress_percent / 100, warning_below=0, blocking_buffer=0),
        startup=noted_startup(
            n, also=("tree_item",), tree=TreeRule(max_items=n.tree_max_items, tokens_per_item=n.tree_item)
        ),
        instructions=NamedInstructions(
            "gemini-cli", ("GEMINI.md",), first_only=False, user=("~/.gemini/GEMINI.md",), nested_names=("GEMINI.md",)
        ),
        mention=InlineBetweenMarkers(n),
        reads=GeminiRead(n),
        output=SaveWithHeadAndTail(n, shell),
        compaction=SnapshotAndRecent(n),
        subagents=TaskSubagents(types=("codebase_investigator", "generalist"), prompt_tokens=n.subagent_prompt),
        # gemini-cli folds the older history into a state snapshot and masks old tool output between turns.
        teaching=Teaching(
            CompactionWords(
                summary="State snapshot",
                keeps=f"the newest ~{n.preserve_percent}% of the history, from a user prompt on",
                drops="the older history, unless the snapshot would not be smaller (then nothing changes)",
            ),
            words={
                "spilled preview": f"An old tool output replaced by its first {n.mask_preview_chars} characters once "
                f"newer tool output passes {n.mask_protect:,} tokens (masking).",
            },
        ),
    )


PROFILE = build(NUMBERS)
