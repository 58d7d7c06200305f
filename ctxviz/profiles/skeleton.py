"""The skeleton every profile but claude-code's is built on, so each agent's module states only what
makes it different: the sizes nobody measured for it (claude-code's, declared once here), the models it
runs, the standard startup with a note naming its assumed sizes, and the ``Profile`` around its policies."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ctxviz.profiles.base import ASSUMED_AS_CLAUDE_CODE, ModelSpec, Profile, number
from ctxviz.profiles.generic import AssumedStartupNoted
from ctxviz.profiles.policies.startup import GitStatusRule, StandardStartup, TreeRule


@dataclass(frozen=True, slots=True)
class SizesAsClaudeCode:
    """Sizes the engine reads from every profile that nobody measured for this agent: claude-code's."""

    tool_call: int = number(60, "assumed", ASSUMED_AS_CLAUDE_CODE)
    edit_result: int = number(40, "assumed", ASSUMED_AS_CLAUDE_CODE)
    notification: int = number(60, "assumed", ASSUMED_AS_CLAUDE_CODE)


@dataclass(frozen=True, slots=True)
class McpSizesAsClaudeCode(SizesAsClaudeCode):
    """The same, for an agent with an MCP client: an MCP tool's schema costs what it costs in claude-code."""

    mcp_schema_tokens_per_tool: int = number(400, "assumed", ASSUMED_AS_CLAUDE_CODE)


@dataclass(frozen=True, slots=True)
class Models:
    """The models an agent runs: its table, the families it runs (a model of one not in the table gets
    ``unknown``'s window) and a long-context suffix with the window it means."""

    table: Mapping[str, ModelSpec]
    prefixes: tuple[str, ...]
    unknown: ModelSpec
    long_context: tuple[str, int] | None = None


def own_window(numbers: Any, names: tuple[str, ...], prefixes: tuple[str, ...]) -> Models:
    """Every model named, and any other of the agent's families, with the numbers' window and max output."""
    model = ModelSpec(window=numbers.window, max_output=numbers.max_output)
    return Models({name: model for name in names}, prefixes, model)


def claude_models() -> Models:
    """Claude's models with claude-code's windows, for an agent that runs them."""
    from ctxviz.profiles.claude_code import PROFILE as CLAUDE_CODE

    return Models(CLAUDE_CODE.models, ("claude-",), CLAUDE_CODE.unknown_model, CLAUDE_CODE.long_context)


def noted_startup(
    numbers: Any,
    *,
    environment: str | None = "environment",
    also: tuple[str, ...] = (),
    mcp: Literal["deferred", "schemas", "none"] = "schemas",
    tree: TreeRule | None = None,
    git_status: GitStatusRule | None = None,
) -> AssumedStartupNoted:
    """The standard startup from the numbers every agent has (``environment`` names the agent's own, None:
    it sends none), with a note up front naming which of its sizes (and of ``also``) are assumptions. An
    agent whose MCP tools are deferred keeps ``mcp_deferred_tokens_per_tool`` among its numbers."""
    schema = getattr(numbers, "mcp_schema_tokens_per_tool", 0)
    startup = StandardStartup(
        system_prompt=numbers.system_prompt,
        environment=getattr(numbers, environment) if environment else 0,
        tools=numbers.tools,
        mcp_deferred_tokens_per_tool=numbers.mcp_deferred_tokens_per_tool if mcp == "deferred" else schema,
        mcp_schema_tokens_per_tool=schema,
        tree=tree,
        git_status=git_status,
        mcp=mcp,
    )
    named = ("system_prompt", *((environment,) if environment else ()), "tools", *also, "tool_call", "edit_result")
    return AssumedStartupNoted(startup, numbers, named)


def agent_profile(numbers: Any, build: Callable[[Any], Profile], models: Models, **rest: Any) -> Profile:
    """The profile of ``numbers``: ``build`` makes it again from overridden numbers; ``rest`` are its name,
    titles, tool names, policies and teaching (``Profile``'s fields)."""
    return Profile(
        numbers=numbers,
        build=build,
        models=models.table,
        model_prefixes=models.prefixes,
        unknown_model=models.unknown,
        long_context=models.long_context,
        **rest,
    )
