"""Helpers for the other agents' profile tests: run an inline scenario under one agent and look at what one
scenario event added. Text is counted as chars/4, so every expected number can be worked out by hand from
the research on each agent (the numbers and their sources are in each profile module)."""

from __future__ import annotations

import math
import textwrap

from ctxviz.engine import simulate
from ctxviz.scenario.model import Scenario
from ctxviz.scenario_file import parse_scenario
from ctxviz.timeline import Block, Step, Timeline
from ctxviz.tokens import CharsPerToken


def scenario(text: str) -> Scenario:
    text = textwrap.dedent(text)
    if not text.lstrip().startswith("{") and not any(line.startswith("name:") for line in text.splitlines()):
        text = "name: test\n" + text
    return parse_scenario(text, "test.yaml", counter=CharsPerToken())


def run(agent: str, text: str) -> Timeline:
    return simulate(scenario(text), agent=agent)


def chars4(text: str) -> int:
    """A fixed text an agent adds, counted as the agents estimate it: ceil(chars / 4)."""
    return math.ceil(len(text) / 4)


def startup_used(tl: Timeline) -> int:
    return tl.used_at(max(s.index for s in tl.steps if s.kind == "startup"))


def step_of(tl: Timeline, event: int) -> Step:
    """The step scenario event ``event`` made (not an automatic compaction after it)."""
    return next(s for s in tl.steps if s.event == event and s.kind != "auto-compact")


def added(tl: Timeline, event: int, kind: str | None = None) -> list[Block]:
    blocks = tl.blocks_of(step_of(tl, event).added)
    return [b for b in blocks if kind is None or b.kind == kind]


def added_tokens(tl: Timeline, event: int, kind: str | None = None) -> int:
    return sum(b.tokens for b in added(tl, event, kind))


def notes(tl: Timeline, event: int) -> str:
    return "\n".join(step_of(tl, event).notes)


def compactions(tl: Timeline) -> list[Step]:
    return [s for s in tl.steps if s.kind in ("compact", "auto-compact")]
