"""A session turned into scenario events, before calibration: each event with the sizes it should add.

Sizes come from the measured usage: the difference between two consecutive calls is exact, and it is
shared among what entered in between in proportion to their recorded text. Where no call measures a
stretch (before the first call, across a compaction, after the last call), sizes are estimated from the
text at 4 characters a token, and the event says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxviz.importer.file_sizes import settle_sizes
from ctxviz.importer.paths import PathStyle
from ctxviz.importer.restores import known_restores, recorded_restore
from ctxviz.importer.rules import media_estimate_tokens, read_tokens_of_file
from ctxviz.importer.session import (
    Compaction,
    Item,
    Prompt,
    Reply,
    Restored,
    Segment,
    Session,
    Tools,
    ToolUse,
    is_unchanged_stub,
)
from ctxviz.kinds import AgentName, EventKind
from ctxviz.layout import share_cells
from ctxviz.profiles.limits import rounded_tokens
from ctxviz.tokens import estimate
from ctxviz.transcripts.claude_code.records import SUBAGENT_TOOLS

EDIT_TOOLS = ("Edit", "MultiEdit")
PRE_TOKENS_NOTE = "shares the count Claude Code compacted at (preTokens) minus the call before"
UNRECORDED = "input the transcript does not record"
PLANS_FOLDER = "/.claude/plans/"  # where plan mode writes its plan file
RESTORED_NOTE = "put back by the compaction, as the transcript records it"
ACCEPTED_PLAN_NOTE = "the plan accepted in plan mode, as the prompt carries it: re-injected after a compaction"
# the events whose result is a tool output the dedup what-if matches by its content
_DIGESTED = frozenset({EventKind.TOOL, EventKind.BASH, EventKind.GREP, EventKind.GLOB, EventKind.SUBAGENT})


@dataclass
class EventDraft:
    """One scenario event. ``sizes`` are the size fields (tokens), ``free`` those calibration may change;
    ``target`` is what the event should add to the window, ``call`` the measured call that follows it."""

    kind: str
    fields: dict[str, Any]
    sizes: dict[str, int]
    free: tuple[str, ...]
    target: int
    segment: int
    measured: bool
    comment: str | None = None
    inner: list[EventDraft] = field(default_factory=list)
    caps: dict[str, int] = field(default_factory=dict)  # the most a free size may hold
    lines: int | None = None  # a Read's line count
    total_lines: int | None = None  # the whole file's, where a Read of part of it recorded them
    agent: str | None = None  # a subagent's id (its file holds its own reads)
    cleared: int = 0  # earlier results cleared before it (the measured usage fell without a compaction)
    count_gap: int = 0  # Claude Code's own count before the next call minus the exact size (see count_gap)
    call_follows: bool = True  # False: more of the stretch comes in before the next call (or compaction)
    file_after: tuple[int, int] | None = None  # (chars, lines) of the file as a Read, Write or Edit left it

    def flat(self) -> list[EventDraft]:
        return self.inner if self.kind == EventKind.PARALLEL else [self]


@dataclass
class Draft:
    events: list[EventDraft]
    files: dict[str, int]  # path → tokens
    file_lines: dict[str, int]  # path → lines, where a Read said
    skills: dict[str, int]  # name → body tokens
    overhead: int  # the first call's size minus its messages
    first_messages: int
    summaries: list[int]  # tokens of each recorded compaction summary, in order
    compactions: list[tuple[int, str, int | None]]  # (call after it, trigger, preTokens)
    session: Session
    # segment → Claude Code's own count before the call that ends it (before its compaction, if any): the
    # last call's usage and output plus chars/4 of what came after (a compaction's preTokens is this count)
    counts: dict[int, int] = field(default_factory=dict)
    # (the event it happened at, files its later events show came back whole, and not) of each compaction
    # (restores.py)
    known_restores: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)


@dataclass
class _Unit:
    """A piece of recorded text that shares a segment's measured size; its tokens go to ``event``'s size
    ``key`` (None: the event has no size of its own for it, as a read's content is the file's)."""

    chars: int
    event: EventDraft
    key: str | None = None

    def give(self, tokens: int) -> None:
        self.event.target += tokens
        if self.key is not None and self.key in self.event.sizes:
            self.event.sizes[self.key] += tokens


# which size of each event kind a tool call's arguments and its result feed
_CALL_KEY: dict[str, str] = {
    EventKind.EDIT: "change",
    EventKind.WRITE: "content",
    EventKind.SUBAGENT: "prompt",
    EventKind.TOOL: "call",
    EventKind.PLAN: "plan",
}
_RESULT_KEY: dict[str, str] = {
    **dict.fromkeys((EventKind.GREP, EventKind.GLOB, EventKind.BASH, EventKind.TOOL), "output"),
    EventKind.SUBAGENT: "returns",
    EventKind.EDIT: "change",
    EventKind.WRITE: "content",
    EventKind.PLAN: "plan",
}


def _search_fields(use: ToolUse, style: PathStyle) -> dict[str, Any]:
    return {"pattern": style.text(use.args.pattern or use.name)}


class _Drafter:
    def __init__(self, session: Session, style: PathStyle) -> None:
        # Claude Code's count takes an image or a document at a fixed size, not its encoded length
        self.media_tokens = media_estimate_tokens(AgentName.CLAUDE_CODE)
        self.session = session
        self.style = style
        self.files: dict[str, int] = {}
        self.file_lines: dict[str, int] = {}
        self.skills: dict[str, int] = {}
        self.events: list[EventDraft] = []
        self.summaries: list[int] = []
        self.compactions: list[tuple[int, str, int | None]] = []
        # the event each compaction happened at: the one an automatic compaction followed (-1: none yet), a
        # typed /compact's own
        self.compaction_events: list[int] = []
        self.originals: dict[str, int] = {}  # path → tokens of the file before an edit (Edit's result)
        self.counts: dict[int, int] = {}

    def tool_event(self, use: ToolUse, segment: int, extra_chars: int) -> tuple[EventDraft, list[_Unit]]:
        """The scenario event for one tool call; its units are the call's text and the result's."""
        name, args, style = use.name, use.args, self.style
        result = (use.result_chars or 0) + extra_chars
        path = args.file_path or args.notebook_path
        kind: str
        fields: dict[str, Any]
        free: tuple[str, ...]
        comment = None
        if name == "Read" and path and not use.error and not use.partial_read and args.pages is None:
            kind, fields, free = EventKind.READ, {"path": style.path(path)}, ()
            if is_unchanged_stub(use):
                comment = "Claude Code answered with its 'file unchanged' stub"
        elif name in EDIT_TOOLS and path and not use.error:
            kind, fields, free = EventKind.EDIT, {"path": style.path(path)}, ("change",)
            if use.file_chars is not None:
                whole = read_tokens_of_file(AgentName.CLAUDE_CODE, use.file_chars)
                self.originals.setdefault(style.path(path), whole or estimate(use.file_chars))
        elif name == "Write" and path and PLANS_FOLDER in path and not use.error:
            kind, fields, free = EventKind.PLAN, {}, ("plan",)
            comment = "the plan file written in plan mode: re-injected after a compaction"
        elif name == "Write" and path and not use.error:
            kind, fields, free = EventKind.WRITE, {"path": style.path(path)}, ("content",)
        elif name in ("Grep", "Glob"):
            kind, fields, free = name.lower(), _search_fields(use, style), ("output",)
        elif name == "Bash":
            kind, fields, free = EventKind.BASH, {"command": style.text(args.command or "")}, ("output",)
        elif name in SUBAGENT_TOOLS:
            kind, fields, free = (
                EventKind.SUBAGENT,
                {"type": args.subagent_type or "general-purpose"},
                ("prompt", "returns"),
            )
        elif name == "Skill" and args.skill and not use.error:
            kind, fields, free = EventKind.SKILL, {"name": args.skill}, ()
        else:
            kind, fields, free = EventKind.TOOL, {"name": name}, ("call", "output")
            if name == "Read":
                comment = "a Read of part of a file, or one that failed: sized as a plain tool result"
                if path and not use.error and use.partial_read:
                    fields["reads"] = style.path(path)  # Claude Code re-reads it whole after a compaction
        if kind in _DIGESTED and use.digest is not None:
            fields["digest"] = use.digest  # only the dedup what-if reads it
        event = EventDraft(kind, fields, dict.fromkeys(free, 0), free, 0, segment, False, comment)
        event.lines, event.agent, event.total_lines = use.lines, use.agent, use.total_lines
        event.file_after = use.file_after
        if kind == EventKind.EDIT:
            event.sizes["result"] = 0  # the whole measured size goes to the change
        return event, [_Unit(use.call_chars, event, _CALL_KEY.get(kind)), _Unit(result, event, _RESULT_KEY.get(kind))]

    def restored_event(self, item: Restored, segment: int) -> EventDraft:
        """What a compaction put back, as the transcript records it (importer/restores.py)."""
        kind, fields, sizes, tokens = recorded_restore(item, self.style)
        return EventDraft(kind, fields, sizes, (), tokens, segment, False, RESTORED_NOTE)

    def segment(
        self, k: int, seg: Segment, measured_total: int | None, before: int | None, output: int | None = None
    ) -> None:
        """Draft the events of one segment and give each its target size."""
        start = len(self.events)
        sent = 0  # what the person, the tools and the hooks sent, as Claude Code counts it (chars/4)
        pre: list[_Unit] = []
        post: list[_Unit] = []
        units = pre
        compaction: Compaction | None = None
        items: list[Item] = seg.items
        skip: set[int] = set()
        parallels: list[EventDraft] = []
        boundary: int | None = None  # where the events after a compaction start
        for n, item in enumerate(items):
            if n in skip:
                continue
            if isinstance(item, Reply):
                event = EventDraft(EventKind.REPLY, {}, {"reply": 0}, ("reply",), 0, k, False)
                self.events.append(event)
                units.append(_Unit(item.chars, event, "reply"))
            elif isinstance(item, Prompt):
                fields: dict[str, Any] = {"text": self.style.text(item.text) or item.kind}
                if item.kind != "prompt":
                    fields["visibility"] = "hidden"
                comment = {"hook": "hook output or reminder the transcript records", "meta": None}.get(item.kind)
                event = EventDraft(EventKind.PROMPT, fields, {"size": 0}, ("size",), 0, k, False, comment)
                self.events.append(event)
                units.append(_Unit(item.chars - item.plan_chars, event, "size"))
                if item.plan_chars:  # the plan the prompt carries is the plan file a compaction re-injects
                    plan = EventDraft(EventKind.PLAN, {}, {"plan": 0}, ("plan",), 0, k, False, ACCEPTED_PLAN_NOTE)
                    self.events.append(plan)
                    units.append(_Unit(item.plan_chars, plan, "plan"))
                sent += self.media_tokens if item.media else rounded_tokens(item.chars)
            elif isinstance(item, Tools):
                group: list[EventDraft] = []
                for use in item.calls:
                    extra = 0
                    if use.name == "Skill":  # the skill's body arrives as the next expanded message
                        following = next(
                            (m for m in range(n + 1, len(items)) if isinstance(items[m], Prompt) and m not in skip),
                            None,
                        )
                        if following is not None and items[following].kind == "meta":  # type: ignore[union-attr]
                            skip.add(following)
                            extra = items[following].chars  # type: ignore[union-attr]
                    event, tool_units = self.tool_event(use, k, extra)
                    group.append(event)
                    units.extend(tool_units)
                    sent += use.result_counted + use.result_media * self.media_tokens + rounded_tokens(extra)
                if len(group) == 1:
                    self.events.append(group[0])
                else:
                    self.events.append(EventDraft(EventKind.PARALLEL, {}, {}, (), 0, k, False, inner=group))
                    parallels.append(self.events[-1])
            elif isinstance(item, Restored):
                self.events.append(self.restored_event(item, k))
            elif isinstance(item, Compaction):
                compaction = item
                boundary = len(self.events)
                if before is not None:
                    self.counts[k] = before + (output or 0) + sent
                self.summaries.append(estimate(item.summary_chars))
                self.compactions.append((k, item.trigger, item.pre_tokens))
                if item.trigger == "manual":
                    event = EventDraft(
                        EventKind.COMPACT, {}, {"summary": estimate(item.summary_chars)}, (), 0, k, False,
                        "a /compact typed in the session; its summary sized from the recorded text",
                    )  # fmt: skip
                    self.events.append(event)
                self.compaction_events.append(len(self.events) - 1)
                units = post
        grew = measured_total is not None and before is not None and measured_total > before
        if not pre and compaction is None and grew:  # the call grew, yet no record says by what
            event = EventDraft(
                EventKind.PROMPT, {"text": UNRECORDED, "visibility": "hidden"}, {"size": 0}, ("size",), 0, k, False,
                "the call grew with nothing recorded before it",
            )  # fmt: skip
            self.events.append(event)
            pre.append(_Unit(1, event, "size"))
        self._size(pre, post, compaction, measured_total, before)
        if compaction is None and measured_total is not None and before is not None:
            # before sending, Claude Code counts the last call's usage, its output and chars/4 of what came
            # after (tokens.ts tokenCountWithEstimation): all known then, unlike the call's own size
            self.counts[k] = before + (output or 0) + sent
            gap = self.counts[k] - measured_total
            for top in self.events[start:]:
                for event in (top, *top.inner):
                    event.count_gap = gap
        for group_event in parallels:
            group_event.measured = any(e.measured for e in group_event.inner)
        self._mark_calls(start, boundary, compaction)

    def _mark_calls(self, start: int, boundary: int | None, compaction: Compaction | None) -> None:
        """A model call follows only the last event of a stretch; an automatic compaction replaced the
        call after the events before it, a typed /compact came with no call before it."""
        stretches = (
            [(start, len(self.events))] if boundary is None else [(start, boundary), (boundary, len(self.events))]
        )
        for first, end in stretches:
            for event in self.events[first:end]:
                event.call_follows = False
            if end > first and (end == len(self.events) or compaction is None or compaction.trigger != "manual"):
                self.events[end - 1].call_follows = True

    def _size(
        self,
        pre: list[_Unit],
        post: list[_Unit],
        compaction: Compaction | None,
        measured_total: int | None,
        before: int | None,
    ) -> None:
        if compaction is None and measured_total is not None and before is not None and measured_total >= before:
            self._share(pre, measured_total - before)
            return
        if compaction is not None and compaction.pre_tokens is not None and before is not None:
            if compaction.pre_tokens >= before:
                # Claude Code's own count when it compacted: the last call plus what came after it
                self._share(pre, compaction.pre_tokens - before)
                for unit in pre:
                    unit.event.comment = PRE_TOKENS_NOTE
            else:
                self._estimate(pre)
            self._estimate(post)
            return
        self._estimate(pre + post)
        if compaction is None and measured_total is not None and before is not None and pre:
            # the usage fell with no compaction: earlier results were cleared before the call
            added = sum(e.target for e in {id(u.event): u.event for u in pre}.values())  # a tool: two units
            pre[0].event.cleared = max(0, before + added - measured_total)

    @staticmethod
    def _share(units: list[_Unit], total: int) -> None:
        shares = share_cells([u.chars for u in units], total) if units else []
        if units and sum(u.chars for u in units) == 0:
            shares = share_cells([1] * len(units), total)
        for unit, tokens in zip(units, shares, strict=True):
            unit.give(tokens)
            unit.event.measured = True

    @staticmethod
    def _estimate(units: list[_Unit]) -> None:
        for unit in units:
            unit.give(estimate(unit.chars))

    def finish_sizes(self) -> None:
        """Natural sizes before calibration (importer/file_sizes.py)."""
        settle_sizes(self.events, self.compactions, self.originals, self.files, self.file_lines, self.skills)


def _subagent_reads(drafter: _Drafter, subagents: Mapping[str, Session]) -> None:
    """A subagent's own full reads, from its file: they stay in its window; the files are listed."""
    for event in (e for top in drafter.events for e in top.flat()):
        child = subagents.get(event.agent or "")
        if event.kind != EventKind.SUBAGENT or child is None:
            continue
        child_draft = draft_session(child, drafter.style)
        reads = [e.fields["path"] for top in child_draft.events for e in top.flat() if e.kind == EventKind.READ]
        if reads:
            event.fields["reads"] = list(dict.fromkeys(reads))
            for path in reads:
                drafter.files.setdefault(path, child_draft.files[path])


def draft_session(session: Session, style: PathStyle, subagents: Mapping[str, Session] | None = None) -> Draft:
    drafter = _Drafter(session, style)
    segments = session.segments
    previous: int | None = None
    output: int | None = None
    first_messages = 0
    for k, seg in enumerate(segments):
        start = len(drafter.events)
        drafter.segment(k, seg, seg.used, previous, output)
        if k == 0:
            first_messages = sum(e.target for top in drafter.events[start:] for e in top.flat())
        if seg.used is not None:
            previous, output = seg.used, seg.output
    drafter.finish_sizes()
    _subagent_reads(drafter, subagents or {})
    overhead = max(0, (segments[0].used or 0) - first_messages)
    return Draft(
        drafter.events, drafter.files, drafter.file_lines, drafter.skills, overhead, first_messages,
        drafter.summaries, drafter.compactions, session, drafter.counts,
        [(after, *known) for after, known in zip(drafter.compaction_events, known_restores(session, drafter.style),
                                                  strict=True)],
    )  # fmt: skip
