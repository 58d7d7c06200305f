"""The events of a scenario (docs/scenarios.md, "events:"), one pydantic model per kind, and ``Event``:
their union, told apart by the event's kind key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, Discriminator, Field, Tag, model_validator

from ctxviz.kinds import AgentName, EventKind
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.mentions import Mention, parse_mentions
from ctxviz.scenario.sizes import Size
from ctxviz.scenario.strict import Strict, Visibility


def _shorthand(key: str) -> Callable[[Any], Any]:
    """``read: src/x.py`` is short for ``read: {path: src/x.py}``."""

    def expand(value: Any) -> Any:
        return {key: value} if isinstance(value, str) else value

    return expand


class Note(Strict):
    """The author's narration of an event; ``agents`` names the runs it is about (none: every run)."""

    text: str
    agents: tuple[AgentName, ...] = ()


def _note(value: Any) -> Any:
    """``note: text`` is short for ``note: {text: text}`` (a note for every agent)."""
    return {"text": value} if isinstance(value, str) else value


NoteField = Annotated[Note, BeforeValidator(_note, json_schema_input_type=str | Note)]


class EventBase(Strict):
    kind: ClassVar[EventKind]
    note: NoteField | None = None
    # The agent decides to compact from its own count, not the exact size: the last call's measured usage
    # plus an estimate of what came after it. How far that count is from the exact size once this event
    # is in (tokens; an imported session knows it, a written scenario counts exactly).
    count_gap: int = 0
    # Tokens of earlier results the agent cleared before this event (Claude Code clears old tool results
    # between calls; a session records it as usage that falls without a compaction).
    cleared: int = Field(default=0, ge=0)
    # Whether a model call follows this event. The agent checks auto-compaction only before a call; in an
    # imported session the events between two calls all come in first (a written scenario: after each).
    call_follows: bool = True


class PromptSpec(Strict):
    text: str
    size: Size  # the message's size; counted from the text unless given
    visibility: Visibility = "full"

    @property
    def mentions(self) -> tuple[Mention, ...]:
        """The ``@`` mentions in the text (each agent's mention policy decides what they send)."""
        return parse_mentions(self.text)

    @model_validator(mode="before")
    @classmethod
    def _count_text(cls, value: Any) -> Any:
        if isinstance(value, dict) and "size" not in value and isinstance(value.get("text"), str):
            return {**value, "size": {"text": value["text"]}}
        return value


class PromptEvent(EventBase):
    kind = EventKind.PROMPT
    prompt: Annotated[PromptSpec, BeforeValidator(_shorthand("text"), json_schema_input_type=str | PromptSpec)]


class ReplyEvent(EventBase):
    kind = EventKind.REPLY
    reply: Size


class ReadSpec(Strict):
    path: str


class ReadEvent(EventBase):
    kind = EventKind.READ
    read: Annotated[ReadSpec, BeforeValidator(_shorthand("path"), json_schema_input_type=str | ReadSpec)]


class EditSpec(Strict):
    path: str
    change: Size = Measure.of_tokens(200)  # old + new strings in the tool call
    result: Size | None = None  # the tool's short answer (profile default)
    file_after: Size | None = None  # the file as the edit leaves it, as a Read sends it (default: unchanged)


class EditEvent(EventBase):
    kind = EventKind.EDIT
    edit: Annotated[EditSpec, BeforeValidator(_shorthand("path"), json_schema_input_type=str | EditSpec)]


class WriteSpec(Strict):
    path: str
    content: Size | None = None  # default: the file's size in files:
    file_after: Size | None = None  # the file as the write leaves it, as a Read sends it (default: unchanged)


class WriteEvent(EventBase):
    kind = EventKind.WRITE
    write: Annotated[WriteSpec, BeforeValidator(_shorthand("path"), json_schema_input_type=str | WriteSpec)]


class SearchSpec(Strict):
    pattern: str
    matches: int | None = Field(default=None, ge=0)  # results before the tool's cap
    output: Size | None = None  # the result's size, if given directly
    digest: str | None = None  # of the output's content: the same digest is the same content sent again

    @model_validator(mode="after")
    def _one(self) -> SearchSpec:
        if (self.matches is None) == (self.output is None):
            raise ValueError("give exactly one of matches (a count) or output (a size)")
        return self


class GrepEvent(EventBase):
    kind = EventKind.GREP
    grep: SearchSpec


class GlobEvent(EventBase):
    kind = EventKind.GLOB
    glob: SearchSpec


class BashSpec(Strict):
    command: str
    output: Size = Measure.of_tokens(0)
    background: bool = False
    finishes_after: int = Field(default=1, ge=0)  # events until a background command's notification
    digest: str | None = None  # of the output's content: the same digest is the same content sent again


class BashEvent(EventBase):
    kind = EventKind.BASH
    bash: Annotated[BashSpec, BeforeValidator(_shorthand("command"), json_schema_input_type=str | BashSpec)]


class ToolSpec(Strict):
    name: str  # e.g. WebFetch, or an MCP tool: mcp__<server>__<tool>
    call: Size = Measure.of_tokens(0)  # arguments, beyond the profile's tool-call overhead
    output: Size = Measure.of_tokens(0)
    digest: str | None = None  # of the output's content: the same digest is the same content sent again
    # a file this call read part of: it joins the files read lately (what a compaction re-reads whole)
    reads: str | None = None
    # the agent whose own cut this output's size already reflects (an imported session: the output as it
    # reached the model); that agent's profile does not cut it a second time
    cut_by: AgentName | None = None


class ToolEvent(EventBase):
    kind = EventKind.TOOL
    tool: ToolSpec


class SubagentSpec(Strict):
    type: str = "general-purpose"  # Explore, Plan, general-purpose, or a custom agent's name
    prompt: Size = Measure.of_tokens(100)  # the task prompt Claude writes
    reads: tuple[str, ...] = ()
    events: tuple[Event, ...] = ()
    returns: Size = Measure.of_tokens(400)  # the final text the parent receives
    model: str | None = None
    background: bool = False
    finishes_after: int = Field(default=1, ge=0)
    digest: str | None = None  # of what it returns: the same digest is the same content sent again


class SubagentEvent(EventBase):
    kind = EventKind.SUBAGENT
    subagent: SubagentSpec


class SkillUse(Strict):
    name: str
    by: Literal["claude", "user"] = "claude"


class SkillEvent(EventBase):
    kind = EventKind.SKILL
    skill: Annotated[SkillUse, BeforeValidator(_shorthand("name"), json_schema_input_type=str | SkillUse)]


class PlanEvent(EventBase):
    kind = EventKind.PLAN
    plan: Size


class CompactSpec(Strict):
    focus: str | None = None
    summary: Size | None = None  # default: the profile's summary size


def _compact_focus(value: Any) -> Any:
    """``compact:`` alone, ``compact: "focus text"`` or the full mapping."""
    if value is None:
        return {}
    return {"focus": value} if isinstance(value, str) else value


class CompactEvent(EventBase):
    kind = EventKind.COMPACT
    compact: Annotated[CompactSpec, BeforeValidator(_compact_focus, json_schema_input_type=str | None | CompactSpec)]


class ClearEvent(EventBase):
    kind = EventKind.CLEAR
    clear: None = None


class NoteEvent(Strict):
    kind: ClassVar[EventKind] = EventKind.NOTE
    note: NoteField


class ParallelEvent(EventBase):
    """Tool calls made in one assistant message: their results share the per-message budget."""

    kind = EventKind.PARALLEL
    parallel: tuple[Event, ...]


EVENT_KINDS: tuple[str, ...] = tuple(EventKind)


_KIND_KEYS = frozenset(kind.value for kind in EventKind if kind is not EventKind.NOTE)


def event_kind(value: Any) -> str | None:
    """The kind key of an event mapping: the first key that names a kind (``note`` only if alone).
    Runs once per event for the schema's union and once for the cross-reference checks: kept cheap, so
    a mapping, the usual input, is tested first (``isinstance`` of a model class is the slower test)."""
    if isinstance(value, dict):
        for key in value:
            if key in _KIND_KEYS:
                return str(key)
        return "note" if "note" in value else None
    if isinstance(value, BaseModel):
        return type(value).kind.value if isinstance(value, EventBase | NoteEvent) else None
    return None


Event = Annotated[
    Annotated[PromptEvent, Tag("prompt")]
    | Annotated[ReplyEvent, Tag("reply")]
    | Annotated[ReadEvent, Tag("read")]
    | Annotated[EditEvent, Tag("edit")]
    | Annotated[WriteEvent, Tag("write")]
    | Annotated[GrepEvent, Tag("grep")]
    | Annotated[GlobEvent, Tag("glob")]
    | Annotated[BashEvent, Tag("bash")]
    | Annotated[ToolEvent, Tag("tool")]
    | Annotated[SubagentEvent, Tag("subagent")]
    | Annotated[SkillEvent, Tag("skill")]
    | Annotated[PlanEvent, Tag("plan")]
    | Annotated[CompactEvent, Tag("compact")]
    | Annotated[ClearEvent, Tag("clear")]
    | Annotated[ParallelEvent, Tag("parallel")]
    | Annotated[NoteEvent, Tag("note")],
    Discriminator(
        event_kind,
        custom_error_type="event_kind",
        custom_error_message="expected an event: a mapping with one of the keys " + ", ".join(EVENT_KINDS),
    ),
]


for _model in (SubagentSpec, ParallelEvent):  # they hold events: built once ``Event`` exists
    _model.model_rebuild()
