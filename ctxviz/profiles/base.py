"""A profile is one agent: plain data (its numbers, each with where it comes from) plus policy objects for
the parts whose algorithm differs between agents. The engine is agent-neutral: it calls the policies below
and reads no agent's name, tool names or numbers of its own.

How a profile module is written (see claude_code.py):
- a frozen dataclass of the agent's numbers, every field declared with ``number(value, confidence,
  source)``, so ``ctxviz agents`` can list each number's source and a why-note can say "assumed";
- ``build(numbers) -> Profile``, which makes the policies from those numbers (a scenario's ``profile:``
  overrides numbers by field name, then ``build`` runs again: see ``Profile.with_overrides``); the numbers
  the engine reads itself (``default_model``, ``tool_call``, ``edit_result``, ``notification``, and where
  an agent has them ``background_launch`` and ``mcp_schema_tokens_per_tool``) the profile takes from the
  numbers by name, and an agent without hooks, search caps, path-scoped rules or a long-context model
  leaves them out;
- ``PROFILE = build(NUMBERS)``, registered in ``ctxviz/profiles/__init__.py``.

Every agent but claude-code builds on ``profiles/skeleton.py``: its numbers extend the sizes it borrows
from claude-code, and ``build`` hands its models, startup, policies and teaching to ``agent_profile``.

Plain dataclasses and protocols, no pydantic: the transcript readers use the window arithmetic and must
not pay for importing pydantic. Overrides are validated where a scenario is opened (profiles/scenario_fit.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

# re-exported: a policy module imports everything it implements against from here
from ctxviz.profiles.session import Background as Background
from ctxviz.profiles.session import Session as Session
from ctxviz.profiles.session import SessionState as SessionState
from ctxviz.profiles.session import Triggered as Triggered
from ctxviz.profiles.teaching import Teaching
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.mentions import Mention
from ctxviz.timeline import Fate, Thresholds

Confidence = Literal["documented", "source", "measured", "assumed"]  # measured: from real sessions


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a number comes from. ``documented``: the agent's docs say it; ``source``: read in its source
    (``source`` names file and commit); ``assumed``: nobody published it — ctxviz's labelled guess."""

    confidence: Confidence
    source: str


def number(value: Any, confidence: Confidence, source: str) -> Any:
    """A field of a numbers dataclass with its provenance (mutable defaults are copied per instance)."""
    meta = {"provenance": Provenance(confidence, source)}
    if isinstance(value, dict | list | set):
        return field(default_factory=lambda: type(value)(value), metadata=meta)
    return field(default=value, metadata=meta)


# The source of a size no one measured for an agent, taken from the claude-code profile.
ASSUMED_AS_CLAUDE_CODE = "not measured; as the claude-code profile"


def provenance(numbers: Any) -> dict[str, tuple[Any, Provenance]]:
    """Each number of a numbers dataclass: its value and where it comes from."""
    return {
        f.name: (getattr(numbers, f.name), f.metadata.get("provenance", Provenance("assumed", "not recorded")))
        for f in dataclasses.fields(numbers)
    }


def is_assumed(numbers: Any, name: str) -> bool:
    """True when the number ``name`` is an assumption (a why-note that uses it says so)."""
    return provenance(numbers)[name][1].confidence == "assumed"


def assumed_names(numbers: Any) -> frozenset[str]:
    """The numbers that are assumptions. A builder hands them to its policies, whose why-notes then print
    each such number with ``figure(value, assumed=True)``."""
    return frozenset(name for name, (_, origin) in provenance(numbers).items() if origin.confidence == "assumed")


def figure(value: int, assumed: bool = False) -> str:
    """A number as a why-note prints it: ``2,000``, or ``2,000 (assumed)`` when nobody published it."""
    return f"{value:,} (assumed)" if assumed else f"{value:,}"


@dataclass(frozen=True, slots=True)
class ModelSpec:
    window: int
    max_output: int


@dataclass(frozen=True, slots=True)
class ModelWindow:
    """The model a run used and its window. ``known`` False: the window is a guess (say so)."""

    model: str
    window: int
    max_output: int
    known: bool
    notice: str | None = None  # e.g. the scenario's model is not one this agent runs


@dataclass(frozen=True, slots=True)
class ToolNames:
    """The agent's names for the tools a scenario's neutral events stand for (hooks match these names)."""

    read: str
    edit: str
    write: str
    grep: str
    glob: str
    bash: str
    subagent: str
    skill: str
    mcp_separator: str | None = None  # "__" for mcp__<server>__<tool>; None: the agent has no MCP tools

    def mcp(self, name: str) -> tuple[str, str] | None:
        """(server, tool) when ``name`` is an MCP tool's name in this agent's spelling."""
        if self.mcp_separator is None:
            return None
        parts = name.split(self.mcp_separator)
        return (parts[1], parts[2]) if len(parts) == 3 and parts[0] == "mcp" else None


@dataclass(frozen=True, slots=True)
class SearchCaps:
    glob_max_results: int
    grep_max_results: int
    glob_tokens_per_path: int
    grep_tokens_per_result: int


# Search tools whose result caps nobody published: every match comes back and the output cap applies.
# A match costs what it costs in claude-code (a path 10, a line 15: assumed there too).
NO_SEARCH_CAPS = SearchCaps(
    glob_max_results=10**9, grep_max_results=10**9, glob_tokens_per_path=10, grep_tokens_per_result=15
)


@dataclass(frozen=True, slots=True)
class HookRules:
    """Which hook events reach the context, and how. An agent without hooks: ``context_events=()``."""

    context_events: tuple[str, ...]  # JSON additionalContext from these enters the context
    stdout_events: tuple[str, ...]  # plain stdout enters only for these
    max_output_chars: int  # over it, the output is saved to a file and a preview enters
    preview_bytes: int
    preview_tokens: int


NO_HOOKS = HookRules(context_events=(), stdout_events=(), max_output_chars=0, preview_bytes=0, preview_tokens=0)


# --- the policies ------------------------------------------------------------------------------------
class ThresholdPolicy(Protocol):
    def thresholds(
        self, window: int, max_output: int, autocompact: bool | int = True, autocompact_pct: float | None = None
    ) -> Thresholds:
        """Where warnings, auto-compaction (the trigger: ``autocompact``, None when off) and the blocking
        limit sit for this window. ``autocompact`` is the scenario's on/off or a size capping the window the
        trigger is computed from; ``autocompact_pct`` may only lower the trigger. Pure arithmetic."""
        ...

    def formula(self) -> str:
        """The trigger's rule in words with this profile's numbers, e.g. "90% of the window"."""
        ...


class StartupPolicy(Protocol):
    def startup(self, session: Session, hook_source: str) -> None:
        """Add what the agent sends before the first prompt, in its request order, closing one
        ``StepKind.STARTUP`` step per item (``session.close_step``): system prompt, tool definitions,
        environment, a directory tree if the agent sends one (``session.scenario.tree_size()``), the
        instruction files from ``session.profile.instructions``, and so on. A subagent's session
        (``session.subagent_type`` set) gets the subagent's own payload. ``hook_source`` names the
        SessionStart source (startup, clear)."""
        ...


class InstructionPolicy(Protocol):
    def startup_files(self, session: Session) -> Iterable[tuple[str, int]]:
        """The instruction files loaded at startup as (path, tokens), in load order, chosen by name from
        ``session.scenario.setup.memory`` (CLAUDE.md, AGENTS.md, GEMINI.md, …: only the names this agent
        reads), after any caps (e.g. a total byte budget); a note for each file skipped or cut."""
        ...

    def nested(self, files: Iterable[str]) -> list[tuple[str, str]]:
        """(folder, path) of each instruction file in a subfolder that loads when a file in that folder is
        first touched; [] for an agent that loads none on demand."""
        ...


class MentionPolicy(Protocol):
    def mention(self, session: Session, mention: Mention) -> None:
        """What the agent sends for one ``@`` mention in a user prompt, added after the prompt's block with
        a why-note: content read through the agent's limits (``session.read`` or its own sizing), a stub,
        metadata only, or nothing beyond the path already in the prompt. ``mention.path`` is a file of
        the scenario or a directory (ends with ``/``); the engine skips mentions of anything else."""
        ...


@dataclass(frozen=True, slots=True)
class ReadOutcome:
    kind: Literal["content", "error"]
    tokens: int
    why: str | None = None


class ReadPolicy(Protocol):
    @property
    def unchanged_stub(self) -> int | None:
        """Tokens of the stub for re-reading an unchanged file; None: the content again."""
        ...

    def read(self, path: str, size: Measure, lines: tuple[int, int] | None = None) -> ReadOutcome:
        """The read tool's result for a file of ``size`` (``lines``: a 1-based inclusive range): the tokens
        that enter, cut to the agent's line/byte/token limits, or a short error; ``why`` says what was cut."""
        ...


@dataclass(frozen=True, slots=True)
class OutputOutcome:
    tokens: int
    spilled: bool  # True: the output went to a file and the context got a preview (block kind spilled-output)
    why: str | None = None


class OutputPolicy(Protocol):
    @property
    def turn_budget_chars(self) -> int | None:
        """Chars of one model turn's results together; over it, the largest spill first. None: no budget."""
        ...

    def limit(self, tool: str) -> int | None:
        """Chars of ``tool``'s output kept inline; None: no limit."""
        ...

    def result(self, tool: str, label: str, size: Measure, forced: bool) -> OutputOutcome:
        """What enters for a tool's output of ``size``: whole, truncated (head/tail) or spilled to a file
        with a preview. ``forced``: the turn's budget already chose to spill this one."""
        ...


class CompactionPolicy(Protocol):
    def compact(self, session: Session, *, manual: bool, focus: str | None, summary: Measure | None) -> list[Fate]:
        """Replace the history with what survives in this agent (a summary, restored files, recent
        messages, …), using ``session.remove``/``session.add`` and notes with the numbers; return one
        ``Fate`` per piece (or per kind of piece) saying what happened to it and why. The engine has
        already noted the trigger and closes the step. The agent's memory of what it read or sent
        (``session.state``) is reset here as the agent resets it."""
        ...

    def clear(self, session: Session) -> None:
        """``/clear``: empty the history (what the agent rebuilds from startup comes back). The engine
        resets ``session.state`` (background tasks keep running) and closes the step."""
        ...


class SubagentPolicy(Protocol):
    @property
    def types(self) -> tuple[str, ...]:
        """The built-in subagent types; () = the agent has no subagents (the engine runs the work inline)."""
        ...

    def system_prompt(self, subagent_type: str) -> int:
        """Tokens of the subagent's own system prompt."""
        ...

    def trailer(self, subagent_type: str) -> int:
        """Tokens of metadata the parent gets with the subagent's answer."""
        ...

    def lean(self, subagent_type: str) -> bool:
        """True when this type starts without the instruction files and git status."""
        ...


# --- the profile --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Profile:
    name: str  # "claude-code", "codex", …: what --agent and a scenario's agent: say
    title: str  # "Claude Code"
    reply_label: str  # the label of the model's reply blocks ("Claude's reply")
    numbers: Any  # the frozen numbers dataclass this profile was built from (see ``number``)
    build: Callable[[Any], Profile]  # numbers → profile; re-run with overridden numbers
    models: Mapping[str, ModelSpec]
    model_prefixes: tuple[str, ...]  # model families it runs; an unlisted model of a family gets unknown_model
    unknown_model: ModelSpec
    long_context: tuple[str, int] | None = None  # a model-name suffix and the window it means ("[1m]", 1,000,000)
    tools: ToolNames
    search: SearchCaps = NO_SEARCH_CAPS
    hooks: HookRules = NO_HOOKS
    rule_triggers: tuple[str, ...] = ()  # which touches (read, write, edit) load path-scoped rules and nested files
    thresholds: ThresholdPolicy
    startup: StartupPolicy
    instructions: InstructionPolicy
    mention: MentionPolicy
    reads: ReadPolicy
    output: OutputPolicy
    compaction: CompactionPolicy
    subagents: SubagentPolicy
    teaching: Teaching = Teaching()  # how the TUI and ``--why`` explain this agent (its compaction, its words)
    # the stale_reads=drop what-if (no agent does it): an edit or write of a file takes its earlier reads,
    # now out of date, out of the window
    drops_stale_reads: bool = False
    # the dedup=sha256 what-if: a tool output whose content (its digest) is still in the window, or a file
    # read again unchanged, is sent as a reference of this many tokens instead; None: as the agent sends it
    repeat_reference: int | None = None
    # Read from ``numbers`` (see __post_init__), so a profile states each number once and an override of
    # the number reaches the engine. Plain fields, not properties: the engine reads them on every event.
    default_model: str = field(init=False)
    tool_call: int = field(init=False)  # tokens of one tool call's envelope
    # a deferred MCP tool's schema, loaded by tool search before its first call
    mcp_schema_tokens: int = field(init=False)
    edit_result: int = field(init=False)
    background_launch: int = field(init=False)  # the notice when a command or subagent starts in the background
    notification: int = field(init=False)  # the notification when it finishes

    def __post_init__(self) -> None:
        n = self.numbers
        copied = {
            "default_model": n.default_model,
            "tool_call": n.tool_call,
            # numbers without it: the agent has no MCP tools
            "mcp_schema_tokens": getattr(n, "mcp_schema_tokens_per_tool", 0),
            "edit_result": n.edit_result,
            # numbers without it: nobody measured the notice, it costs what a tool call costs
            "background_launch": getattr(n, "background_launch", n.tool_call),
            "notification": n.notification,
        }
        for name, value in copied.items():
            object.__setattr__(self, name, value)  # frozen: set once, here

    def with_overrides(self, overrides: Mapping[str, Any]) -> Profile:
        """The profile rebuilt with some numbers replaced (names not among its numbers are ignored)."""
        known = {k: v for k, v in overrides.items() if k in self.number_names()}
        return self.build(dataclasses.replace(self.numbers, **known)) if known else self

    def number_names(self) -> frozenset[str]:
        return frozenset(f.name for f in dataclasses.fields(self.numbers))

    def runs(self, model: str) -> bool:
        """Whether this agent can run ``model`` (a scenario's model applies only then)."""
        base = self.base_model(model)
        return base in self.models or base.startswith(self.model_prefixes)

    def base_model(self, model: str) -> str:
        return model.removesuffix(self.long_context[0]) if self.long_context else model

    def model_window(self, model: str | None, window: int | None = None, *, foreign: bool = True) -> ModelWindow:
        """The window for ``model`` (``window`` overrides it). A model this agent does not run is replaced by
        its default model, with a notice; ``foreign=False`` (a transcript: the model is a fact) keeps it and
        takes the unknown model's window."""
        notice = None
        if model is None or (foreign and not self.runs(model)):
            if model is not None:
                notice = f"{self.name} does not run {model}: its default model {self.default_model} is used"
            model = self.default_model
        spec = self.models.get(self.base_model(model))
        known = spec is not None
        if spec is None:
            spec = self.unknown_model
        long = self.long_context is not None and model.endswith(self.long_context[0])
        chosen = window or (self.long_context[1] if long and self.long_context else spec.window)
        return ModelWindow(model, chosen, spec.max_output, known, notice)
