"""Startup payloads: what is in the window before the first prompt, one step per item, in the order the
agent assembles a request (the order its prompt cache sees)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ctxviz.kinds import BlockKind, StepKind
from ctxviz.profiles.base import Session
from ctxviz.scenario.measure import Measure
from ctxviz.timeline import Category

if TYPE_CHECKING:
    from ctxviz.scenario.model import GitStatus, Skill


GIT_STATUS_BLOCK = "startup.git-status-block"


@dataclass(frozen=True, slots=True)
class Sized:
    tokens: int
    why: str | None = None


@dataclass(frozen=True, slots=True)
class GitStatusRule:
    """``git status --short`` cut at ``max_chars``, plus up to ``max_commits`` recent commits."""

    max_chars: int
    header: int
    truncation_note: int
    commit_line: int
    max_commits: int
    chars_per_token: int

    def size(self, spec: GitStatus) -> Sized:
        chars = spec.status.chars
        cut = chars > self.max_chars
        commits = min(spec.commits, self.max_commits)
        tokens = (
            self.header
            + math.ceil(min(chars, self.max_chars) / self.chars_per_token)
            + (self.truncation_note if cut else 0)
            + commits * self.commit_line
        )
        why = f"git status cut at {self.max_chars:,} chars ({chars:,} chars in all), plus {commits} recent commits"
        return Sized(tokens, why if cut else None)


@dataclass(frozen=True, slots=True)
class AutoMemoryRule:
    """The auto memory file: its first ``max_lines`` lines or ``max_bytes``, whichever comes first, plus a
    warning line when cut."""

    max_lines: int
    max_bytes: int
    warning: int

    def size(self, size: Measure) -> Sized:
        kept, reasons = size, []
        if kept.lines > self.max_lines:
            reasons.append(f"{kept.lines:,} lines > {self.max_lines}")
            kept = kept.scaled(self.max_lines / kept.lines)
        if kept.bytes > self.max_bytes:
            reasons.append(f"{kept.bytes:,} bytes > {self.max_bytes:,}")
            kept = kept.scaled(self.max_bytes / kept.bytes)
        if not reasons:
            return Sized(size.tokens)
        return Sized(
            kept.tokens + self.warning,
            f"MEMORY.md truncated ({'; then '.join(reasons)}): {kept.tokens:,} of {size.tokens:,} tokens loaded, "
            f"plus a {self.warning}-token warning line",
        )


@dataclass(frozen=True, slots=True)
class Listing:
    tokens: int
    listed: tuple[str, ...]
    names_only: tuple[str, ...]
    unlisted: tuple[str, ...]
    why: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SkillListingRule:
    """Name + description of each model-invocable skill, each description capped, the listing within a
    fraction of the window in chars; over budget, the least-used skills are cut to their names."""

    budget_fraction: float
    description_max_chars: int
    entry_overhead_chars: int
    chars_per_token: int

    def listing(self, skills: tuple[Skill, ...], window: int) -> Listing:
        budget = int(window * self.chars_per_token * self.budget_fraction)
        listed = [s for s in skills if not s.disable_model_invocation]
        unlisted = tuple(s.name for s in skills if s.disable_model_invocation)
        why: list[str] = []
        entry = {}
        for skill in listed:
            chars = skill.description.chars
            if chars > self.description_max_chars:
                why.append(f"{skill.name}: description cut to {self.description_max_chars:,} chars ({chars:,})")
                chars = self.description_max_chars
            entry[skill.name] = len(skill.name) + self.entry_overhead_chars + chars
        names_only: list[str] = []
        total = sum(entry.values())
        # least used first; among equals the one listed last goes first
        for skill in sorted(listed, key=lambda s: (s.uses, -listed.index(s))):
            if total <= budget:
                break
            bare = len(skill.name) + self.entry_overhead_chars
            if entry[skill.name] > bare:
                total -= entry[skill.name] - bare
                entry[skill.name] = bare
                names_only.append(skill.name)
        if names_only:
            why.append(
                f"skill listing over its budget of {budget:,} chars ({self.budget_fraction:g} × the window × "
                f"{self.chars_per_token} chars a token): {', '.join(names_only)} listed by name only (least used first)"
            )
        if unlisted:
            one = len(unlisted) == 1
            why.append(
                f"{', '.join(unlisted)} {'is' if one else 'are'} not in the listing: only you can start "
                f"{'it' if one else 'them'} (disable-model-invocation)"
            )
        tokens = math.ceil(total / self.chars_per_token)
        return Listing(tokens, tuple(s.name for s in listed), tuple(names_only), unlisted, tuple(why))

    def add(self, session: Session) -> None:
        """The listing as a block of the Skills category, with its notes."""
        listing = self.listing(session.scenario.setup.skills, session.window)
        if listing.listed:
            session.add(
                Category.SKILLS, BlockKind.SKILL_LISTING, f"Skill descriptions ({len(listing.listed)})", listing.tokens
            )
        for why in listing.why:
            session.note(why)


@dataclass(frozen=True, slots=True)
class TreeRule:
    """A directory tree sent up front: at most ``max_items`` entries (files and folders), each about
    ``tokens_per_item``."""

    max_items: int
    tokens_per_item: int

    def size(self, files: int, dirs: int) -> Sized:
        items = files + dirs
        if items > self.max_items:
            return Sized(
                self.max_items * self.tokens_per_item,
                f"directory tree cut at {self.max_items:,} of {items:,} entries",
            )
        return Sized(items * self.tokens_per_item)


@dataclass(frozen=True, slots=True)
class StandardStartup:
    """System prompt (+ output style, appended prompt, git status), environment, a tree if the agent sends
    one, tool definitions, MCP tools (deferred: names only), custom agents, instruction files, auto memory,
    the skill listing, then SessionStart hooks. A part whose rule is None (the default) is not sent by this
    agent."""

    system_prompt: int
    environment: int
    tools: int
    mcp_deferred_tokens_per_tool: int
    mcp_schema_tokens_per_tool: int
    git_status: GitStatusRule | None = None
    auto_memory: AutoMemoryRule | None = None
    skills: SkillListingRule | None = None
    tree: TreeRule | None = None
    # "deferred": each server's deferred flag holds (Claude Code); "schemas": every schema loads up front;
    # "none": the agent has no MCP client, a scenario's servers are not loaded
    mcp: Literal["deferred", "schemas", "none"] = "deferred"

    def startup(self, session: Session, hook_source: str) -> None:
        setup, subagent = session.scenario.setup, session.subagent_type
        lean = subagent is not None and session.profile.subagents.lean(subagent)
        if subagent is None:
            _step(
                session,
                Category.SYSTEM_PROMPT,
                BlockKind.SYSTEM_PROMPT,
                "System prompt",
                _tokens(setup.system_prompt, self.system_prompt),
            )
            if setup.output_style:  # the main thread's; a subagent has its own prompt
                _step(
                    session, Category.SYSTEM_PROMPT, BlockKind.SYSTEM_PROMPT, "Output style", setup.output_style.tokens
                )
            if setup.append_system_prompt:
                _step(
                    session,
                    Category.SYSTEM_PROMPT,
                    BlockKind.SYSTEM_PROMPT,
                    "--append-system-prompt",
                    setup.append_system_prompt.tokens,
                )
        else:
            tokens = session.profile.subagents.system_prompt(subagent)
            _step(session, Category.SYSTEM_PROMPT, BlockKind.SYSTEM_PROMPT, "System prompt (subagent's own)", tokens)
        if setup.git_status and self.git_status is not None and not lean:
            sized = self.git_status.size(setup.git_status)
            if sized.why:
                session.note(sized.why)
            _step(session, Category.SYSTEM_PROMPT, BlockKind.SYSTEM_PROMPT, "Git status", sized.tokens)
            session.state.policy[GIT_STATUS_BLOCK] = session.live()[-1].id  # compaction takes a fresh one
        if subagent is None:
            _step(
                session,
                Category.SYSTEM_PROMPT,
                BlockKind.ENVIRONMENT,
                "Environment info",
                _tokens(setup.environment, self.environment),
            )
            if self.tree is not None:
                files, dirs = session.scenario.tree_size()
                sized = self.tree.size(files, dirs)
                if sized.why:
                    session.note(sized.why)
                _step(
                    session,
                    Category.SYSTEM_PROMPT,
                    BlockKind.DIRECTORY_TREE,
                    f"Directory tree ({files + dirs:,} entries)",
                    sized.tokens,
                )
        _step(
            session,
            Category.SYSTEM_TOOLS,
            BlockKind.TOOLS,
            "Built-in tool definitions",
            _tokens(setup.tools, self.tools),
        )
        for server in setup.mcp:
            if self.mcp == "none":
                session.note(f"MCP {server.server} not loaded: {session.profile.title} has no MCP client")
                continue
            if server.deferred and self.mcp == "deferred":
                tokens = server.tools * self.mcp_deferred_tokens_per_tool
                label = f"MCP {server.server}: {server.tools} tools (deferred: names only)"
                session.note(
                    f"names only: {server.tools} tools × {self.mcp_deferred_tokens_per_tool} tokens; a tool's full "
                    "description loads when Claude first uses it"
                )
            else:
                tokens = server.schemas.tokens if server.schemas else server.tools * self.mcp_schema_tokens_per_tool
                label = f"MCP {server.server}: {server.tools} tool schemas"
                why = "not deferred" if self.mcp == "deferred" else f"{session.profile.title} defers no MCP tool"
                session.note(f"{why}: all {server.tools} tool schemas load up front")
            _step(session, Category.MCP_TOOLS, BlockKind.MCP_TOOLS, label, tokens)
        if subagent is None:
            for agent in setup.agents:
                _step(
                    session, Category.CUSTOM_AGENTS, BlockKind.AGENTS, f"Agent: {agent.name}", agent.description.tokens
                )
        if not lean:
            for path, tokens in session.profile.instructions.startup_files(session):
                _step(session, Category.MEMORY_FILES, BlockKind.MEMORY_FILE, path, tokens)
        elif subagent is not None:
            session.note(f"{subagent} subagents skip the instruction files and git status")
        if setup.auto_memory and subagent is None and self.auto_memory is not None:
            sized = self.auto_memory.size(setup.auto_memory)
            if sized.why:
                session.note(sized.why)
            _step(session, Category.MEMORY_FILES, BlockKind.AUTO_MEMORY, "Auto memory (MEMORY.md)", sized.tokens)
        if setup.skills and self.skills is not None:
            self.skills.add(session)
            if session.pending():
                session.close_step(StepKind.STARTUP, "Skill descriptions")
        if subagent is None:
            session.session_start_hooks(hook_source)
            if session.pending():
                session.close_step(StepKind.STARTUP, f"SessionStart hooks ({hook_source})")


def _tokens(size: Measure | None, default: int) -> int:
    return size.tokens if size is not None else default


def _step(session: Session, category: Category, kind: BlockKind, label: str, tokens: int) -> None:
    session.add(category, kind, label, tokens)
    session.close_step(StepKind.STARTUP, label)
