"""Claude Code's compaction rules by version and the check from its own count: numbers from hand
arithmetic on the documented rules (window − reserve − 13,000 buffer)."""

from __future__ import annotations

import pytest
from engine_helpers import STARTUP_200K, steps_of_kind, timeline

from ctxviz.kinds import StepKind

BUFFER = 13_000


@pytest.mark.parametrize(
    ("version", "threshold"),
    [
        ("2.0.76", 200_000 - 32_000 - BUFFER),  # before 2.1.21 the whole max output was reserved: 155,000
        ("2.1.20", 200_000 - 32_000 - BUFFER),
        ("2.1.21", 200_000 - 20_000 - BUFFER),  # since: min(max output, 20,000): 167,000
        ("2.1.39", 200_000 - 20_000 - BUFFER),
    ],
)
def test_the_threshold_by_version(version: str, threshold: int) -> None:
    tl = timeline(f"model: claude-sonnet-4-5\nprofile: {{version: '{version}'}}\n")
    assert tl.thresholds.autocompact == threshold


def _filled(gap: int) -> str:
    # the start-up plus one prompt of 150,000 - STARTUP_200K, then one that brings the window to 168,000
    first = 150_000 - STARTUP_200K
    return (
        "model: claude-sonnet-4-6\nevents:\n"
        f"  - prompt: {{text: a, size: {first}}}\n"
        f"  - prompt: {{text: b, size: 18000}}\n    count_gap: {gap}\n"
    )


def test_the_check_counts_as_claude_code_does() -> None:
    exact = timeline(_filled(0))
    assert [s.used for s in exact.steps if s.kind == StepKind.PROMPT] == [150_000, 168_000]
    assert len(steps_of_kind(exact, StepKind.AUTO_COMPACT)) == 1  # 168,000 ≥ 167,000
    # its own count before the next call 1,500 lower: 166,500 < 167,000, the call goes out uncompacted
    assert steps_of_kind(timeline(_filled(-1_500)), StepKind.AUTO_COMPACT) == []
