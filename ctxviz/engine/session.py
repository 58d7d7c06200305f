"""The simulator: replays a scenario's events under a profile's rules and records a Timeline.

Each event is one step; a step's notes say why each block entered or left, with the numbers. After any
event that adds content, auto-compaction is checked as Claude Code checks it before the next model call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count

from ctxviz.engine import compaction, sizing, subagents
from ctxviz.engine.globs import matches
from ctxviz.engine.recorder import Recorder
from ctxviz.profiles import Profile
from ctxviz.profiles.windows import model_window, thresholds
from ctxviz.scenario.model import (
    BashEvent,
    ClearEvent,
    CompactEvent,
    EditEvent,
    GlobEvent,
    GrepEvent,
    Hook,
    NoteEvent,
    ParallelEvent,
    PlanEvent,
    PromptEvent,
    ReadEvent,
    ReplyEvent,
    Scenario,
    SearchSpec,
    SkillEvent,
    SubagentEvent,
    ToolEvent,
    WriteEvent,
)
from ctxviz.scenario.sizes import Measure
from ctxviz.timeline import Category, Source, Thresholds, Timeline, Visibility

M = Category.MESSAGES
_MENTION = re.compile(r"(?<!\S)@([^\s,;:!?]+)")


def fmt(tokens: int) -> str:
    return f"{tokens:,}"


def short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass(frozen=True, slots=True)
class Triggered:
    kind: str  # "rule" | "nested-memory"
    path: str
    tokens: int
    why: str


@dataclass
class Background:
    label: str
    remaining: int
    tokens: int
    why: str


@dataclass
class State:
    """What the session remembers between events (reset in part by compaction and /clear)."""

    touched: dict[str, int] = field(default_factory=dict)  # path → order of the last read or edit
    current: set[str] = field(default_factory=set)  # read and unchanged since: a re-read is a stub
    loaded_rules: set[str] = field(default_factory=set)
    loaded_nested: set[str] = field(default_factory=set)
    invoked_skills: dict[str, int] = field(default_factory=dict)  # name → order of the last invocation
    plan: int | None = None
    plan_block: int | None = None
    loaded_schemas: set[str] = field(default_factory=set)
    background: list[Background] = field(default_factory=list)
    crossed_warning: bool = False


class Session:
    def __init__(
        self,
        scenario: Scenario,
        profile: Profile,
        *,
        source: Source,
        subagent_type: str | None = None,
        parent: Session | None = None,
    ) -> None:
        self.scenario = scenario
        self.profile = profile
        self.source = source
        self.subagent_type = subagent_type
        spec = model_window(profile, scenario.model, scenario.window)
        self.window = spec.window
        self.model_known = spec.known
        self.thresholds: Thresholds = thresholds(
            profile, spec.window, spec.max_output, scenario.autocompact, scenario.autocompact_pct
        )
        self.rec = Recorder()
        self.state = State()
        self.order = count()
        self.files = scenario.files
        self.child: Timeline | None = None  # a subagent's timeline, attached to the step that ran it
        if parent is not None:  # a subagent works on the same project: share what was derived from it
            self.nested, self.scoped_rules, self._hooks = parent.nested, parent.scoped_rules, parent._hooks
            return
        self.nested = [  # (folder, path) of each nested CLAUDE.md / CLAUDE.local.md
            (path.rsplit("/", 1)[0], path)
            for path in scenario.files
            if "/" in path
            and path.rsplit("/", 1)[1] in profile.nested_memory_names
            and not path.startswith(profile.config_folder)
        ]
        self.scoped_rules = {p: r for p, r in scenario.setup.rules.items() if r.paths}
        self._hooks: dict[tuple[str, str], tuple[Hook, ...]] = {}

    # --- running ------------------------------------------------------------------------------
    def run(self) -> Timeline:
        self.startup()
        for event in self.scenario.events:
            self.event(event)
        notices = []
        if not self.model_known:
            notices.append(f"unknown model {self.scenario.model!r}: assumed a {fmt(self.window)}-token window")
        return self.rec.finish(
            source=self.source,
            agent=self.profile.name,
            model=self.scenario.model,
            window=self.window,
            thresholds=self.thresholds,
            notices=tuple(notices),
        )

    def event(
        self, event: object, forced_spill: frozenset[int] = frozenset(), position: int = 0, last: bool = True
    ) -> None:
        """One event as one step; ``last`` is False inside a parallel group, whose results all arrive
        before the next model call (so auto-compaction is checked once, after the group)."""
        note = event.note  # type: ignore[attr-defined]  # every event model has one
        kind_of = type(event)
        if kind_of is NoteEvent:
            self.rec.close_step("note", short(note), note=note)
            return
        if kind_of is ParallelEvent:
            self.parallel(event)  # type: ignore[arg-type]
            return
        if kind_of is CompactEvent:
            spec = event.compact  # type: ignore[attr-defined]
            compaction.compact(self, manual=True, focus=spec.focus, summary=spec.summary, note=note)
            return
        if kind_of is ClearEvent:
            compaction.clear(self, note=note)
            return
        kind, label = self._APPLY[kind_of](self, event, position in forced_spill)
        self.check_warning()
        self.rec.close_step(kind, label, note=note, child=self.child)
        self.child = None
        if last:
            self.after_event()

    def after_event(self) -> None:
        if self.state.background:
            self.finish_background()
        limit = self.thresholds.autocompact
        if limit is not None and self.rec.used >= limit:
            compaction.compact(self, manual=False, focus=None, summary=None, note=None)

    def check_warning(self) -> None:
        used, t = self.rec.used, self.thresholds
        if not self.state.crossed_warning and used >= t.warning:
            self.state.crossed_warning = True
            self.rec.note(
                f"context at {fmt(used)} ≥ the warning threshold {fmt(t.warning)}: the indicator turns yellow"
            )
        elif used < t.warning:
            self.state.crossed_warning = False
        if t.autocompact is None and used > t.blocking:
            self.rec.note(
                f"{fmt(used)} > the blocking limit {fmt(t.blocking)} with auto-compaction off: "
                "the next request fails as too long until you /compact"
            )

    def finish_background(self) -> None:
        still: list[Background] = []
        for task in self.state.background:
            task.remaining -= 1
            if task.remaining > 0:
                still.append(task)
                continue
            self.rec.add(M, "notification", task.label, task.tokens, "brief")
            self.rec.note(task.why)
            self.rec.close_step("notification", task.label)
        self.state.background = still

    # --- startup ------------------------------------------------------------------------------
    def startup(self, hook_source: str = "startup") -> None:
        from ctxviz.engine.startup import startup

        startup(self, hook_source)

    def add_listing(self) -> None:
        listing = sizing.skill_listing(self.profile, self.scenario.setup.skills, self.window)
        if listing.listed:
            label = f"Skill descriptions ({len(listing.listed)})"
            self.rec.add(Category.SKILLS, "skill-listing", label, listing.tokens)
        for why in listing.why:
            self.rec.note(why)

    def session_start_hooks(self, source: str) -> None:
        for hook in self.hooks("SessionStart", source):
            self.hook_block(hook, f"SessionStart:{source}")

    # --- hooks --------------------------------------------------------------------------------
    def hooks(self, event: str, subject: str) -> tuple[Hook, ...]:
        """The hooks that fire for ``event`` on ``subject`` (a tool name or a SessionStart source)."""
        key = (event, subject)
        if key not in self._hooks:
            self._hooks[key] = tuple(
                hook
                for hook in self.scenario.setup.hooks
                if hook.event == event and (hook.matcher in ("", "*") or re.fullmatch(hook.matcher, subject))
            )
        return self._hooks[key]

    def hook_reaches_context(self, hook: Hook) -> bool:
        """Only JSON additionalContext enters for tool hooks; plain stdout only for some events."""
        p = self.profile
        return hook.event in p.hook_context_events and (hook.via != "stdout" or hook.event in p.hook_stdout_events)

    def hook_tokens(self, hook: Hook) -> int:
        return sizing.hook_output(self.profile, hook.adds).tokens if self.hook_reaches_context(hook) else 0

    def hook_block(self, hook: Hook, trigger: str) -> None:
        p = self.profile
        if not self.hook_reaches_context(hook):
            if hook.event not in p.hook_context_events:
                self.rec.note(f"hook {hook.name} ({hook.event}) ran; {hook.event} hooks add nothing to the context")
            else:
                self.rec.note(
                    f"hook {hook.name} ({trigger}) printed to stdout: for {hook.event} that goes to the debug log, "
                    "not the context (only JSON additionalContext enters)"
                )
            return
        sized = sizing.hook_output(p, hook.adds)
        self.rec.add(M, "hook-output", f"Hook: {hook.name} ({trigger})", sized.tokens, "hidden")
        self.rec.note(sized.why or f"hook {hook.name} ({trigger}) added {fmt(sized.tokens)} tokens via {hook.via}")

    # --- events ------------------------------------------------------------------------------
    def reply(self, event: ReplyEvent, spilled: bool) -> tuple[str, str]:
        self.rec.add(M, "reply", "Claude's reply", event.reply.tokens, "full")
        return "reply", "Claude's reply"

    def read_event(self, event: ReadEvent, spilled: bool) -> tuple[str, str]:
        path = event.read.path
        self.tool_call("Read", f"Read {path}")
        self.read(path, label=path, mention=False)
        self.post_tool_hooks("Read")
        return "read", path

    def plan_event(self, event: PlanEvent, spilled: bool) -> tuple[str, str]:
        return self.plan(event.plan.tokens)

    def subagent(self, event: SubagentEvent, spilled: bool) -> tuple[str, str]:
        return subagents.subagent(self, event, spilled)

    def prompt(self, event: PromptEvent, spilled: bool = False) -> tuple[str, str]:
        spec = event.prompt
        label = short(spec.text)
        self.rec.add(M, "prompt", label, spec.size.tokens, spec.visibility)
        if self.subagent_type is None:  # a subagent's task prompt is not a user prompt
            for hook in self.hooks("UserPromptSubmit", ""):
                self.hook_block(hook, "UserPromptSubmit")
        for mention in _MENTION.findall(spec.text):
            if mention in self.files:
                self.rec.note(f"@{mention} in the prompt: read as if by the Read tool, added with the prompt")
                self.read(mention, label=f"@{mention}", mention=True)
        return "prompt", label

    def tool_call(self, tool: str, label: str, extra: int = 0, visibility: Visibility = "brief") -> None:
        self.rec.add(M, "tool-call", label, self.profile.tool_call + extra, visibility)
        for hook in self.hooks("PreToolUse", tool):
            self.hook_block(hook, f"PreToolUse:{tool}")

    def post_tool_hooks(self, tool: str) -> None:
        for hook in self.hooks("PostToolUse", tool):
            self.hook_block(hook, f"PostToolUse:{tool}")

    def touch(self, path: str) -> None:
        self.state.touched[path] = next(self.order)

    def read(self, path: str, *, label: str, mention: bool, kind: str = "file-read") -> int | None:
        """A Read of ``path`` (tool, @-mention or post-compact restore); returns the tokens added."""
        p = self.profile
        if path in self.state.current and not mention and kind == "file-read":
            self.rec.add(M, "tool-output", f"{path} (unchanged)", p.read_unchanged_stub, "brief")
            self.rec.note(
                f"{path} unchanged since the last read: a {p.read_unchanged_stub}-token stub instead of the content"
            )
            self.touch(path)
            return p.read_unchanged_stub
        outcome = sizing.read_file(p, path, self.files[path].size)
        if outcome.kind == "error":
            self.rec.add(M, "tool-output", f"{path} (too large)", outcome.tokens, "brief")
            self.rec.note(outcome.why or "")
            return None
        self.rec.add(M, kind, label, outcome.tokens, "brief" if kind == "file-read" else "hidden")
        if outcome.why:
            self.rec.note(outcome.why)
        self.state.current.add(path)
        self.touch(path)
        if "read" in p.rule_triggers:
            self.triggers(path, "read")
        return outcome.tokens

    def triggered_by(self, path: str, how: str) -> list[Triggered]:
        """The path-scoped rules and nested CLAUDE.md that touching ``path`` would load now."""
        found: list[Triggered] = []
        for rule_path, rule in self.scoped_rules.items():
            if rule_path in self.state.loaded_rules:
                continue
            hit = next((g for g in rule.paths if matches(g, path)), None)
            if hit is not None:
                tokens = rule.memory_size.tokens
                found.append(Triggered("rule", rule_path, tokens, f"{path} ({how}) matches {hit}"))
        directory = path.rsplit("/", 1)[0] if "/" in path else ""
        for nested_dir, memory_path in self.nested:
            inside = directory == nested_dir or directory.startswith(nested_dir + "/")
            if inside and memory_path not in self.state.loaded_nested and memory_path != path:
                tokens = self.files[memory_path].memory_size.tokens
                found.append(Triggered("nested-memory", memory_path, tokens, f"{path} ({how}) is in {nested_dir}/"))
        return found

    def triggers(self, path: str, how: str) -> None:
        """Load what ``path`` triggers, once until compaction."""
        for item in self.triggered_by(path, how):
            loaded = self.state.loaded_rules if item.kind == "rule" else self.state.loaded_nested
            loaded.add(item.path)
            self.rec.add(M, item.kind, item.path, item.tokens, "brief")
            self.rec.note(f"{item.path} loaded ({fmt(item.tokens)} tokens): {item.why}")

    def edit(self, event: EditEvent, spilled: bool = False) -> tuple[str, str]:
        spec, p = event.edit, self.profile
        self.rec.add(M, "edit", f"Edit {spec.path}", p.tool_call + spec.change.tokens, "full")
        for hook in self.hooks("PreToolUse", "Edit"):
            self.hook_block(hook, "PreToolUse:Edit")
        result = spec.result.tokens if spec.result else p.edit_result
        self.rec.add(M, "tool-output", f"{spec.path} edited", result, "full")
        self.changed(spec.path, "edit")
        self.post_tool_hooks("Edit")
        return "edit", spec.path

    def write(self, event: WriteEvent, spilled: bool = False) -> tuple[str, str]:
        spec, p = event.write, self.profile
        content = (spec.content or self.files[spec.path].size).tokens
        self.rec.add(M, "edit", f"Write {spec.path}", p.tool_call + content, "full")
        for hook in self.hooks("PreToolUse", "Write"):
            self.hook_block(hook, "PreToolUse:Write")
        self.rec.add(M, "tool-output", f"{spec.path} written", p.edit_result, "full")
        self.changed(spec.path, "write")
        self.post_tool_hooks("Write")
        return "write", spec.path

    def changed(self, path: str, how: str) -> None:
        self.state.current.discard(path)
        self.touch(path)
        if how in self.profile.rule_triggers:
            self.triggers(path, how)

    def output(self, tool: str, label: str, size: Measure, spilled: bool, kind: str = "tool-output") -> None:
        """A tool result, spilled to disk as a preview when over the tool's limit (or the turn's budget)."""
        limit = sizing.spill_limit(self.profile, tool)
        if size.chars > limit or spilled:
            tokens = sizing.preview_tokens(self.profile)
            self.rec.add(M, "spilled-output", f"{label} (preview)", tokens, "brief")
            reason = (
                f"{size.chars:,} chars > {limit:,} for {tool}"
                if size.chars > limit
                else f"this turn's results exceed {self.profile.turn_results_budget_chars:,} chars, largest first"
            )
            self.rec.note(
                f"{label}: kept as a {self.profile.spill_preview_bytes:,}-byte preview ({fmt(tokens)} tokens) "
                f"instead of {fmt(size.tokens)}: {reason}; the full output is saved to disk (decision frozen)"
            )
            return
        self.rec.add(M, kind, label, size.tokens, "brief")

    def search(self, event: GrepEvent | GlobEvent, spilled: bool) -> tuple[str, str]:
        tool, kind = ("Grep", "grep") if isinstance(event, GrepEvent) else ("Glob", "glob")
        spec = event.grep if isinstance(event, GrepEvent) else event.glob
        label = f'{tool} "{spec.pattern}"'
        self.tool_call(tool, label)
        if spec.matches is not None:
            capped = self.capped_search(tool, spec.matches)
            if capped.why:
                self.rec.note(capped.why)
        self.output(tool, label, self.search_size(tool, spec), spilled)
        self.post_tool_hooks(tool)
        return kind, spec.pattern

    def capped_search(self, tool: str, matches: int) -> sizing.Sized:
        p = self.profile
        if tool == "Grep":
            return sizing.capped_results(matches, p.grep_max_results, p.grep_tokens_per_result, tool)
        return sizing.capped_results(matches, p.glob_max_results, p.glob_tokens_per_path, tool)

    def search_size(self, tool: str, spec: SearchSpec) -> Measure:
        """A Grep/Glob result: given as a size, or as a match count within the tool's cap."""
        if spec.output is not None:
            return spec.output
        assert spec.matches is not None  # the schema requires one of the two
        return Measure.of_tokens(self.capped_search(tool, spec.matches).tokens)

    def bash(self, event: BashEvent, spilled: bool) -> tuple[str, str]:
        spec, p = event.bash, self.profile
        label = short(spec.command, 50)
        self.tool_call("Bash", f"Bash {label}")
        if spec.background:
            self.rec.add(M, "tool-output", f"{label} (started in background)", p.background_launch, "brief")
            self.rec.note(f"runs in the background: a {p.background_launch}-token notice now, a notification later")
            self.state.background.append(
                Background(
                    f"Background done: {label}",
                    spec.finishes_after + 1,
                    p.notification,
                    f"background command finished: a {p.notification}-token notification (output on disk)",
                )
            )
        else:
            self.output("Bash", label, spec.output, spilled)
        self.post_tool_hooks("Bash")
        return "bash", label

    def tool(self, event: ToolEvent, spilled: bool) -> tuple[str, str]:
        spec, p = event.tool, self.profile
        parts = spec.name.split("__")
        if len(parts) == 3 and parts[0] == "mcp":
            server = next((s for s in self.scenario.setup.mcp if s.server == parts[1]), None)
            if server is not None and server.deferred and spec.name not in self.state.loaded_schemas:
                self.state.loaded_schemas.add(spec.name)
                self.rec.add(M, "tool-output", f"ToolSearch: {spec.name} schema", p.mcp_schema_tokens_per_tool)
                self.rec.note(
                    f"{spec.name} is deferred: its schema ({fmt(p.mcp_schema_tokens_per_tool)} tokens) loads "
                    "through tool search before the first call"
                )
        self.tool_call(spec.name, spec.name, spec.call.tokens)
        self.output(spec.name, spec.name, spec.output, spilled)
        self.post_tool_hooks(spec.name)
        return "tool", spec.name

    def skill(self, event: SkillEvent, spilled: bool = False) -> tuple[str, str]:
        use = event.skill
        skill = next(s for s in self.scenario.setup.skills if s.name == use.name)
        self.state.invoked_skills[skill.name] = next(self.order)
        if use.by == "user":
            self.rec.add(M, "skill-body", f"/{skill.name}", skill.body.tokens, "brief")
            self.rec.note(f"/{skill.name}: you invoked the skill; its whole body ({fmt(skill.body.tokens)}) loads")
            return "prompt", f"/{skill.name}"
        self.tool_call("Skill", f"Skill {skill.name}")
        self.rec.add(M, "skill-body", f"Skill: {skill.name}", skill.body.tokens, "brief")
        self.rec.note(f"skill {skill.name} invoked: its whole SKILL.md ({fmt(skill.body.tokens)} tokens) loads")
        self.post_tool_hooks("Skill")
        return "skill", skill.name

    def plan(self, tokens: int) -> tuple[str, str]:
        if self.state.plan_block is not None and self.rec.is_live(self.state.plan_block):
            self.rec.remove(self.state.plan_block)
            self.rec.note("the new plan replaces the previous one")
        self.state.plan = tokens
        self.state.plan_block = self.rec.add(M, "plan", "Plan", tokens, "full")
        return "plan", "Plan"

    def parallel(self, event: ParallelEvent) -> None:
        """Results of one assistant message share a budget: over it, the largest spill first (frozen)."""
        p = self.profile
        sizes: dict[int, int] = {}
        for n, inner in enumerate(event.parallel):
            tool, size = _result_of(self, inner)
            if size is not None and size.chars <= sizing.spill_limit(p, tool):
                sizes[n] = size.chars
        total = sum(sizes.values())
        forced: set[int] = set()
        for n in sorted(sizes, key=lambda k: (-sizes[k], k)):
            if total <= p.turn_results_budget_chars:
                break
            forced.add(n)
            total -= sizes[n]
        for n, inner in enumerate(event.parallel):
            self.event(inner, frozenset(forced), n, last=n == len(event.parallel) - 1)

    # event model → handler(session, event, spilled) → (step kind, step label)
    _APPLY: dict[type, Callable[..., tuple[str, str]]] = {
        PromptEvent: prompt,
        ReplyEvent: reply,
        ReadEvent: read_event,
        EditEvent: edit,
        WriteEvent: write,
        GrepEvent: search,
        GlobEvent: search,
        BashEvent: bash,
        ToolEvent: tool,
        SubagentEvent: subagent,
        SkillEvent: skill,
        PlanEvent: plan_event,
    }


def _result_of(session: Session, event: object) -> tuple[str, Measure | None]:
    """The tool and result size of a parallel call, where the result is known before it runs."""
    if isinstance(event, BashEvent) and not event.bash.background:
        return "Bash", event.bash.output
    if isinstance(event, ToolEvent):
        return event.tool.name, event.tool.output
    if isinstance(event, GrepEvent | GlobEvent):
        tool = "Grep" if isinstance(event, GrepEvent) else "Glob"
        return tool, session.search_size(tool, event.grep if isinstance(event, GrepEvent) else event.glob)
    return "", None
