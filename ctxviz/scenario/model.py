"""The scenario format (docs/scenarios.md) as pydantic models. Pure: sizes that need counting or
reading are resolved through the validation context the loader supplies."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    PrivateAttr,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from ctxviz.kinds import AgentName
from ctxviz.scenario.event_model import Event
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.sizes import SIZE_KEYS, Size, parse_tokens
from ctxviz.scenario.strict import Strict


def _sized(value: Any) -> Any:
    """Let ``path: 1.8k`` and ``path: {tokens: 380, paths: [...]}`` both mean an entry with a size."""
    if isinstance(value, dict) and "size" not in value:
        size = {k: v for k, v in value.items() if k in SIZE_KEYS}
        rest = {k: v for k, v in value.items() if k not in SIZE_KEYS}
        return {"size": size or None, **rest} if size else rest
    if isinstance(value, dict):
        return value
    return {"size": value}


_HTML_BLOCK_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*\n?", re.DOTALL | re.MULTILINE)


_FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1", re.DOTALL | re.MULTILINE)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:~/|\./|\.\./|/)?[\w.-][\w./-]*)")


def text_imports(text: str) -> tuple[str, ...]:
    """The ``@path`` imports written in a memory file, outside code blocks and code spans."""
    prose = _CODE_SPAN.sub("", _FENCE.sub("", text))
    return tuple(dict.fromkeys(m.rstrip(".") for m in _IMPORT.findall(prose)))


class SizedEntry(Strict):
    size: Size
    _as_memory: Measure | None = PrivateAttr(default=None)
    _text_imports: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return _sized(value)

    def model_post_init(self, context: Any) -> None:
        # Block-level HTML comments are stripped when a file loads as memory (CLAUDE.md, a rule, an
        # @import); a Read of the same file still returns them. Counting needs the loader's counter.
        counter = (context or {}).get("counter") if isinstance(context, dict) else None
        text = self.size.text
        if counter is not None and text is not None and "<!--" in text:
            text = _HTML_BLOCK_COMMENT.sub("", text)
            self._as_memory = Measure.of_text(text, counter)
        if text is not None and "@" in text:
            self._text_imports = text_imports(text)

    @property
    def memory_size(self) -> Measure:
        """The size of this file as memory: without its block-level HTML comments."""
        return self._as_memory or self.size

    @property
    def written_imports(self) -> tuple[str, ...]:
        """``@path`` imports found in the file's text (when its text is known), as written."""
        return self._text_imports


class FileEntry(SizedEntry):
    """A project file that events touch. ``imports`` are the ``@path`` imports it makes (memory files)."""

    imports: tuple[str, ...] = ()


class MemoryEntry(FileEntry):
    """A CLAUDE.md-family file loaded at startup."""


class RuleEntry(SizedEntry):
    paths: tuple[str, ...] = ()  # globs; none = unscoped, loaded at startup


class McpServer(Strict):
    server: str
    tools: int = Field(ge=0)
    deferred: bool = True
    schemas: Size | None = None  # full schema size when not deferred (default: per-tool estimate)


def _text_or_size(value: Any) -> Any:
    """A description may be written out (``"Read PDFs"``) or given as a size (``120``, ``1.5k``)."""
    if isinstance(value, str):
        try:
            parse_tokens(value)
        except ValueError:
            return {"text": value}
    return value


Description = Annotated[Size, BeforeValidator(_text_or_size)]


class Skill(Strict):
    name: str
    description: Description = Measure.of_tokens(0)
    body: Size = Measure.of_tokens(0)
    disable_model_invocation: bool = False
    uses: int = Field(default=0, ge=0)  # past invocations: the least used lose their description first


class Agent(Strict):
    name: str
    description: Description


HookEvent = Literal[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "SubagentStart",
    "SubagentStop",
    "Setup",
    "Stop",
    "PreCompact",
    "PostCompact",
    "Notification",
    "SessionEnd",
]


class Hook(Strict):
    event: HookEvent
    matcher: str = ""  # a regex over the tool name, or the SessionStart source (startup|clear|compact)
    name: str
    adds: Size
    via: Literal["additionalContext", "stdout"] = "additionalContext"


class GitStatus(Strict):
    status: Size  # the `git status --short` text (cut at 2,000 chars)
    commits: int = Field(default=5, ge=0)


class Setup(Strict):
    system_prompt: Size | None = None
    environment: Size | None = None
    tools: Size | None = None
    output_style: Size | None = None
    append_system_prompt: Size | None = None
    git_status: GitStatus | None = None
    memory: dict[str, MemoryEntry] = {}
    auto_memory: Size | None = None
    agents_md: bool = False  # load an AGENTS.md listed in memory (version-dependent)
    rules: dict[str, RuleEntry] = {}
    mcp: tuple[McpServer, ...] = ()
    skills: tuple[Skill, ...] = ()
    agents: tuple[Agent, ...] = ()
    hooks: tuple[Hook, ...] = ()


_PROFILE_SCHEMA = {
    "type": "object",
    "description": "Overrides of the agent profile's numbers, by name (see `ctxviz agents`).",
}


def _autocompact(value: Any) -> Any:
    if value is True or value in ("on", "true", "yes"):
        return True
    if value is False or value in ("off", "false", "no"):
        return False
    try:
        return parse_tokens(value)
    except ValueError:
        raise ValueError(f"expected on, off, or a size such as 500k, got {value!r}") from None


class TreeSize(Strict):
    """The project's size for agents that send a directory tree (default: derived from ``files:``)."""

    files: int = Field(ge=0)
    dirs: int = Field(ge=0)


class Scenario(Strict):
    name: str
    summary: str = ""
    agent: str = AgentName.CLAUDE_CODE.value  # the profile it runs under unless --agent says otherwise
    model: str | None = None  # applies to the agents that run it; otherwise (and when absent) each one's default
    window: int | None = None  # overrides the model's window (e.g. 1m)
    autocompact: bool | int = True  # on | off | a size capping the window used for the threshold
    autocompact_pct: float | None = Field(default=None, gt=0, le=100)
    # the agents the notes tell the story of (none: every agent); a note naming its own agents overrides it
    notes_about: tuple[AgentName, ...] = ()
    profile: Annotated[dict[str, Any], WithJsonSchema(_PROFILE_SCHEMA)] = {}  # overrides of profile parameters
    setup: Setup = Setup()
    files: dict[str, FileEntry] = {}
    tree: TreeSize | None = None
    events: tuple[Event, ...] = ()

    def tree_size(self) -> tuple[int, int]:
        """(files, folders) of the project: ``tree:`` if given, else counted from ``files:``."""
        if self.tree is not None:
            return self.tree.files, self.tree.dirs
        folders = {path.rsplit("/", 1)[0] for path in self.files if "/" in path}
        parents = {"/".join(folder.split("/")[: n + 1]) for folder in folders for n in range(folder.count("/") + 1)}
        return len(self.files), len(parents)

    @field_validator("window", mode="before")
    @classmethod
    def _window(cls, value: Any) -> Any:
        return None if value is None else parse_tokens(value)

    @field_validator("autocompact", mode="before")
    @classmethod
    def _autocompact(cls, value: Any) -> Any:
        return _autocompact(value)


Scenario.model_rebuild()
