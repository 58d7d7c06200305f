"""Fitting the drafted sizes to what the engine adds, so that the replay adds what the session measured.

The engine puts its own fixed sizes around each event (a tool call's wrapper, an edit's short answer, a
spilled output's preview). One replay with auto-compaction off shows what each event added; the gap to
the event's measured size goes into the event's own free size (a reply, a tool's output), or else into
another free size of the same stretch between two calls. The start-up is fitted the same way: the first
call's size minus its messages is the overhead the transcript does not record.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ctxviz.importer.draft import Draft, EventDraft
from ctxviz.importer.render import scenario_document
from ctxviz.importer.replay import build_scenario, replay
from ctxviz.importer.rules import profile_of, spill_limit_chars, tool_call_tokens, unchecked
from ctxviz.kinds import EventKind, StepKind
from ctxviz.scenario.model import Scenario
from ctxviz.tokens import CHARS_PER_TOKEN

# Round one puts each event's gap into its own sizes; round two what is left into the stretch's other
# free sizes (or a hidden item for it); round three checks and settles what the engine then capped.
ROUNDS = 3
FILLER = "growth no recorded item holds"
_SPILLING: dict[str, str] = {EventKind.BASH: "Bash", EventKind.GREP: "Grep", EventKind.GLOB: "Glob"}


@dataclass(frozen=True)
class Calibrated:
    document: dict[str, Any]
    scenario: Scenario
    startup: dict[str, int]  # setup sizes: system_prompt, and tools/environment where the profile's are too big
    startup_rest: int  # what the profile's start-up adds besides the system prompt
    unplaced: int  # tokens no free size could take (tokens the replay misses or adds, in all)


def _flat(draft: Draft) -> list[EventDraft]:
    return [e for top in draft.events for e in top.flat()]


def _cap_outputs(draft: Draft, scenario: Scenario) -> None:
    """A result Claude Code kept inline must stay under the engine's spill limit (the engine counts 4
    chars a token; real text is denser), else the replay would spill what the session did not."""
    profile = profile_of(scenario)
    for event in _flat(draft):
        tool = _SPILLING.get(event.kind) or (event.fields.get("name") if event.kind == EventKind.TOOL else None)
        limit = spill_limit_chars(profile, str(tool)) if tool is not None else None
        if limit is None or "output" not in event.sizes:
            continue
        cap = limit // CHARS_PER_TOKEN
        event.caps["output"] = cap
        if event.sizes["output"] > cap:
            event.sizes["output"] = cap
            event.comment = (event.comment + "; " if event.comment else "") + "output capped under the spill limit"


def _place(events: list[EventDraft], amount: int) -> int:
    """Put ``amount`` (may be negative) into the free sizes of ``events``; returns what did not fit."""
    free = [(e, key) for e in events for key in e.free]
    if not free:
        return amount
    if amount > 0:
        free.sort(key=lambda f: f[0].kind not in (EventKind.REPLY, EventKind.PROMPT))  # replies and prompts first
        for event, key in free:
            room = max(0, event.caps.get(key, amount + event.sizes[key]) - event.sizes[key])
            give = min(room, amount)
            event.sizes[key] += give
            amount -= give
            if amount == 0:
                break
        return amount
    for event, key in sorted(free, key=lambda f: -f[0].sizes[f[1]]):
        take = min(event.sizes[key], -amount)
        event.sizes[key] -= take
        amount += take
        if amount == 0:
            break
    return amount


def _filler(segment: int, tokens: int) -> EventDraft:
    return EventDraft(
        # its target is 0: like any size moved within a stretch, it carries the gap of another item
        EventKind.PROMPT, {"text": FILLER, "visibility": "hidden"}, {"size": tokens}, ("size",), 0, segment, True,
        "what the call grew by that no recorded item here can hold (a re-read file that had grown, …)",
    )  # fmt: skip


def _add_fillers(draft: Draft, leftovers: dict[int, int]) -> None:
    """A stretch whose growth no free size could take gets a hidden item of that size at its end."""
    for segment, tokens in sorted(leftovers.items(), reverse=True):
        last = max(n for n, e in enumerate(draft.events) if e.segment == segment)
        filler = _filler(segment, tokens)
        filler.count_gap = draft.events[last].count_gap
        # it ends the stretch now: the call (or the check) follows it, not the event before
        filler.call_follows, draft.events[last].call_follows = draft.events[last].call_follows, False
        draft.events.insert(last + 1, filler)


def _prepare(draft: Draft, scenario: Scenario) -> None:
    _cap_outputs(draft, scenario)
    # A read's or a skill's measured size includes its tool call, which the engine adds on its own.
    tool_call = tool_call_tokens(profile_of(scenario))
    read_paths = {e.fields["path"] for e in _flat(draft) if e.kind == EventKind.READ}
    for path in read_paths & set(draft.files):
        draft.files[path] = max(1, draft.files[path] - tool_call)
    for event in _flat(draft):  # what a Write or an Edit left: sized as a Read, so the same
        after = event.fields.get("file_after")
        if isinstance(after, dict):
            after["tokens"] = max(1, after["tokens"] - tool_call)
    for skill in draft.skills:
        draft.skills[skill] = max(0, draft.skills[skill] - tool_call)


def calibrate(draft: Draft, name: str) -> Calibrated:
    scenario = build_scenario(unchecked(scenario_document(draft, name, {"system_prompt": 0})))
    _prepare(draft, scenario)
    startup_rest = unplaced = 0
    startup: dict[str, int] = {"system_prompt": 0}
    for round_ in range(ROUNDS):
        flat = _flat(draft)
        by_segment: dict[int, list[EventDraft]] = defaultdict(list)
        for event in flat:
            by_segment[event.segment].append(event)
        document = scenario_document(draft, name, startup)
        # the first round sees what each event adds with nothing decided on the size; the later ones with
        # the start-up fitted and the agent's compactions, as the replay will run (after a compaction a
        # file read earlier is read whole again, where before it the agent answered with a stub)
        run = replay(build_scenario(unchecked(document) if round_ == 0 else document), len(flat))
        if round_ == 0:
            startup_rest = run.startup_used
            startup = fit_startup(draft, name, startup_rest)
        previous = run.startup_used
        pools: dict[int, int] = defaultdict(int)
        steps = run.timeline.steps
        last_step = 0
        for event, step in zip(flat, run.event_steps, strict=True):
            compacted = [s for s in steps[last_step + 1 : step] if s.kind == StepKind.AUTO_COMPACT]
            if compacted:  # what the compaction took or put back is not this event's
                previous = compacted[-1].used
            used, last_step = steps[step].used, step
            added, previous = used - previous + event.cleared, used
            if event.kind == EventKind.COMPACT:
                continue
            gap = event.target - added
            if gap and event.free and round_ == 0:  # first round: each event's gap into its own sizes
                gap = _place([event], gap)
            pools[event.segment] += gap
        # then what is left, per stretch between two calls, into that stretch's other free sizes
        leftovers = {segment: _place(by_segment[segment], gap) for segment, gap in pools.items() if gap}
        unplaced = sum(abs(v) for v in leftovers.values())
        if round_ < ROUNDS - 1:
            _add_fillers(draft, {segment: tokens for segment, tokens in leftovers.items() if tokens > 0})
    document = scenario_document(draft, name, startup)
    return Calibrated(document, build_scenario(document), startup, startup_rest, unplaced)


def fit_startup(draft: Draft, name: str, startup_rest: int) -> dict[str, int]:
    """The start-up sizes that add up to the overhead: the profile's tool definitions and environment as
    they are and the system prompt the rest; an overhead smaller than those (a hand-made or partial file)
    shrinks them too, so the first call still comes out at what it measured."""
    overhead = draft.overhead
    if overhead >= startup_rest:
        return {"system_prompt": overhead - startup_rest}
    bare = {"system_prompt": 0, "tools": 0, "environment": 0}
    document = unchecked({**scenario_document(draft, name, bare), "events": []})
    rest = replay(build_scenario(document), 0).startup_used  # what stays: the skill listing and the like
    return {**bare, "tools": max(0, overhead - rest)}
