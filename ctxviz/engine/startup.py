"""Startup (MECHANICS.md §2): what is in the window before the first prompt, one step per block, in the
order Claude Code assembles a request (which is the order the prompt cache sees)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ctxviz.engine import sizing
from ctxviz.scenario.model import FileEntry, RuleEntry
from ctxviz.timeline import Category

if TYPE_CHECKING:
    from ctxviz.engine.session import Session


def startup(session: Session, hook_source: str) -> None:
    """The startup blocks of a main session (``hook_source`` names the SessionStart source)."""
    setup, p, rec = session.scenario.setup, session.profile, session.rec
    lean = session.subagent_type in p.subagent_lean_types
    if session.subagent_type is None:
        _step(
            session,
            Category.SYSTEM_PROMPT,
            "system-prompt",
            "System prompt",
            _tokens(setup.system_prompt, p.system_prompt),
        )
    else:
        _step(
            session, Category.SYSTEM_PROMPT, "system-prompt", "System prompt (subagent's own)", p.subagent_system_prompt
        )
    if setup.output_style and session.subagent_type is None:  # the main thread's; a subagent has its own prompt
        _step(session, Category.SYSTEM_PROMPT, "system-prompt", "Output style", setup.output_style.tokens)
    if setup.append_system_prompt and session.subagent_type is None:
        _step(
            session,
            Category.SYSTEM_PROMPT,
            "system-prompt",
            "--append-system-prompt",
            setup.append_system_prompt.tokens,
        )
    if setup.git_status and not lean:
        sized = sizing.git_status(p, setup.git_status)
        if sized.why:
            rec.note(sized.why)
        _step(session, Category.SYSTEM_PROMPT, "system-prompt", "Git status", sized.tokens)
    if session.subagent_type is None:
        _step(
            session,
            Category.SYSTEM_PROMPT,
            "environment",
            "Environment info",
            _tokens(setup.environment, p.environment),
        )
    _step(session, Category.SYSTEM_TOOLS, "tools", "Built-in tool definitions", _tokens(setup.tools, p.tools))
    for server in setup.mcp:
        if server.deferred:
            tokens = server.tools * p.mcp_deferred_tokens_per_tool
            label = f"MCP {server.server}: {server.tools} tools (deferred: names only)"
            rec.note(f"deferred: {server.tools} tool names × {p.mcp_deferred_tokens_per_tool}; schemas load on use")
        else:
            tokens = server.schemas.tokens if server.schemas else server.tools * p.mcp_schema_tokens_per_tool
            label = f"MCP {server.server}: {server.tools} tool schemas"
            rec.note(f"not deferred: all {server.tools} tool schemas load up front")
        _step(session, Category.MCP_TOOLS, "mcp-tools", label, tokens)
    if session.subagent_type is None:
        for agent in setup.agents:
            _step(session, Category.CUSTOM_AGENTS, "agents", f"Agent: {agent.name}", agent.description.tokens)
    if not lean:
        for path, entry in memory_files(session):
            _step(session, Category.MEMORY_FILES, "memory-file", path, entry.memory_size.tokens)
    elif session.subagent_type is not None:
        rec.note(f"{session.subagent_type} subagents skip CLAUDE.md and git status")
    if setup.auto_memory and session.subagent_type is None:
        sized = sizing.auto_memory(p, setup.auto_memory)
        if sized.why:
            rec.note(sized.why)
        _step(session, Category.MEMORY_FILES, "auto-memory", "Auto memory (MEMORY.md)", sized.tokens)
    if setup.skills:
        session.add_listing()
        if rec.pending():
            rec.close_step("startup", "Skill descriptions")
    if session.subagent_type is None:
        session.session_start_hooks(hook_source)
        if rec.pending():
            rec.close_step("startup", f"SessionStart hooks ({hook_source})")


def _tokens(size: object, default: int) -> int:
    return size.tokens if size is not None else default  # type: ignore[attr-defined]


def _step(session: Session, category: Category, kind: str, label: str, tokens: int) -> None:
    session.rec.add(category, kind, label, tokens)
    session.rec.close_step("startup", label)


def resolve_import(importer: str, target: str) -> str:
    """An ``@import`` path as a scenario path: relative to the importing file unless ``~/`` or ``/``."""
    if target.startswith(("~/", "/")):
        return target
    folder = posixpath.dirname(importer)
    return posixpath.normpath(posixpath.join(folder, target)) if folder else posixpath.normpath(target)


def memory_files(session: Session) -> Iterator[tuple[str, FileEntry | RuleEntry]]:
    """Startup memory in the profile's load order (user, project, .claude/, unscoped rules, local), each
    file's ``@imports`` loaded before it, up to the profile's depth, cycles and missing files skipped."""
    setup, p = session.scenario.setup, session.profile
    order = p.memory_load_order
    entries: list[tuple[int, int, str, FileEntry | RuleEntry]] = []
    for n, (path, entry) in enumerate(setup.memory.items()):
        if path.rsplit("/", 1)[-1] in p.opt_in_memory_names and not setup.agents_md:
            session.rec.note(f"{path} not loaded: Claude Code reads CLAUDE.md (set agents_md: true to load it)")
            continue
        rank = next((r for r, prefix in enumerate(order) if prefix.endswith("/") and path.startswith(prefix)), None)
        if rank is None:
            rank = order.index(path) if path in order else order.index("<rules>") - 1
        entries.append((rank, n, path, entry))
    for n, (path, rule) in enumerate(setup.rules.items()):
        if not rule.paths:
            entries.append((order.index("<rules>"), n, path, rule))
    known: dict[str, FileEntry] = {**session.scenario.files, **setup.memory}
    seen: set[str] = set()

    def imports_of(path: str, entry: FileEntry | RuleEntry) -> list[str]:
        written = [resolve_import(path, t) for t in entry.written_imports]
        # a written @import of a file the scenario does not list is skipped, as Claude Code skips
        # a missing file; an `imports:` entry was checked when the scenario loaded
        return list(dict.fromkeys([*getattr(entry, "imports", ()), *(t for t in written if t in known)]))

    def expand(path: str, entry: FileEntry | RuleEntry, depth: int) -> Iterator[tuple[str, FileEntry | RuleEntry]]:
        seen.add(path)
        for target in imports_of(path, entry):
            if target in seen:
                continue
            if depth + 1 > p.memory_import_max_depth:
                session.rec.note(
                    f"@{target} (imported by {path}) not loaded: deeper than "
                    f"{p.memory_import_max_depth} levels of imports"
                )
                continue
            yield from expand(target, known[target], depth + 1)
        yield path, entry

    for _, _, path, entry in sorted(entries, key=lambda e: (e[0], e[1])):
        if path not in seen:
            yield from expand(path, entry, 0)
