"""``ctxviz import`` for a session of any agent whose reader makes a timeline (Codex, pi, …): what entered
the window before each API call becomes scenario events that any profile can replay.

Agent-neutral: the reader has already sized every block (from the measured usage where its log allows);
this module only maps block kinds onto event kinds. Adding an agent is its reader, nothing here. Claude
Code's sessions keep their own, richer importer (``importer.imported``).

Sizes: a prompt, a reply, a tool's call and output take the tokens the reader gave their blocks; the
profile's per-call envelope (``tool_call``), which the replay adds to every tool call, is taken off the
sizes that follow, so that the replay's total stays the measured one.
What the log records at start-up beyond the profile's own start-up (instructions, AGENTS.md, tool
schemas) goes to ``setup.system_prompt``: it is sent with every request and survives a compaction. A typed
compaction is an event; an automatic one is left to the rules of the profile that replays the scenario,
which decide from the agent's own count where the agent's log gives it (``AgentCounts``).
"""

from __future__ import annotations

import textwrap
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import yaml

from ctxviz.importer.imported import MeasuredCall
from ctxviz.kinds import BlockKind, CompactionTrigger, StepKind
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.model import Scenario
from ctxviz.scenario_file import parse_scenario
from ctxviz.short_forms import with_article
from ctxviz.timeline import Block, Category, Step, Timeline
from ctxviz.tokens import CharsPerToken
from ctxviz.transcripts.protocol import counted

HEADER_WIDTH = 100
ENTERED_BEFORE_COMPACTION = "what entered after the call and before the compaction (the agent's own count)"
PROMPT_TEXT_MAX = 200  # a prompt's text is its label only: its size is given


@dataclass(frozen=True)
class AgentCounts:
    """What the agent's own log says beyond the timeline (from its recorded calls, under its rules), by the
    call (from 1) each figure follows: each call's measured size (to line the calls up), how far the agent's
    own count is from the exact size when it decides whether to compact, what it counted entering before and
    after a compaction, and the calls its typed compactions followed."""

    used: tuple[int, ...]
    count_gaps: dict[int, int]
    before_compaction: dict[int, int]
    after_compaction: dict[int, int]
    typed: frozenset[int]
    new_context: tuple[int, ...] = ()  # each automatic compaction's, as the agent's own figures give it


@dataclass(frozen=True)
class TimelineImport:
    scenario: Scenario
    yaml: str
    measured: tuple[MeasuredCall, ...]  # each API call that measured something, and the event it came after
    automatic: int  # compactions not marked as typed: left to the replaying profile's rules

    @property
    def calls(self) -> int:
        return len(self.measured)


@dataclass
class _Events:
    """The events being built, and the tool calls of the current call still waiting for their output."""

    tool_call_overhead: int
    events: list[dict[str, Any]]
    waiting: deque[dict[str, Any]]
    agent: str
    cuts: Callable[[str, int], bool]  # whether the agent's profile would cut an output of that tool and size
    unrecorded: int = 0  # the first call's start-up blocks
    cleared: int = 0  # tokens the log shows leaving the window with no compaction, in all
    pending_clear: int = 0  # of those, what the next event has not said yet
    owed: int = 0  # tokens the replay adds on its own (tool-call envelopes) not yet taken off a size

    def clear(self, tokens: int) -> None:
        """Tokens that left before the next event with no compaction (an agent's pruning, or the API
        dropping old reasoning): on that event as ``cleared``, which profiles that clear old results honour."""
        self.cleared += tokens
        self.pending_clear += tokens

    def block(self, block: Block, first_call: bool) -> None:
        if block.category != Category.MESSAGES:
            if first_call:
                self.unrecorded += block.tokens
            else:  # context put back by the agent after a compaction, or a system message
                self.hidden(block.label, block.tokens)
            return
        if block.kind == BlockKind.PROMPT:
            text = block.label[:PROMPT_TEXT_MAX] or "…"
            self.append({"prompt": {"text": text, "size": self.pay(block.tokens)}})
        elif block.kind in (BlockKind.TOOL_CALL, BlockKind.EDIT):
            # the replay adds the profile's envelope to every call: what a small call cannot give back is owed
            self.owed += self.tool_call_overhead
            tool: dict[str, Any] = {"name": _tool_name(block.label), "call": self.pay(block.tokens)}
            self.append({"tool": tool})
            if block.kind == BlockKind.TOOL_CALL:
                self.waiting.append(tool)
        elif block.kind == BlockKind.TOOL_OUTPUT and self.waiting:
            tool = self.waiting.popleft()
            output = tool["output"] = self.pay(block.tokens)
            if self.cuts(str(tool["name"]), output):  # the log holds it as the agent already cut it
                tool["cut_by"] = self.agent
        elif block.kind == BlockKind.REPLY:
            self.append({"reply": self.pay(block.tokens)})
        else:  # an output whose call the log does not show, or a block of no event's kind: its size only
            self.hidden(block.label, block.tokens)

    def pay(self, tokens: int) -> int:
        """``tokens`` less what the replay adds on its own and is still owed (tool-call envelopes)."""
        paid = min(tokens, self.owed)
        self.owed -= paid
        return tokens - paid

    def append(self, event: dict[str, Any]) -> None:
        if self.pending_clear:
            event["cleared"] = self.pending_clear
            self.pending_clear = 0
        self.events.append(event)

    def hidden(self, label: str, tokens: int) -> None:
        if tokens:
            text = label[:PROMPT_TEXT_MAX] or "…"
            self.append({"prompt": {"text": text, "size": self.pay(tokens), "visibility": "hidden"}})


def _scaled(blocks: list[Block], total: int) -> list[Block]:
    """``blocks`` resized in proportion to come to ``total`` (the last one takes the rounding)."""
    size = sum(block.tokens for block in blocks)
    if not size:
        return blocks
    sizes = [block.tokens * total // size for block in blocks]
    sizes[-1] += total - sum(sizes)
    return [msgspec.structs.replace(block, tokens=tokens) for block, tokens in zip(blocks, sizes, strict=True)]


def _tool_name(label: str) -> str:
    """A tool block's label starts with the tool's name (``exec_command git status``)."""
    return (label.split(maxsplit=1) or ["tool"])[0][:60]


def _summary(step: Step, blocks: dict[int, Block]) -> int:
    """The summary a compaction wrote, as the reader sized it (0: the log does not hold it)."""
    return sum(blocks[i].tokens for i in step.added if blocks[i].kind == BlockKind.SUMMARY)


def _compaction_event(step: Step, blocks: dict[int, Block]) -> dict[str, Any]:
    summary = _summary(step, blocks)
    return {"compact": {"summary": summary}} if summary else {"compact": None}


@dataclass(frozen=True, slots=True)
class _ProfileStartup:
    """What the agent's profile sends at start-up with no event, of it its system prompt, its per-tool-call
    envelope, the summary it assumes when a log holds none, and the names of the numbers it takes."""

    used: int
    system_prompt: int
    tool_call: int
    summary: int
    takes: frozenset[str]


def _profile_startup(agent: str, model: str) -> _ProfileStartup:
    from ctxviz.engine import simulate
    from ctxviz.profiles import get_profile

    bare = parse_scenario(yaml.safe_dump({"name": "start-up", "agent": agent, "model": model, "events": []}),
                          "start-up.yaml", counter=CharsPerToken())  # fmt: skip
    timeline = simulate(bare)
    profile = get_profile(agent)
    used = timeline.steps[-1].used if timeline.steps else 0
    numbers = profile.numbers
    return _ProfileStartup(
        used,
        int(getattr(numbers, "system_prompt", 0)),
        profile.tool_call,
        int(getattr(numbers, "summary", 0)),
        profile.number_names(),
    )


def _cuts(agent: str) -> Callable[[str, int], bool]:
    """Whether ``agent``'s profile would cut a tool's output of a given size (in tokens)."""
    from ctxviz.profiles import get_profile

    output = get_profile(agent).output
    return lambda tool, tokens: output.result(tool, tool, Measure.of_tokens(tokens), False).tokens != tokens


def _measured_sizes(timeline: Timeline) -> tuple[int, ...]:
    return tuple(step.used for step in timeline.steps if step.kind == StepKind.API_CALL and step.used > 0)


def timeline_to_scenario(timeline: Timeline, name: str, counts: AgentCounts | None = None) -> TimelineImport:
    """Pure but for the profile's start-up: ``timeline`` (a reader's) → a scenario under its agent's profile.
    ``counts``: what the agent's log says of its own count and typed compactions, used where its calls are
    the timeline's. Raises ``InputError`` only if the result does not validate (a defect)."""
    blocks = {block.id: block for block in timeline.blocks}
    agent, model = str(timeline.agent), str(timeline.model)
    if counts is not None and counts.used != _measured_sizes(timeline):
        counts = None  # the two readings disagree on the calls: the agent's count cannot be placed
    gaps, typed = (counts.count_gaps, counts.typed) if counts is not None else ({}, frozenset())
    before_compaction = dict(counts.before_compaction) if counts is not None else {}
    after_compaction = counts.after_compaction if counts is not None else {}
    profile = _profile_startup(agent, model)
    built = _Events(profile.tool_call, [], deque(), agent, _cuts(agent))
    summaries: list[int] = []  # each automatic compaction's recorded summary (0: not recorded)
    measured: list[tuple[int, int]] = []  # (size, events before it)
    automatic = 0
    compacted = False  # the step before was a compaction: what the next call drops is part of it
    compacted_before = False  # a compaction came since the last measured call
    undecided: int | None = None  # the count gap of a compaction no event came before
    for step in timeline.steps:
        if step.kind == StepKind.API_CALL:
            built.waiting.clear()
            if step.removed and not compacted:
                built.clear(sum(blocks[i].tokens for i in step.removed))
            compacted = False
            start = len(built.events)
            added = [blocks[block_id] for block_id in step.added]
            if compacted_before and len(measured) in after_compaction:
                # the measured growth holds the new context the compaction made, unknown before this call: what
                # entered since is sized as the agent counted it, not from the call after
                added = _scaled(added, after_compaction[len(measured)])
            if compacted_before and measured:  # instructions put back: the start-up, which the compaction kept
                added = [block for block in added if block.category == Category.MESSAGES]
            for block in added:
                built.block(block, first_call=len(measured) == 0)
            for event in built.events[start:-1]:  # all of them come in before the call: checked once, after
                event["call_follows"] = False
            if step.used > 0:  # a call of size 0 measured nothing (a log's own figure, an aborted call)
                measured.append((step.used, len(built.events)))
                gap = gaps.get(len(measured) - 1) if not compacted_before else undecided
                if gap is not None and len(built.events) > start:
                    # the agent decides before the call from its own count, this far from the exact size
                    built.events[-1]["count_gap"] = gap
                compacted_before, undecided = False, None
        elif step.trigger is not None:
            compacted = True
            compacted_before = True
            if step.trigger == CompactionTrigger.MANUAL or len(measured) in typed:
                built.append(_compaction_event(step, blocks))
                continue
            automatic += 1
            summaries.append(_summary(step, blocks))
            if before_compaction.get(len(measured)):
                # what entered after the call and went into the compaction: the agent decided there (once, if
                # more compactions follow the same call)
                built.hidden(ENTERED_BEFORE_COMPACTION, before_compaction.pop(len(measured)))
                built.events[-1]["count_gap"] = gaps.get(len(measured), 0)
            elif len(measured) in gaps:  # nothing entered first: decided with what enters before the next call
                undecided = gaps[len(measured)] - after_compaction.get(len(measured), 0)
    calls = tuple(
        MeasuredCall(n, used, before - 1 if before else None) for n, (used, before) in enumerate(measured, start=1)
    )
    document: dict[str, Any] = {
        "name": name,
        "summary": f"Imported from {with_article(agent)} session: {counted(len(calls), 'API call', 'API calls')}",
        "agent": agent,
        "model": model,
    }
    # each compaction's own figures, where the agent's profile takes them (grok-build's has one summary size)
    per_compaction: dict[str, list[int]] = {}
    if any(summaries):  # the profile's own guess stands in for a summary the log does not hold
        per_compaction["summary_each"] = [s or profile.summary for s in summaries]
    if counts is not None and counts.new_context:
        per_compaction["new_context_each"] = list(counts.new_context)
    left_out = sorted(key for key in per_compaction if key not in profile.takes)
    if len(left_out) < len(per_compaction):
        document["profile"] = {k: v for k, v in per_compaction.items() if k in profile.takes}
    # the start-up the log records beyond the profile's own (instructions, tool schemas, AGENTS.md) is sent
    # with every request and survives a compaction: it goes to the system prompt's size
    system_prompt = max(0, profile.system_prompt + built.unrecorded - profile.used)
    document["setup"] = {"system_prompt": system_prompt}
    document["events"] = built.events
    startup = profile.used
    header = _header(
        timeline,
        name,
        len(calls),
        automatic,
        built.unrecorded,
        startup,
        built.cleared,
        (list(document.get("profile", {})), left_out),
    )
    text = "\n".join(f"# {line}" if line else "#" for line in header) + "\n"
    text += yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=110)
    return TimelineImport(parse_scenario(text, f"{name}.yaml", counter=CharsPerToken()), text, calls, automatic)


def _header(
    timeline: Timeline,
    name: str,
    calls: int,
    automatic: int,
    recorded: int,
    startup: int,
    cleared: int,
    each: tuple[list[str], list[str]],
) -> list[str]:
    """``each``: the per-compaction numbers written to the profile, and those its profile does not take."""
    written, left_out = each
    paragraphs = [
        f"Imported by `ctxviz import` from {timeline.agent} session {name}: {counted(calls, 'API call', 'API calls')}.",
        "Sizes are the reader's: the usage difference between two calls shared among what entered between "
        "them, or the text at 4 chars a token where no call measures it. The envelope the replay adds to "
        "each tool call (the profile's tool_call) is taken off the sizes that follow.",
        f"Start-up: the log records {recorded:,} tokens before the first call's messages; the {timeline.agent} "
        f"profile sends {startup:,} of its own, "
        + (
            f"so setup.system_prompt carries the {recorded - startup:,} more (sent with every request, kept "
            "by a compaction)."
            if recorded >= startup
            else f"so the replay starts {startup - recorded:,} over."
        ),
        "count_gap on an event: how far the agent's own count before its next call is from the exact size "
        "(it decides the automatic compactions from it; checked once before each call: call_follows false on "
        "the events before the last). cut_by on a tool: the output is as the agent already cut it.",
    ]
    if not calls:
        paragraphs.append(
            "No call of this log records its usage: nothing is measured, so there is nothing to size the "
            "events by and the scenario has none."
        )
    if automatic:
        taken = {
            "summary_each": "profile.summary_each is each one's recorded summary in turn",
            "new_context_each": "profile.new_context_each the new context the agent's own figures give after "
            "each (the summary is what it leaves)",
        }
        said = [text for key, text in taken.items() if key in written]
        paragraphs.append(
            f"The session compacted {automatic} time(s) that the log does not mark as typed. Those are not "
            "events: the profile that replays the scenario decides when to compact (`ctxviz fidelity` scores "
            "it)" + ("; " + ", ".join(said) if said else "") + "."
        )
    if left_out:
        paragraphs.append(
            f"The {timeline.agent} profile takes no {' or '.join(left_out)}: its own sizes stand in for what the "
            "log recorded of each compaction."
        )
    if cleared:
        paragraphs.append(
            f"{cleared:,} tokens left the window with no compaction (the measured usage fell): each event "
            "after such a fall says how many (cleared); a profile that clears old results takes that many "
            "of the oldest out there, any other keeps them and runs that much over."
        )
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += [*textwrap.wrap(paragraph, HEADER_WIDTH, break_on_hyphens=False), ""]
    return lines[:-1]
