"""The ``grok-build`` profile: xAI's grok-build (binary ``grok``), as read in xai-org/grok-build @19d42e35.
grok-build estimates every size as UTF-8 bytes / 4, and so does this profile wherever grok-build decides
something (the @-mention gate, read_file's limit)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxviz.kinds import AgentName, BlockKind
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
    add_summary,
    drop,
    shown,
)
from ctxviz.profiles.limits import chars_tokens, numbering_bytes, tokens_of
from ctxviz.profiles.policies.reads import line_range
from ctxviz.profiles.policies.startup import GitStatusRule
from ctxviz.profiles.policies.subagents import TaskSubagents
from ctxviz.profiles.policies.thresholds import FractionOfWindow
from ctxviz.profiles.skeleton import McpSizesAsClaudeCode, agent_profile, noted_startup, own_window
from ctxviz.profiles.teaching import CompactionWords, Teaching
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.mentions import Mention
from ctxviz.timeline import Block, Category, Fate
from ctxviz.tokens import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from ctxviz.scenario.model import RuleEntry

_AT = "xai-org/grok-build @19d42e35"
ARROW_BYTES = 3  # "→" in UTF-8: every mentioned line is written "N→text"
ATTACHED = (
    "\n\n<system-reminder>\nBelow are some potentially helpful/relevant pieces of information for figuring out "
    "how to respond\n\n<attached_files>\n\n\n\n</attached_files>\n\n</system-reminder>"
)
INSTRUCTIONS_OPEN = (
    "<system-reminder>\nAs you answer the user's questions, you can use the following context (ordered from "
    "repo root to current directory - deeper files take precedence on conflicts):\n"
)
# Every instruction file name grok-build reads, in a folder and in ~/.grok, ~/.claude, ~/.cursor.
_PROJECT_NAMES = {"Agents.md", "Claude.md", "CLAUDE.md", "CLAUDE.local.md", "AGENT.md", "AGENTS.md"}
INSTRUCTION_NAMES = frozenset({*_PROJECT_NAMES, ".claude/CLAUDE.md", ".claude/CLAUDE.local.md"})
HOMES = ("~/.grok/", "~/.claude/", "~/.cursor/")
RULE_FOLDERS = (".grok/rules/", ".claude/rules/", ".cursor/rules/")
_ATTACHED = "grok-build.attached-prompt"  # the prompt whose mentions already paid for the wrapper
_OFFLOADED = "grok-build.offloaded-prompt"  # the prompt already saved to a file


@dataclass(frozen=True, slots=True)
class GrokNumbers(McpSizesAsClaudeCode):
    default_model: str = number("grok-code-fast-1", "assumed", "the default model's name was not read")
    window: int = number(256_000, "source", f"{_AT} session/compaction.rs (catalog fallback)")
    max_output: int = number(32_000, "assumed", "not read; it does not move grok-build's trigger")
    autocompact_percent: int = number(
        85, "source", f"{_AT} util/config/resolve/compaction.rs DEFAULT_AUTO_COMPACT_THRESHOLD_PERCENT"
    )
    system_prompt: int = number(1_296, "source", f"{_AT} xai-grok-agent/templates/prompt.md: 5,183 chars / 4")
    tools: int = number(5_000, "assumed", "18 base tool definitions; not measured")
    user_info: int = number(60, "assumed", "<user_info>: OS, shell, workspace, date; not measured")
    git_status_max_chars: int = number(10_000, "source", f"{_AT} session/user_message.rs")
    instructions_close: int = number(30, "assumed", "'Follow these instructions exactly…</system-reminder>'")
    mention_gate: int = number(5_000, "source", f"{_AT} xai-grok-workspace/src/file_system/attach_file.rs")
    message_max_bytes: int = number(25_000, "source", f"{_AT} acp_session_impl/prompt_build.rs LARGE_PROMPT_THRESHOLD")
    offload_note: int = number(30, "assumed", "'[Full request offloaded to file] … read_file'; not measured")
    read_max_lines: int = number(1_000, "source", f"{_AT} read_file/mod.rs MAX_LINES_READ_DEFAULT")
    read_max_tokens: int = number(25_000, "source", f"{_AT} read_file/mod.rs MAX_NUM_TOKENS")
    read_error: int = number(50, "assumed", "'File content (N tokens) exceeds maximum allowed tokens…'")
    bash_max_chars: int = number(20_000, "source", f"{_AT} DEFAULT_TOOL_OUTPUT_CHARS")
    bash_header: int = number(25, "assumed", "'exit: N [truncated: … full output at <path>]'; not measured")
    mcp_max_bytes: int = number(20_000, "source", f"{_AT} util/mcp_truncate.rs MCP_MAX_OUTPUT_BYTES")
    other_max_bytes: int = number(
        40_000, "source", f"{_AT} (a copy without a pinned commit); grep and glob assumed alike"
    )
    preview_bytes: int = number(2_000, "source", f"{_AT} (a copy without a pinned commit)")
    summary: int = number(4_000, "assumed", "'at most a few thousand words'")
    state_reminder: int = number(40, "assumed", "the state reminder around its list of edited paths")
    subagent_prompt: int = number(1_376, "source", f"{_AT} templates/subagent_prompt.md: 5,502 bytes / 4")
    mcp_deferred_tokens_per_tool: int = number(15, "assumed", "MCP tools sit behind search_tool; as claude-code")
    mcp_schema_tokens_per_tool: int = number(400, "assumed", "a schema fetched through use_tool; as claude-code")


NUMBERS = GrokNumbers()


def estimate(size_bytes: int) -> int:
    """grok-build's token estimate everywhere: UTF-8 bytes / 4 (xai-token-estimation)."""
    return size_bytes // 4


def file_open(path: str, lines: tuple[int, int] | None) -> str:
    where = f' startLine="{lines[0]}" endLine="{lines[1]}"' if lines else ' isFullFile="true"'
    return f'<file_contents path="{path}"{where}>\n'


FILE_CLOSE = "\n</file_contents>"


def stub(path: str, estimated: int, gate: int) -> str:
    return (
        f'<file_contents path="{path}" isFullFile="true" skipped="true" reason="file too large '
        f'(~{estimated} estimated tokens, limit {gate}). Use read_file tool to read specific sections."/>'
    )


@dataclass(frozen=True, slots=True)
class NumberedOrStub:
    """``@path`` (or ``@path:10-20``) inlines the file with every line numbered ``N→``, if grok-build's
    estimate of that numbered body (bytes / 4) is at most 5,000; above, only a one-line stub goes. A folder
    is dropped silently. The attached files sit in a reminder after the query; a message over 25,000 bytes
    is saved to a file and the model gets a bounded excerpt."""

    numbers: GrokNumbers

    def mention(self, session: Session, mention: Mention) -> None:
        n, m = self.numbers, Category.MESSAGES
        if mention.is_directory:
            session.note(f"{mention}: a folder is dropped silently (grok-build attaches files only)")
            return
        size = session.file_size(mention.path)
        lines = mention.lines
        if lines is not None:
            lines = (lines[0], min(lines[1], size.lines))
            size = line_range(size, lines)
        first, last = lines if lines else (1, size.lines)
        numbering = numbering_bytes(first, last, ARROW_BYTES)
        estimated = estimate(size.bytes + numbering)
        wrapper = self._wrapper(session)
        if estimated > n.mention_gate:
            tokens = tokens_of(stub(mention.path, estimated, n.mention_gate)) + wrapper
            session.add(m, BlockKind.MENTION, f"{mention} (stub)", tokens, "brief")
            session.note(
                f"{mention}: stub: ~{estimated:,} > {n.mention_gate:,} estimated tokens (bytes/4 of the "
                f"numbered body): no content, {tokens:,} tokens"
            )
            return
        body = size.tokens + chars_tokens(numbering) + tokens_of(file_open(mention.path, lines) + FILE_CLOSE)
        tokens = self._capped(session, body + wrapper)
        session.add(m, BlockKind.FILE_READ, str(mention), tokens, "brief")
        session.note(
            f"{mention}: inlined with line numbers, ~{estimated:,} ≤ {n.mention_gate:,} estimated tokens "
            f"({size.tokens:,} of content + {tokens - size.tokens:,} of numbers and tags)"
        )
        session.state.touched[mention.path] = session.order()

    def _wrapper(self, session: Session) -> int:
        """The reminder around attached files, paid once per prompt."""
        prompt = next((b.id for b in reversed(session.live()) if b.kind == BlockKind.PROMPT), None)
        if session.state.policy.get(_ATTACHED) == prompt:
            return 0
        session.state.policy[_ATTACHED] = prompt
        return tokens_of(ATTACHED)

    def _capped(self, session: Session, tokens: int) -> int:
        """A user message over 25,000 bytes (≈ tokens × 4) is saved to a file: the model gets at most 25,000
        bytes of it and a note to read the rest. Returns what this attachment may still add."""
        n, live = self.numbers, session.live()
        prompt = next((b for b in reversed(live) if b.kind == BlockKind.PROMPT), None)
        if prompt is None:
            return tokens
        so_far = prompt.tokens + sum(b.tokens for b in live if b.id > prompt.id)
        if (so_far + tokens) * 4 <= n.message_max_bytes:
            return tokens
        room = max(0, estimate(n.message_max_bytes) - so_far)
        if session.state.policy.get(_OFFLOADED) == prompt.id:
            return room
        session.state.policy[_OFFLOADED] = prompt.id
        session.note(
            f"the message passes {n.message_max_bytes:,} bytes (~{(so_far + tokens) * 4:,}): saved to a file; "
            f"the model gets its first {n.message_max_bytes:,} bytes and a note to read the rest "
            f"({shown(n, 'offload_note')})"
        )
        return room + n.offload_note


@dataclass(frozen=True, slots=True)
class GrokRead:
    """read_file: the first 1,000 lines; if that output is over 25,000 estimated tokens, an error instead."""

    numbers: GrokNumbers
    unchanged_stub: int | None = None

    def read(self, path: str, size: Measure, lines: tuple[int, int] | None = None) -> ReadOutcome:
        n, why = self.numbers, None
        if lines is not None:
            size = line_range(size, lines)
        if size.lines > n.read_max_lines:
            size = size.scaled(n.read_max_lines / size.lines)
            why = f"{path}: the first {n.read_max_lines:,} lines ({size.tokens:,} tokens)"
        if estimate(size.bytes) > n.read_max_tokens:
            return ReadOutcome(
                "error",
                n.read_error,
                f"{path}: ~{estimate(size.bytes):,} > {n.read_max_tokens:,} estimated tokens: an error, no content "
                f"({shown(n, 'read_error')})",
            )
        return ReadOutcome("content", size.tokens, why)


@dataclass(frozen=True, slots=True)
class GrokOutput:
    """bash over 20,000 chars keeps its first and last 10,000 (the full log is on disk); MCP output over
    20,000 bytes and other tools' over 40,000 go to a file with a 2,000-byte preview."""

    numbers: GrokNumbers
    bash: str
    turn_budget_chars: int | None = None

    def limit(self, tool: str) -> int | None:
        n = self.numbers
        if tool == self.bash:
            return n.bash_max_chars
        return n.mcp_max_bytes if tool.startswith("mcp__") else n.other_max_bytes

    def result(self, tool: str, label: str, size: Measure, forced: bool) -> OutputOutcome:
        n = self.numbers
        if tool == self.bash:
            if size.chars <= n.bash_max_chars:
                return OutputOutcome(size.tokens, spilled=False)
            kept = chars_tokens(n.bash_max_chars) + n.bash_header
            return OutputOutcome(
                kept,
                spilled=False,
                why=f"{label}: {size.chars:,} chars > {n.bash_max_chars:,}: the first and last "
                f"{n.bash_max_chars // 2:,} chars kept with a header ({shown(n, 'bash_header')}); the log is on disk",
            )
        cap = self.limit(tool) or 0
        if size.bytes <= cap:
            return OutputOutcome(size.tokens, spilled=False)
        kept = estimate(n.preview_bytes) + tokens_of(f"\n[Output truncated - {size.bytes} bytes total]")
        return OutputOutcome(
            kept,
            spilled=True,
            why=f"{label}: {size.bytes:,} bytes > {cap:,}: saved to a file; a {n.preview_bytes:,}-byte "
            f"preview and a size line stay ({kept:,} tokens)",
        )


@dataclass(frozen=True, slots=True)
class EveryInstructionFile:
    """Every instruction file of every name it knows, from the home folders and the project (no cap), and
    every ``*.md`` rule, all in one reminder at startup; nothing loads later."""

    numbers: GrokNumbers

    def startup_files(self, session: Session) -> list[tuple[str, int]]:
        setup = session.scenario.setup
        files = []
        for path, entry in setup.memory.items():
            home = next((h for h in HOMES if path.startswith(h)), "")
            if path.removeprefix(home) in INSTRUCTION_NAMES:
                files.append((path, entry.memory_size.tokens))
            else:
                session.note(f"{path} not loaded: grok-build does not read it")
        for path, rule in setup.rules.items():
            if path.startswith(RULE_FOLDERS) and path.endswith(".md"):
                files.append((path, rule.memory_size.tokens))
                if rule.paths:
                    session.note(f"{path}: grok-build loads every rule at startup; its paths: are ignored")
        if not files:
            return []
        wrapper = tokens_of(INSTRUCTIONS_OPEN) + self.numbers.instructions_close
        first = files[0]
        files[0] = (first[0], first[1] + wrapper)
        return [(path, tokens + tokens_of(f"## From: {path}\n")) for path, tokens in files]

    def nested(self, files: Iterable[str]) -> list[tuple[str, str]]:
        return []

    def scoped_rules(self, rules: Mapping[str, RuleEntry]) -> dict[str, RuleEntry]:
        return {}  # no rule loads later: they load at startup or not at all


@dataclass(frozen=True, slots=True)
class KeepAnchors(FoldsHistory):
    """Compaction (compaction_utils.rs): the system prompt, user info and instructions stay; of the history
    only the last real user query, the latest agent message, the summary and a state reminder listing the
    edited files; every other turn and every tool result goes."""

    numbers: GrokNumbers

    def fold(self, session: Session, blocks: list[Block], summary: Measure | None) -> tuple[list[Fate], bool]:
        n = self.numbers
        fates: list[Fate] = []
        query = next((b for b in reversed(blocks) if b.kind == BlockKind.PROMPT), None)
        anchor = next((b for b in reversed(blocks) if b.kind == BlockKind.REPLY), None)
        kept = [b for b in (query, anchor) if b is not None]
        edited = sorted({b.label.split(" ", 1)[1] for b in blocks if b.kind == BlockKind.EDIT and " " in b.label})
        fates += drop(session, [b for b in blocks if b not in kept], lambda kind: "dropped: replaced by the summary")
        for block in kept:
            why = "the last user query" if block is query else "the latest agent message (anchor)"
            fates.append(Fate(block.label, block.kind, "kept", block.tokens, why))
        tokens = summary.tokens if summary is not None else n.summary
        fates.append(add_summary(session, tokens, "Summary", f"the summary ({shown(n, 'summary')})"))
        reminder = n.state_reminder + tokens_of("\n".join(edited))
        session.add(
            Category.MESSAGES, BlockKind.NOTIFICATION, "State reminder (edited files, tasks)", reminder, "hidden"
        )
        fates.append(
            Fate(
                "State reminder",
                BlockKind.NOTIFICATION,
                "new",
                reminder,
                f"{len(edited)} edited file path(s), no content ({shown(n, 'state_reminder')} around them)",
            )
        )
        session.note(
            f"kept: the last user query and the latest reply; {len(edited)} edited file path(s) in a state "
            "reminder; every other turn and tool result dropped"
        )
        return fates, True


def build(n: GrokNumbers) -> Profile:
    bash = "bash"
    return agent_profile(
        n,
        build,
        own_window(n, ("grok-code-fast-1",), prefixes=("grok-",)),
        name=AgentName.GROK_BUILD,
        title="grok-build",
        reply_label="Grok's reply",
        tools=ToolNames(
            "read_file", "search_replace", "search_replace", "grep", "list_dir", bash, "spawn_subagent", "skill", "__"
        ),
        thresholds=FractionOfWindow(n.autocompact_percent / 100, warning_below=0, blocking_buffer=0),
        startup=noted_startup(
            n,
            environment="user_info",
            also=("instructions_close",),
            mcp="deferred",
            # the status alone: no header, note or commits of its own
            git_status=GitStatusRule(n.git_status_max_chars, 0, 0, 0, 0, CHARS_PER_TOKEN),
        ),
        instructions=EveryInstructionFile(n),
        mention=NumberedOrStub(n),
        reads=GrokRead(n),
        output=GrokOutput(n, bash),
        compaction=KeepAnchors(n),
        subagents=TaskSubagents(types=("general-purpose", "explore", "plan"), prompt_tokens=n.subagent_prompt),
        # grok-build keeps two anchors of the history, a summary and a reminder of the edited files.
        teaching=Teaching(
            CompactionWords(
                summary="Summary",
                keeps="your last query and the latest agent message",
                drops="every other turn and every tool result; edited files stay as paths in a state reminder",
            ),
            words={
                "stub": f"What an @-mention sends for a file estimated over {n.mention_gate:,} tokens: a line naming "
                "it, without its contents.",
                "spilled preview": f"A tool output too big for the context: the full text goes to a file; the model "
                f"sees a {n.preview_bytes:,}-byte part of it.",
            },
        ),
    )


PROFILE = build(NUMBERS)
