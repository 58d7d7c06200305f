"""Helpers for the engine tests: build a Timeline from an inline YAML scenario and look at its steps.

Sizes are counted with chars/4 (``CharsPerToken``) so that ``{text: ...}`` sizes are exact by hand:
``ceil(len(text) / 4)``. Every expected number in the tests is computed from the rules in docs/numbers.md and the
``claude-code`` profile's parameters, never copied from the engine's output.
"""

from __future__ import annotations

import textwrap

from ctxviz.engine import simulate
from ctxviz.profiles.claude_code import CLAUDE_CODE as P
from ctxviz.scenario.model import Scenario
from ctxviz.scenario_file import parse_scenario
from ctxviz.timeline import Block, Category, Step, Timeline
from ctxviz.tokens import CharsPerToken

__all__ = [
    "P",
    "STARTUP_200K",
    "Category",
    "added",
    "added_kinds",
    "added_tokens",
    "blocks_of_kind",
    "event_steps",
    "live",
    "live_kinds",
    "removed",
    "scenario",
    "steps_of_kind",
    "timeline",
    "used_after_startup",
]

# §2 defaults with nothing in setup: system prompt 4,200 + environment 280 + built-in tools 13,500.
STARTUP_200K = 4_200 + 280 + 13_500


def scenario(text: str) -> Scenario:
    """Parse an inline scenario (dedented; JSON works too). A missing block-style ``name:`` is filled in."""
    text = textwrap.dedent(text)
    if not text.lstrip().startswith("{") and not any(line.startswith("name:") for line in text.splitlines()):
        text = "name: test\n" + text
    return parse_scenario(text, "test.yaml", counter=CharsPerToken())


def timeline(text: str) -> Timeline:
    return simulate(scenario(text))


def added(tl: Timeline, index: int, kind: str | None = None) -> list[Block]:
    """Blocks added at step ``index`` (optionally only one block kind), in the order they entered."""
    blocks = tl.blocks_of(tl.steps[index].added)
    return [b for b in blocks if kind is None or b.kind == kind]


def removed(tl: Timeline, index: int, kind: str | None = None) -> list[Block]:
    blocks = tl.blocks_of(tl.steps[index].removed)
    return [b for b in blocks if kind is None or b.kind == kind]


def added_kinds(tl: Timeline, index: int) -> list[str]:
    return [b.kind for b in added(tl, index)]


def added_tokens(tl: Timeline, index: int, kind: str | None = None) -> int:
    return sum(b.tokens for b in added(tl, index, kind))


def steps_of_kind(tl: Timeline, kind: str) -> list[Step]:
    return [s for s in tl.steps if s.kind == kind]


def blocks_of_kind(tl: Timeline, kind: str) -> list[Block]:
    return [b for b in tl.blocks if b.kind == kind]


def live(tl: Timeline, index: int | None = None, kind: str | None = None) -> list[Block]:
    index = tl.last if index is None else index
    return [b for b in tl.state_at(index) if kind is None or b.kind == kind]


def live_kinds(tl: Timeline, index: int | None = None) -> list[str]:
    return [b.kind for b in live(tl, index)]


def used_after_startup(tl: Timeline) -> int:
    """Used at the last startup step."""
    last = max(s.index for s in tl.steps if s.kind == "startup")
    return tl.used_at(last)


def event_steps(tl: Timeline) -> list[Step]:
    """The steps that are not startup steps."""
    return [s for s in tl.steps if s.kind != "startup"]


def hooks_at_and_over_the_cap(event: str, matcher: str) -> str:
    """A setup of two ``event`` hooks on ``matcher``: "whole" prints 10,000 chars (the cap), "big" 40,000."""
    hooks = "".join(
        f"    - {{event: {event}, matcher: {matcher}, name: {name}, adds: {{chars: {chars}}}}}\n"
        for name, chars in (("whole", 10_000), ("big", 40_000))
    )
    return "setup:\n  hooks:\n" + hooks
