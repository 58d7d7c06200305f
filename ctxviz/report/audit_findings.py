"""Findings: what cost most in a session and what would have avoided it, each saving the difference of two
replays of the same calls (as recorded, and under a what-if), never a formula. Pure: a scenario in.

Both sides are replayed by the engine, so the engine's own error cancels out of the difference: the
saving is what the what-if changes, as input tokens sent by the same calls (each call placed after the
event it followed in the session) and as compactions. A what-if can send more: a smaller window
compacts later, and the calls until then send more than the compacted window would have. Such a finding
is kept, its saving negative, with the call each replay compacted before (``compaction_calls``), so the
reader is told why rather than shown only what helps.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ctxviz.kinds import ANSWERED_STEP_KINDS, COMPACTION_STEP_KINDS, BlockKind, CostKind, FindingKind
from ctxviz.profiles import AGENT_NAMES
from ctxviz.report.audit import CarriedCost, Item, carried_cost
from ctxviz.report.compare_runs import WHAT_IF, Comparison, Run, RunSpec, compactions_of, compare, run_one
from ctxviz.scenario.model import Scenario
from ctxviz.timeline import Block, Category
from ctxviz.whatif import Settings, parse_settings

# A tool output this large, carried this many calls, is worth capping; the cap the what-if tries.
LARGE_OUTPUT_TOKENS = 5_000
LARGE_OUTPUT_CALLS = 10
OUTPUT_CAP = "2k"
# The window sizes a session can be replayed with instead of its own.
SMALL_WINDOW, LARGE_WINDOW = 200_000, 1_000_000
_OUTPUT_KINDS = frozenset({BlockKind.TOOL_OUTPUT, BlockKind.SPILLED_OUTPUT})
_SHOWN_ITEMS = 20  # a finding names at most this many items (the largest carried)


@dataclass(frozen=True, slots=True)
class Finding:
    kind: FindingKind
    title: str
    items: tuple[str, ...]  # the labels of the items it is about, largest carried first
    tokens: int  # what those items carried (0: the finding is about the whole session)
    settings: tuple[str, ...]  # the what-if's ``--set`` values, as written (none: another agent)
    agents: tuple[str, str]  # the agent as recorded, and the one the what-if runs (the same but for other-agent)
    input_tokens_saved: int  # as replayed minus what-if replayed (negative: the what-if sends more)
    compactions_saved: int
    # the call (from 1) that first sent each compaction's window, as replayed and under the what-if
    compaction_calls: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())

    @property
    def what_if(self) -> tuple[str, ...]:
        """The ``ctxviz compare`` arguments that replay it."""
        if self.agents[0] != self.agents[1]:
            return ("--agents", ",".join(self.agents))
        return tuple(word for setting in self.settings for word in ("--set", setting))


@dataclass(frozen=True, slots=True)
class Sent:
    """One replay of the session's calls: what they sent and how often the window compacted."""

    input_tokens: int
    compactions: int
    # for each compaction, the call (from 1) that first sent the window it left (calls + 1: none did)
    compaction_calls: tuple[int, ...] = ()


def _call_steps(run: Run, call_events: Sequence[int | None]) -> list[int]:
    """The step whose window each call sends (a call after event ``e`` sends the window as ``e`` and any
    compaction it set off left it; None: right after start-up)."""
    startup = run.groups[0][-1] if run.groups[0] else 0
    return [startup if event is None else run.step_after(event) for event in call_events]


def sent_by(run: Run, call_events: Sequence[int | None]) -> Sent:
    """What ``run`` sends at each call of ``call_events`` (the event each call followed)."""
    steps = run.timeline.steps
    total = sum(steps[step].used for step in _call_steps(run, call_events))
    after = [-1 if event is None else event for event in call_events]
    compactions = compactions_of(run)
    return Sent(total, len(compactions), tuple(bisect_left(after, c.event) + 1 for c in compactions))


def answered_events(run: Run) -> list[int | None]:
    """A scenario's calls, as events: one after each event the model answers."""
    steps = run.timeline.steps
    return [
        event
        for event in range(len(run.groups) - 1)
        if any(steps[i].kind in ANSWERED_STEP_KINDS for i in run.steps_of(event))
    ]


# what a tool or a read leaves in the window: its content, or under dedup a reference to an earlier copy
_RESULT_KINDS = frozenset({BlockKind.FILE_READ, BlockKind.TOOL_OUTPUT, BlockKind.SPILLED_OUTPUT,
                           BlockKind.SUBAGENT_RESULT, BlockKind.REPEAT_REFERENCE})  # fmt: skip


def _results(run: Run, event: int) -> list[Block]:
    """The results ``event`` put into the window, in order (a compaction's restored content left out)."""
    steps, timeline = run.timeline.steps, run.timeline
    return [
        block
        for i in run.steps_of(event)
        if steps[i].kind not in COMPACTION_STEP_KINDS
        for block in map(timeline.block, steps[i].added)
        if block.kind in _RESULT_KINDS
    ]


def _sent_again(as_recorded: Run, deduplicated: Run, call_events: Sequence[int | None]) -> list[Item]:
    """What the dedup what-if sent as a reference, as the as-recorded replay sent it: the result of the
    same event at the same place, with what it carried over the same calls."""
    replaced: list[tuple[int, int]] = []  # (event, as-recorded block)
    for event in range(len(deduplicated.groups) - 1):
        references = [n for n, b in enumerate(_results(deduplicated, event)) if b.kind == BlockKind.REPEAT_REFERENCE]
        if references:
            recorded = _results(as_recorded, event)
            replaced += [(event, recorded[n].id) for n in references if n < len(recorded)]
    if not replaced:
        return []
    cost = carried_cost(as_recorded.timeline, _call_steps(as_recorded, call_events))
    by_block = {item.block: item for item in cost.items}
    return [
        replace(by_block[block], label=f"{by_block[block].label} (event {event})")
        for event, block in replaced
        if block in by_block  # sent by no call: it left before the next one
    ]


def _stale(cost: CarriedCost) -> list[Item]:
    """Reads of a file still carried by a call after an edit or write of it: a copy out of date."""
    return [
        read
        for read in cost.items
        if read.kind == BlockKind.FILE_READ
        and any(read.first_call < at <= read.last_call for at in cost.edits.get(read.label, ()))
    ]


def _large_outputs(cost: CarriedCost) -> list[Item]:
    return [
        i
        for i in cost.items
        if i.kind in _OUTPUT_KINDS and i.tokens >= LARGE_OUTPUT_TOKENS and i.calls >= LARGE_OUTPUT_CALLS
    ]


def _named(items: Sequence[Item]) -> tuple[str, ...]:
    return tuple(i.label for i in sorted(items, key=lambda i: -i.carried)[:_SHOWN_ITEMS])


class _Replays:
    """The session's calls replayed as recorded and under what-ifs, each replay run once."""

    def __init__(self, scenario: Scenario, agent: str, call_events: Sequence[int | None] | None) -> None:
        self.scenario, self.agent = scenario, agent
        self.as_recorded_run = run_one(scenario, RunSpec(agent, agent), Settings())
        self.call_events = list(answered_events(self.as_recorded_run) if call_events is None else call_events)
        self.as_recorded = sent_by(self.as_recorded_run, self.call_events)

    def run(self, settings: Sequence[str] = (), agent: str | None = None) -> Run:
        agent = agent or self.agent
        return run_one(self.scenario, RunSpec(agent, agent), parse_settings(settings))

    def under(self, settings: Sequence[str] = (), agent: str | None = None) -> Sent:
        return sent_by(self.run(settings, agent), self.call_events)

    def finding(
        self,
        kind: FindingKind,
        title: str,
        items: Sequence[Item],
        settings: Sequence[str],
        what_if: Sent | None = None,
        agent: str | None = None,
    ) -> Finding:
        """A finding whose saving is the as-recorded replay less ``what_if`` (default: replayed now under
        ``settings``, by ``agent``)."""
        agent = agent or self.agent
        sent = self.under(settings, agent) if what_if is None else what_if
        return Finding(
            kind, title, _named(items), sum(i.carried for i in items), tuple(settings), (self.agent, agent),
            self.as_recorded.input_tokens - sent.input_tokens,
            self.as_recorded.compactions - sent.compactions,
            (self.as_recorded.compaction_calls, sent.compaction_calls),
        )  # fmt: skip


def findings(
    scenario: Scenario,
    cost: CarriedCost,
    *,
    agent: str | None = None,
    call_events: Sequence[int | None] | None = None,
    window: int | None = None,
) -> list[Finding]:
    """Every finding for the session whose replayable form is ``scenario`` and whose carried cost is
    ``cost``, ranked by input tokens saved. ``call_events``: the event each call followed (default: the
    events the replay answers); ``window``: the session's own window (default: the replay's)."""
    replays = _Replays(scenario, agent or scenario.agent, call_events)
    found: list[Finding] = []
    deduplicated = replays.run(["dedup=sha256"])
    if repeated := _sent_again(replays.as_recorded_run, deduplicated, replays.call_events):
        found.append(
            replays.finding(
                FindingKind.REPEATED_CONTENT,
                f"{len(repeated)} tool output(s) or file read(s) sent again while the same content was still "
                "in the window",
                repeated,
                ["dedup=sha256"],
                sent_by(deduplicated, replays.call_events),
            )
        )
    if stale := _stale(cost):
        found.append(
            replays.finding(
                FindingKind.STALE_READ,
                f"{len(stale)} file read(s) still carried after the file was edited or written",
                stale,
                ["stale_reads=drop"],
            )
        )
    if large := _large_outputs(cost):
        found.append(
            replays.finding(
                FindingKind.LARGE_OUTPUT,
                f"{len(large)} tool output(s) of {LARGE_OUTPUT_TOKENS:,}+ tokens carried {LARGE_OUTPUT_CALLS}+ calls",
                large,
                [f"output_cap={OUTPUT_CAP}"],
            )
        )
    if startup := _startup_overhead(replays, cost):
        found.append(startup)
    own = window or replays.as_recorded_run.timeline.window
    other = LARGE_WINDOW if own < LARGE_WINDOW else SMALL_WINDOW
    found.append(
        replays.finding(
            FindingKind.WINDOW_CHOICE,
            f"the same calls with a {other:,}-token window instead of {own:,}",
            (),
            [f"window={other // 1_000_000}m" if other % 1_000_000 == 0 else f"window={other // 1000}k"],
        )
    )
    if best := _other_agent(replays):
        found.append(best)
    return sorted(found, key=lambda f: -f.input_tokens_saved)


def _startup_overhead(replays: _Replays, cost: CarriedCost) -> Finding | None:
    """What the start-up (everything outside Messages, and a transcript's unrecorded start-up) carried,
    and what tool search changes: MCP schemas deferred if some load up front, else all loaded up front.
    Only a scenario that declares MCP servers can be replayed so (an imported session declares none)."""
    servers = replays.scenario.setup.mcp
    if not servers:
        return None
    items = [i for i in cost.items if i.category != Category.MESSAGES.value or i.kind == CostKind.STARTUP_OVERHEAD]
    carried = sum(i.carried for i in items)
    setting = "tool_search=on" if any(not server.deferred for server in servers) else "tool_search=off"
    share = f"{100 * carried / cost.input_tokens:.0f}%" if cost.input_tokens else "—"
    return replays.finding(
        FindingKind.STARTUP_OVERHEAD,
        f"the start-up (system prompt, tools, MCP, memory, skills) is {share} of what the calls sent",
        items,
        [setting],
    )


def _other_agent(replays: _Replays) -> Finding | None:
    """The other profile whose replay of the same calls sends least."""
    tried = [(replays.under(agent=name), name) for name in AGENT_NAMES if name != replays.agent]
    if not tried:
        return None
    sent, name = min(tried, key=lambda pair: pair[0].input_tokens)
    title = f"the same calls under {name}'s rules (the profile that sends least)"
    return replays.finding(FindingKind.OTHER_AGENT, title, (), (), sent, name)


AS_RECORDED = "as-recorded"


def finding_comparison(
    scenario: Scenario, finding: Finding, display: str, measured: tuple[int | None, ...] | None = None
) -> Comparison:
    """The two runs a finding sets side by side: the session as recorded, and its what-if (another agent,
    or the same agent under the finding's settings), with what the session measured when it is one."""
    recorded, other = finding.agents
    label = str(other) if other != recorded else WHAT_IF
    specs = (RunSpec(AS_RECORDED, recorded), RunSpec(label, other))
    settings = parse_settings(f"{label}.{setting}" for setting in finding.settings)
    return replace(compare(scenario, specs, settings, display), measured=measured)
