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


def test_with_autocompact_off_a_request_over_the_limit_is_refused_not_summed() -> None:
    # blocking limit with auto-compaction off: 200,000 - min(32,000, 20,000) - 3,000 = 177,000
    first = 150_000 - STARTUP_200K
    tl = timeline(
        "model: claude-sonnet-4-6\nautocompact: false\nevents:\n"
        f"  - prompt: {{text: a, size: {first}}}\n"
        "  - prompt: {text: b, size: 30000}\n"  # 180,000 > 177,000: refused
        "  - prompt: {text: c, size: 1000}\n"  # blocked until /compact
        "  - compact: {summary: 4000}\n"
        "  - prompt: {text: d, size: 1000}\n"
    )
    assert tl.thresholds.blocking == 177_000
    used = [s.used for s in tl.steps if s.event is not None]
    assert used[:3] == [150_000, 150_000, 150_000]
    assert max(s.used for s in tl.steps) <= 177_000
    kinds = [s.kind for s in tl.steps if s.event is not None]
    assert kinds[2] == StepKind.NOTE and kinds[3] == StepKind.COMPACT
    assert used[4] == used[3] + 1_000  # after the /compact, requests go through again


def test_no_check_where_more_input_comes_before_the_call() -> None:
    """168,000 ≥ 167,000 after b, but b is followed by more input (c), not by a call: the check waits for
    the call after c, and the compaction summarises c too."""
    first = 150_000 - STARTUP_200K
    tl = timeline(
        "model: claude-sonnet-4-6\nevents:\n"
        f"  - prompt: {{text: a, size: {first}}}\n"
        "  - prompt: {text: b, size: 18000}\n    call_follows: false\n"
        "  - prompt: {text: c, size: 1000}\n"
    )
    kinds = [s.kind for s in tl.steps if s.kind != StepKind.STARTUP]
    assert kinds == [StepKind.PROMPT, StepKind.PROMPT, StepKind.PROMPT, StepKind.AUTO_COMPACT]
