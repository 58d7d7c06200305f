"""The ``cursor`` profile. Cursor is closed source: only its behaviour is documented — rules that apply
always or when a file matches their globs, @-mentions that inline files (condensed when too large), a
codebase index, and summarisation when the window is about to fill. Every number here is an assumption,
and every why-note that uses one says so."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxviz.kinds import AgentName, BlockKind, Touch
from ctxviz.profiles.base import Profile, Session, ToolNames, number
from ctxviz.profiles.generic import (
    AssumedReadLimit,
    AssumedTrigger,
    FoldsHistory,
    add_summary,
    drop,
    shown,
)
from ctxviz.profiles.policies.mentions import directory_entries
from ctxviz.profiles.policies.output import HeadAndTail
from ctxviz.profiles.policies.reads import TruncateAtLimits, line_range
from ctxviz.profiles.policies.startup import TreeRule
from ctxviz.profiles.policies.subagents import NoSubagents
from ctxviz.profiles.policies.thresholds import FractionOfWindow
from ctxviz.profiles.skeleton import McpSizesAsClaudeCode, agent_profile, noted_startup, own_window
from ctxviz.profiles.teaching import CompactionWords, Teaching
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.mentions import Mention
from ctxviz.timeline import Block, Category, Fate

if TYPE_CHECKING:
    from ctxviz.scenario.model import RuleEntry

_DOCS = "docs.cursor.com"
_CLOSED = "closed source: not published"
RULES_FOLDER = ".cursor/rules/"


@dataclass(frozen=True, slots=True)
class CursorNumbers(McpSizesAsClaudeCode):
    default_model: str = number("claude-sonnet-4-6", "assumed", "Cursor picks a model per request (Auto)")
    window: int = number(200_000, "documented", f"{_DOCS}/context/management ('e.g. 200k tokens')")
    max_output: int = number(32_000, "assumed", _CLOSED)
    summarise_percent: int = number(
        90, "assumed", "the docs say only 'when the context window is about to be filled up'"
    )
    system_prompt: int = number(6_000, "assumed", _CLOSED)
    tools: int = number(8_000, "assumed", _CLOSED)
    environment: int = number(200, "assumed", "workspace and open-file context; " + _CLOSED)
    index_max_items: int = number(
        500, "assumed", "the codebase index is documented; how much of it is in context is not"
    )
    index_item: int = number(8, "assumed", "a path in the project map")
    condense_above: int = number(10_000, "assumed", "condensing is documented; the size that triggers it is not")
    condensed_percent: int = number(10, "assumed", "a condensed file keeps 'signatures, classes, methods'")
    folder_entry: int = number(8, "assumed", "a significantly condensed file: its name")
    read_max_lines: int = number(250, "assumed", "third-party reports: 250 lines a call (750 in Max mode)")
    output_max_tokens: int = number(10_000, "assumed", _CLOSED)
    truncation_marker: int = number(10, "assumed", _CLOSED)
    summary: int = number(1_000, "assumed", "a user's report: Conversation ~190k → ~1k after summarisation")


NUMBERS = CursorNumbers()


@dataclass(frozen=True, slots=True)
class InlineOrCondensed:
    """``@file`` inlines the file; a file too large is condensed to its signatures; ``@folder/`` sends its
    files condensed to their names (documented behaviour; every size here is assumed)."""

    numbers: CursorNumbers

    def mention(self, session: Session, mention: Mention) -> None:
        n, m = self.numbers, Category.MESSAGES
        if mention.is_directory:
            entries = directory_entries(list(session.files), mention.path)
            tokens = entries * n.folder_entry
            session.add(m, BlockKind.MENTION, f"{mention} (names)", tokens, "brief")
            session.note(
                f"{mention}: the folder's {entries} entries, condensed to names ({shown(n, 'folder_entry')} each)"
            )
            return
        size = session.file_size(mention.path)
        if mention.lines is not None:
            size = line_range(size, mention.lines)
        if size.tokens <= n.condense_above:
            session.add(m, BlockKind.FILE_READ, str(mention), size.tokens, "brief")
            session.note(f"{mention}: inlined whole ({size.tokens:,} ≤ {shown(n, 'condense_above')})")
        else:
            tokens = size.tokens * n.condensed_percent // 100
            session.add(m, BlockKind.MENTION, f"{mention} (condensed)", tokens, "brief")
            session.note(
                f"{mention}: condensed to signatures, {tokens:,} of {size.tokens:,} tokens: "
                f"over {shown(n, 'condense_above')}, keeping {n.condensed_percent}% (assumed)"
            )
        session.state.touched[mention.path] = session.order()
        session.triggers(mention.path, Touch.READ)


@dataclass(frozen=True, slots=True)
class RulesAndAgentsMd:
    """AGENTS.md and the ``.cursor/rules`` rules that always apply, at the start of the context; rules with
    globs attach when a matching file is referenced (the engine's scoped-rule path)."""

    def startup_files(self, session: Session) -> list[tuple[str, int]]:
        setup = session.scenario.setup
        files = [(p, e.memory_size.tokens) for p, e in setup.memory.items() if p == "AGENTS.md"]
        for path in setup.memory:
            if path != "AGENTS.md":
                session.note(f"{path} not loaded: Cursor reads AGENTS.md and .cursor/rules")
        files += [
            (p, r.memory_size.tokens) for p, r in setup.rules.items() if p.startswith(RULES_FOLDER) and not r.paths
        ]
        return files

    def nested(self, files: Iterable[str]) -> list[tuple[str, str]]:
        return []

    def scoped_rules(self, rules: Mapping[str, RuleEntry]) -> dict[str, RuleEntry]:
        """Auto-attached rules: those in .cursor/rules with globs."""
        return {path: rule for path, rule in rules.items() if path.startswith(RULES_FOLDER)}


@dataclass(frozen=True, slots=True)
class SummariseAll(FoldsHistory):
    """Summarisation: the conversation is replaced by a short summary (assumed ~1,000 tokens, as a user's
    report shows); rules, index and tools stay."""

    numbers: CursorNumbers

    def fold(self, session: Session, blocks: list[Block], summary: Measure | None) -> tuple[list[Fate], bool]:
        n = self.numbers
        fates: list[Fate] = []
        fates += drop(session, blocks, lambda kind: "summarised (how much Cursor keeps verbatim is not documented)")
        tokens = summary.tokens if summary is not None else n.summary
        fates.append(add_summary(session, tokens, "Summary", f"the summary ({shown(n, 'summary')})"))
        session.note(f"{sum(b.tokens for b in blocks):,} tokens of conversation summarised into {tokens:,} (assumed)")
        return fates, True


def build(n: CursorNumbers) -> Profile:
    return agent_profile(
        n,
        build,
        own_window(n, ("claude-sonnet-4-6",), prefixes=("claude-", "gpt-", "gemini-", "grok-")),
        name=AgentName.CURSOR,
        title="Cursor",
        reply_label="Cursor's reply",
        tools=ToolNames(
            "read_file", "edit_file", "edit_file", "grep_search", "file_search", "run_terminal_cmd", "", ""
        ),
        rule_triggers=(Touch.READ, Touch.WRITE, Touch.EDIT),
        thresholds=AssumedTrigger(FractionOfWindow(n.summarise_percent / 100, warning_below=0, blocking_buffer=0)),
        startup=noted_startup(
            n,
            also=("index_max_items", "index_item"),
            tree=TreeRule(max_items=n.index_max_items, tokens_per_item=n.index_item),
        ),
        instructions=RulesAndAgentsMd(),
        mention=InlineOrCondensed(n),
        reads=AssumedReadLimit(
            TruncateAtLimits(max_lines=n.read_max_lines, max_bytes=10**9), "250 lines a call, third-party reports"
        ),
        output=HeadAndTail(max_tokens=n.output_max_tokens, marker=n.truncation_marker),
        compaction=SummariseAll(n),
        subagents=NoSubagents(),
        # Cursor summarises the whole conversation (what it keeps verbatim is not documented).
        teaching=Teaching(CompactionWords(summary="Summary", drops="the whole conversation")),
    )


PROFILE = build(NUMBERS)
