"""One replay in progress: the window being built (through the recorder), what the session remembers, and
the operations the profile's policies use (``ctxviz.profiles.base.Session``). Agent-neutral: every number
and rule comes from the profile."""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import count

from ctxviz.engine.globs import matches
from ctxviz.engine.recorder import Recorder
from ctxviz.kinds import BlockKind, CompactionTrigger, StepKind, Touch
from ctxviz.profiles import PROFILES
from ctxviz.profiles.base import Background, Profile, SessionState, Triggered
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.model import FileEntry, Hook, RuleEntry, Scenario
from ctxviz.timeline import Category, Fate, Source, Thresholds, Timeline, Visibility

# how a hook's output reaches the context, in a note's words
_HOW_HOOKS_ADD = {
    "additionalContext": "its output returned as additionalContext, which enters the context",
    "stdout": "its output printed to stdout, which enters the context",
}

M = Category.MESSAGES
# members used on every event, as module constants: looking one up on its enum class costs ~75 ns on
# Python 3.11 (EnumType's __getattr__ hook), several times an event
_STARTUP, _FILE_READ, _TOOL_CALL, _READ = StepKind.STARTUP, BlockKind.FILE_READ, BlockKind.TOOL_CALL, Touch.READ
# for one path: (rule, tokens, the glob that matches) and (nested instruction file, tokens, its folder)
_Reach = tuple[tuple[tuple[str, int, str], ...], tuple[tuple[str, int, str], ...]]


def fmt(tokens: int) -> str:
    return f"{tokens:,}"


def short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class EngineSession(Recorder):
    """Implements ``ctxviz.profiles.base.Session`` for the policies, and the engine's own bookkeeping; the
    window itself (``add``, ``remove``, ``note``, ``live``, ``used``) is the Recorder's."""

    def __init__(
        self,
        scenario: Scenario,
        profile: Profile,
        *,
        source: Source,
        subagent_type: str | None = None,
        parent: EngineSession | None = None,
        notices: tuple[str, ...] = (),
    ) -> None:
        self.scenario = scenario
        self.profile = profile
        self.source = source
        self.notices = notices  # said in the timeline, after what the replay finds
        self.subagent_type = subagent_type
        # another agent's model (one some other profile runs) → this agent's default; a name no agent
        # knows is kept, with a guessed window and a notice
        model = scenario.model
        foreign = model is not None and not profile.runs(model) and any(p.runs(model) for p in PROFILES.values())
        self.spec = profile.model_window(model, scenario.window, foreign=foreign)
        self.window = self.spec.window
        self.thresholds: Thresholds = profile.thresholds.thresholds(
            self.window, self.spec.max_output, scenario.autocompact, scenario.autocompact_pct
        )
        super().__init__()
        self.state = SessionState()
        self._order = count()
        self.event_index: int | None = None  # the scenario event being replayed (None: startup, automatic)
        self.blocked: str | None = None  # why requests fail (over the window, auto-compaction off) until /compact
        self.child: Timeline | None = None  # a subagent's timeline, attached to the step that ran it
        self.child_scenarios: dict[str | None, Scenario] = {}  # by model: what every subagent starts from
        self._sizes: dict[str, Measure] = {}  # files a write created, or a change left at another size
        self._versions: dict[str, int] = {}  # edits and writes so far, by path
        self.nested: list[tuple[str, str]]  # (folder, path) of each nested instruction file
        self.scoped_rules: dict[str, RuleEntry]
        self._hooks: dict[tuple[str, str], tuple[Hook, ...]]
        self._reach: dict[str, _Reach]  # by path: what touching it may load (see triggered_by)
        if parent is not None:  # a subagent works on the same project: share what was derived from it
            self.nested, self.scoped_rules, self._hooks = parent.nested, parent.scoped_rules, parent._hooks
            self._sizes, self._versions, self._reach = parent._sizes, parent._versions, parent._reach
            return
        self.nested = profile.instructions.nested(scenario.files)
        scoped = {p: r for p, r in scenario.setup.rules.items() if r.paths}
        # an agent reads only its own rule folders (Cursor .cursor/rules, none for Codex); by default all
        chosen = getattr(profile.instructions, "scoped_rules", None)
        self.scoped_rules = chosen(scoped) if chosen is not None else scoped
        self._hooks = {}
        self._reach = {}

    # --- the window (add, remove, note, live, is_live, pending and used are the Recorder's) -------------
    @property
    def files(self) -> Mapping[str, FileEntry]:
        return self.scenario.files

    def close_step(
        self,
        kind: StepKind,
        label: str,
        *,
        fates: tuple[Fate, ...] = (),
        note: str | None = None,
        automatic: bool = False,
        trigger: CompactionTrigger | None = None,
    ) -> None:
        event = None if automatic or kind is _STARTUP else self.event_index
        self.record_step(kind, label, note=note, child=self.child, fates=fates, event=event, trigger=trigger)
        self.child = None

    def order(self) -> int:
        return next(self._order)

    def file_size(self, path: str) -> Measure:
        changed = self._sizes.get(path)
        return changed if changed is not None else self.scenario.files[path].size

    def file_version(self, path: str) -> int:
        return self._versions.get(path, 0)

    def exists(self, path: str) -> bool:
        return path in self.scenario.files or path in self._sizes

    def create(self, path: str, size: Measure) -> None:
        """A write to a path not among the scenario's files creates it with the size written."""
        self._sizes[path] = size

    def resize(self, path: str, size: Measure) -> None:
        """A write or an edit left the file at ``size``: later reads, and a compaction's re-read, send that."""
        self._sizes[path] = size

    # --- reads and what they trigger ------------------------------------------------------------------
    def touch(self, path: str) -> None:
        self.state.touched[path] = self.order()

    def read(
        self,
        path: str,
        *,
        label: str,
        mention: bool,
        kind: BlockKind = BlockKind.FILE_READ,
        lines: tuple[int, int] | None = None,
    ) -> int | None:
        reads = self.profile.reads
        stub, reference = reads.unchanged_stub, self.profile.repeat_reference
        if path in self.state.current and not mention and kind is _FILE_READ:
            if reference is not None and (stub is None or reference < stub):
                self.add(M, BlockKind.REPEAT_REFERENCE, f"{path} (same content)", reference, "brief")
                self.note(f"{path} unchanged and still in the window: a {reference}-token reference instead")
                self.touch(path)
                return reference
            if stub is not None:
                self.add(M, BlockKind.TOOL_OUTPUT, f"{path} (unchanged)", stub, "brief")
                self.note(f"{path} unchanged since the last read: a {stub}-token stub instead of the content")
                self.touch(path)
                return stub
        outcome = reads.read(path, self.file_size(path), lines)
        if outcome.kind == "error":
            self.add(M, BlockKind.TOOL_OUTPUT, f"{path} (too large)", outcome.tokens, "brief")
            self.note(outcome.why or "")
            return None
        self.add(M, kind, label, outcome.tokens, "brief" if kind is _FILE_READ else "hidden")
        if outcome.why:
            self.note(outcome.why)
        self.state.current.add(path)
        self.touch(path)
        if _READ in self.profile.rule_triggers:
            self.triggers(path, _READ)
        return outcome.tokens

    def triggered_by(self, path: str, how: str) -> list[Triggered]:
        """The path-scoped rules and nested instruction files that touching ``path`` would load now."""
        reach = self._reach.get(path)
        if reach is None:
            reach = self._reach[path] = self._reach_of(path)
        rules, nested = reach
        found: list[Triggered] = []
        if rules or nested:
            state = self.state
            for rule_path, tokens, hit in rules:
                if rule_path not in state.loaded_rules:
                    found.append(Triggered(BlockKind.RULE, rule_path, tokens, f"{path} ({how}) matches {hit}"))
            for memory_path, tokens, nested_dir in nested:
                if memory_path not in state.loaded_nested:
                    why = f"{path} ({how}) is in {nested_dir}/"
                    found.append(Triggered(BlockKind.NESTED_MEMORY, memory_path, tokens, why))
        return found

    def _reach_of(self, path: str) -> _Reach:
        """The rules whose globs match ``path`` (with the glob that does) and the nested instruction files
        of its folders (with the folder): fixed for a replay, so worked out once per path (a read, edit
        or write asks each time, and matching every rule's globs was most of a read's cost)."""
        rules: list[tuple[str, int, str]] = []
        for rule_path, rule in self.scoped_rules.items():
            hit = next((g for g in rule.paths if matches(g, path)), None)
            if hit is not None:
                rules.append((rule_path, rule.memory_size.tokens, hit))
        nested: list[tuple[str, int, str]] = []
        directory = path.rsplit("/", 1)[0] if "/" in path else ""
        for nested_dir, memory_path in self.nested:
            inside = directory == nested_dir or directory.startswith(nested_dir + "/")
            if inside and memory_path != path:
                nested.append((memory_path, self.scenario.files[memory_path].memory_size.tokens, nested_dir))
        return tuple(rules), tuple(nested)

    def triggers(self, path: str, how: str) -> None:
        """Load what ``path`` triggers, once until compaction."""
        for item in self.triggered_by(path, how):
            loaded = self.state.loaded_rules if item.kind is BlockKind.RULE else self.state.loaded_nested
            loaded.add(item.path)
            self.add(M, item.kind, item.path, item.tokens, "brief")
            self.note(f"{item.path} loaded ({fmt(item.tokens)} tokens): {item.why}")

    def changed(self, path: str, how: str) -> None:
        if self.profile.drops_stale_reads:
            stale = [b for b in self.live() if b.kind == BlockKind.FILE_READ and b.label == path]
            for block in stale:
                self.remove(block.id)
            if stale:
                self.note(f"{path} changed: its {len(stale)} earlier read(s) dropped (stale_reads=drop)")
        self._versions[path] = self._versions.get(path, 0) + 1
        self.state.current.discard(path)
        self.touch(path)
        if how in self.profile.rule_triggers:
            self.triggers(path, how)

    # --- tools and hooks ------------------------------------------------------------------------------
    def tool_call(self, tool: str, label: str, extra: int = 0, visibility: Visibility = "brief") -> None:
        self.add(M, _TOOL_CALL, label, self.profile.tool_call + extra, visibility)
        for hook in self.hooks("PreToolUse", tool):
            self.hook_block(hook, f"PreToolUse:{tool}")

    def post_tool_hooks(self, tool: str) -> None:
        for hook in self.hooks("PostToolUse", tool):
            self.hook_block(hook, f"PostToolUse:{tool}")

    def output(
        self,
        tool: str,
        label: str,
        size: Measure,
        spilled: bool,
        kind: BlockKind = BlockKind.TOOL_OUTPUT,
        digest: str | None = None,
    ) -> None:
        """A tool result through the profile's output policy (``spilled``: the turn's budget chose it).
        ``digest`` names its content: under the dedup what-if, content still in the window is a reference."""
        reference = self.profile.repeat_reference
        sent = self.state.sent_outputs
        outcome = self.profile.output.result(tool, label, size, spilled)
        held = digest is not None and digest in sent and self.is_live(sent[digest])
        # an output smaller than the reference is sent as it is
        if reference is not None and held and reference < outcome.tokens:
            self.add(M, BlockKind.REPEAT_REFERENCE, f"{label} (same content)", reference, "brief")
            self.note(f"the same content is still in the window: a {reference}-token reference instead")
            return
        if outcome.spilled:
            self.add(M, BlockKind.SPILLED_OUTPUT, f"{label} (preview)", outcome.tokens, "brief")
        else:
            block = self.add(M, kind, label, outcome.tokens, "brief")
            if digest is not None:
                sent[digest] = block
        if outcome.why:
            self.note(outcome.why)

    def hooks(self, event: str, subject: str) -> tuple[Hook, ...]:
        """The hooks that fire for ``event`` on ``subject`` (a tool name or a SessionStart source)."""
        key = (event, subject)
        if key not in self._hooks:
            self._hooks[key] = tuple(
                hook
                for hook in self.scenario.setup.hooks
                if hook.event == event and (hook.matcher in ("", "*") or re.fullmatch(hook.matcher, subject))
            )
        found: tuple[Hook, ...] = self._hooks[key]
        return found

    def hook_reaches_context(self, hook: Hook) -> bool:
        """Only JSON additionalContext enters for tool hooks; plain stdout only for some events."""
        rules = self.profile.hooks
        return hook.event in rules.context_events and (hook.via != "stdout" or hook.event in rules.stdout_events)

    def hook_size(self, hook: Hook) -> tuple[int, str | None]:
        rules = self.profile.hooks
        if hook.adds.chars > rules.max_output_chars:
            return rules.preview_tokens, (
                f"hook output {hook.adds.chars:,} chars > {rules.max_output_chars:,}: saved to a file, "
                f"the model gets a {rules.preview_bytes:,}-byte preview and the path"
            )
        return hook.adds.tokens, None

    def hook_tokens(self, hook: Hook) -> int:
        return self.hook_size(hook)[0] if self.hook_reaches_context(hook) else 0

    def hook_block(self, hook: Hook, trigger: str) -> None:
        if not self.hook_reaches_context(hook):
            if hook.event not in self.profile.hooks.context_events:
                self.note(f"hook {hook.name} ({hook.event}) ran; {hook.event} hooks add nothing to the context")
            else:
                self.note(
                    f"hook {hook.name} ({trigger}) printed to stdout: for {hook.event} that goes to the debug log, "
                    "not the context (only JSON additionalContext enters)"
                )
            return
        tokens, why = self.hook_size(hook)
        self.add(M, BlockKind.HOOK_OUTPUT, f"Hook: {hook.name} ({trigger})", tokens, "hidden")
        self.note(why or f"hook {hook.name} ({trigger}) added {fmt(tokens)} tokens: {_HOW_HOOKS_ADD[hook.via]}")

    def session_start_hooks(self, source: str) -> None:
        for hook in self.hooks("SessionStart", source):
            self.hook_block(hook, f"SessionStart:{source}")

    # --- between events -------------------------------------------------------------------------------
    def check_warning(self) -> None:
        used, t = self.used, self.thresholds
        if not self.state.crossed_warning and used >= t.warning:
            self.state.crossed_warning = True
            if t.warning != t.autocompact:  # a profile without a warning level of its own puts it at the trigger
                self.note(
                    f"context at {fmt(used)} ≥ the warning threshold {fmt(t.warning)}: the indicator turns yellow"
                )
        elif used < t.warning:
            self.state.crossed_warning = False
        if t.autocompact is None and used > t.blocking:
            self.note(
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
            self.add(M, BlockKind.NOTIFICATION, task.label, task.tokens, "brief")
            self.note(task.why)
            self.close_step(StepKind.NOTIFICATION, task.label, automatic=True)
        self.state.background = still

    def finish(self) -> Timeline:
        notices = (
            [] if self.spec.known else [f"unknown model {self.spec.model!r}: assumed a {fmt(self.window)}-token window"]
        )
        if self.spec.notice:
            notices.append(self.spec.notice)
        notices += self.notices
        return self.build_timeline(
            source=self.source,
            agent=self.profile.name,
            model=self.spec.model,
            window=self.window,
            thresholds=self.thresholds,
            notices=tuple(notices),
        )
