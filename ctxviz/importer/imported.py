"""``session_to_scenario``: a session file in, a validated scenario and its commented YAML out."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ctxviz.importer.calibrate import Calibrated, calibrate
from ctxviz.importer.continuation import carry_over
from ctxviz.importer.draft import Draft, draft_session
from ctxviz.importer.load import load_session
from ctxviz.importer.paths import PathStyle
from ctxviz.importer.render import scenario_yaml
from ctxviz.importer.represent import make_representable
from ctxviz.importer.rules import continuation_rule
from ctxviz.kinds import AgentName
from ctxviz.scenario.model import Scenario
from ctxviz.scenario_file import parse_scenario
from ctxviz.tokens import CharsPerToken, TokenCounter
from ctxviz.transcripts.protocol import counted

_COUNTER: TokenCounter = CharsPerToken()


@dataclass(frozen=True, slots=True)
class MeasuredCall:
    """One API call of the session: its number (from 1), its measured size, and the scenario event it
    came after (an index into ``scenario.events``; None: before any event), to set against the step of
    that event when a replay is drawn beside the measurements."""

    call: int
    measured: int
    after_event: int | None


@dataclass(frozen=True)
class ImportResult:
    scenario: Scenario
    yaml: str
    draft: Draft
    calibrated: Calibrated
    problems: tuple[str, ...]  # damaged or unknown lines met while reading (located)

    @property
    def calls(self) -> tuple[MeasuredCall, ...]:
        last: dict[int, int] = {}
        for n, event in enumerate(self.draft.events):
            last[event.segment] = n
        found: list[MeasuredCall] = []
        latest: int | None = None
        for k, segment in enumerate(self.draft.session.segments):
            latest = last.get(k, latest)
            if segment.used is not None:
                found.append(MeasuredCall(k + 1, segment.used, latest))
        return tuple(found)

    def measured_per_event(self) -> list[int | None]:
        """What the session measured after each event: the last call before the next event (None where
        no call came between two events)."""
        return measured_per_event(self.calls, len(self.scenario.events))


def measured_per_event(calls: Iterable[MeasuredCall], event_count: int) -> list[int | None]:
    values: list[int | None] = [None] * event_count
    for call in calls:
        if call.after_event is not None:
            values[call.after_event] = call.measured
    return values


HEADER_WIDTH = 100


def _header(draft: Draft, calibrated: Calibrated, name: str, stand_ins: list[str]) -> list[str]:
    """The scenario's opening comment: where it came from and how each kind of size was made."""
    session = draft.session
    first = session.segments[0].used or 0
    fitted = ", ".join(f"{key} {value:,}" for key, value in calibrated.startup.items())
    paragraphs = [
        f"Imported by `ctxviz import` from Claude Code session {name}: "
        f"{counted(len(session.calls), 'API call', 'API calls')}.",
        "Sizes: the usage difference between two consecutive calls is exact; it is shared among what entered "
        "in between (replies, tool calls and results, prompts) in proportion to their recorded text. Each "
        "event says which call follows it (numbered from 1) and whether its size is measured that way or "
        "estimated from its text at 4 chars a token (before the first call, across a compaction, after the "
        "last call).",
        f"Start-up: the first call measured {first:,} tokens and its messages come to about "
        f"{draft.first_messages:,}, so {draft.overhead:,} tokens were sent that transcripts do not record "
        "(system prompt, tool definitions, CLAUDE.md, memory, start-up hook output). The profile's start-up "
        f"adds {calibrated.startup_rest:,} besides the system prompt; fitted to the overhead: {fitted}.",
    ]
    if session.version:
        paragraphs.append(
            f"Rules: those of Claude Code {session.version}, the version the session recorded (profile.version; "
            "`--set version=X` replays it as another). count_gap on an event: how far Claude Code's own count "
            "before its next call (the last usage and output plus chars/4 of what came after) is from the exact "
            "size; it decides the automatic compactions, checked only before a call (call_follows: false on "
            "each event between two calls but the last). cleared: tokens of earlier results the usage shows "
            "were cleared before that event, with no compaction."
        )
    autos = [pre for _, trigger, pre in draft.compactions if trigger == "auto"]
    if autos:
        paragraphs.append(
            f"The session compacted automatically {len(autos)} time(s). Those are not events: the engine "
            "decides when to compact (`ctxviz fidelity` compares). profile.summary_tokens is the first "
            "recorded summary (its text at 4 chars a token), profile.summary_tokens_each each one's in turn."
        )
    if stand_ins:
        paragraphs.append(
            f"{len(stand_ins)} event(s) the scenario format cannot hold are kept as hidden input of their size: "
            + "; ".join(stand_ins)
        )
    if calibrated.unplaced:
        paragraphs.append(
            f"{calibrated.unplaced:,} tokens could not be placed in any free size (see `ctxviz fidelity`)."
        )
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += [*textwrap.wrap(paragraph, HEADER_WIDTH, break_on_hyphens=False), ""]
    return lines[:-1]


def session_to_scenario(path: Path | str, *, keep_paths: bool = False) -> ImportResult:
    """Import a Claude Code session file. Raises ``InputError`` (with the file named) when it cannot."""
    loaded = load_session(Path(path))
    session = loaded.session
    name = session.session_id or Path(path).stem
    draft = draft_session(session, PathStyle(session.cwd, keep_paths), loaded.subagents)
    stand_ins = make_representable(draft, name)
    rule = continuation_rule(AgentName.CLAUDE_CODE, session.version)
    if rule is not None:
        carry_over(draft, *rule)
    calibrated = calibrate(draft, name)
    text = scenario_yaml(calibrated.document, draft, _header(draft, calibrated, name, stand_ins))
    # every size is written in tokens: nothing is counted, the counter is only the loader's requirement
    scenario = parse_scenario(text, f"{name}.yaml", counter=_COUNTER)
    return ImportResult(scenario, text, draft, calibrated, loaded.problems)
