"""Window and thresholds (docs/numbers.md): exact numbers from the rules and the profile's parameters."""

from __future__ import annotations

import pytest
from engine_helpers import STARTUP_200K, P, steps_of_kind, timeline

from ctxviz.timeline import AUTOCOMPACT_BUFFER, COMPACT_BUFFER, FREE_SPACE

RESERVE = min(32_000, 20_000)  # min(model max output, 20,000)
BUFFER = 13_000  # autocompact buffer
WARNING = 20_000
BLOCKING = 3_000


def thresholds_of(text: str):
    tl = timeline(text)
    return tl.window, tl.thresholds


@pytest.mark.parametrize(
    ("model", "window", "max_output"),
    [
        ("claude-sonnet-4-6", 200_000, 32_000),
        ("claude-opus-4-6", 200_000, 64_000),
        ("claude-opus-4-5", 200_000, 32_000),
        ("claude-sonnet-4-5", 200_000, 32_000),
        ("claude-haiku-4-5", 200_000, 32_000),
        ("claude-sonnet-5", 1_000_000, 64_000),
        ("claude-sonnet-4-6[1m]", 1_000_000, 32_000),
        ("claude-opus-4-6[1m]", 1_000_000, 64_000),
    ],
)
def test_model_windows_and_thresholds(model: str, window: int, max_output: int) -> None:
    got_window, t = thresholds_of(f"model: {model}\n")
    reserve = min(max_output, 20_000)
    effective = window - reserve
    assert got_window == window
    assert t.autocompact == effective - BUFFER
    assert t.warning == effective - BUFFER - WARNING
    assert t.blocking == effective - BLOCKING
    assert t.buffer == window - (effective - BUFFER)
    assert t.buffer_label == AUTOCOMPACT_BUFFER


def test_200k_table_numbers() -> None:
    window, t = thresholds_of("model: claude-sonnet-4-6\n")
    assert (window, t.autocompact, t.warning, t.blocking, t.buffer) == (200_000, 167_000, 147_000, 177_000, 33_000)


def test_1m_table_numbers() -> None:
    window, t = thresholds_of("model: claude-sonnet-5\n")
    assert (window, t.autocompact, t.warning, t.blocking, t.buffer) == (
        1_000_000,
        967_000,
        947_000,
        977_000,
        33_000,
    )


def test_window_override_1m() -> None:
    window, t = thresholds_of("model: claude-sonnet-4-6\nwindow: 1m\n")
    assert window == 1_000_000
    assert t.autocompact == 1_000_000 - 20_000 - 13_000 == 967_000


def test_window_override_500k() -> None:
    window, t = thresholds_of("model: claude-opus-4-6\nwindow: 500k\n")
    assert window == 500_000
    assert t.autocompact == 500_000 - 20_000 - 13_000 == 467_000
    assert t.blocking == 500_000 - 20_000 - 3_000 == 477_000
    assert t.buffer == 500_000 - 467_000 == 33_000


def test_autocompact_off_compact_buffer_and_blocking() -> None:
    tl = timeline("model: claude-sonnet-4-6\nautocompact: off\nevents:\n  - reply: 100\n")
    t = tl.thresholds
    effective = 200_000 - 20_000
    assert t.autocompact is None
    assert t.blocking == effective - 3_000 == 177_000
    assert t.buffer == 3_000
    assert t.buffer_label == COMPACT_BUFFER
    # warning: threshold − 20,000 where the threshold is the effective window when auto-compaction is off
    assert t.warning == effective - 20_000 == 160_000
    rows = tl.breakdown_at(tl.last)
    used = STARTUP_200K + 100
    assert rows[COMPACT_BUFFER] == 3_000
    assert AUTOCOMPACT_BUFFER not in rows
    assert rows[FREE_SPACE] == 200_000 - used - 3_000


def test_autocompact_off_never_compacts_and_refuses_a_request_over_the_blocking_limit() -> None:
    # 17,980 + 160,000 = 177,980 > 177,000: far over the 167,000 threshold, but auto-compaction is off, so
    # the request fails as too long: the reply never enters the window, and the next request is refused too
    tl = timeline("autocompact: off\nevents:\n  - reply: 160k\n  - reply: 1k\n")
    assert steps_of_kind(tl, "auto-compact") == []
    assert tl.used_at(tl.last) == STARTUP_200K
    reply = steps_of_kind(tl, "reply")[0]
    assert any("177,980 > the blocking limit 177,000" in n for n in reply.notes), reply.notes
    assert tl.steps[-1].kind == "note" and tl.steps[-1].label == "blocked: reply"


def test_autocompact_size_caps_window_on_1m_model() -> None:
    window, t = thresholds_of("model: claude-sonnet-5\nautocompact: 500k\n")
    assert window == 1_000_000
    assert t.autocompact == min(1_000_000, 500_000) - 20_000 - 13_000 == 467_000
    assert t.buffer == 1_000_000 - 467_000
    assert t.blocking == 1_000_000 - 20_000 - 3_000  # the blocking limit still comes from the real window


def test_autocompact_size_above_window_changes_nothing() -> None:
    _, t = thresholds_of("model: claude-sonnet-4-6\nautocompact: 500k\n")
    assert t.autocompact == min(200_000, 500_000) - 20_000 - 13_000 == 167_000


def test_autocompact_pct_lowers() -> None:
    _, t = thresholds_of("autocompact_pct: 50\n")
    assert t.autocompact == min(180_000 * 50 // 100, 167_000) == 90_000
    assert t.warning == 90_000 - 20_000
    assert t.buffer == 200_000 - 90_000


@pytest.mark.parametrize(("pct", "expected"), [(95, 167_000), (100, 167_000), (92.8, 167_000), (92.7, 166_860)])
def test_autocompact_pct_only_lowers(pct: float, expected: int) -> None:
    _, t = thresholds_of(f"autocompact_pct: {pct}\n")
    # min(floor(180,000 × p / 100), 167,000): 95% = 171,000 → 167,000; 92.8% = 167,040 → 167,000;
    # 92.7% = 166,860
    assert t.autocompact == expected


def test_unknown_model_is_200k_and_said() -> None:
    tl = timeline("model: claude-mystery-9\n")
    assert tl.window == 200_000
    assert tl.thresholds.autocompact == 200_000 - min(32_000, 20_000) - 13_000
    assert len(tl.notices) == 1
    assert "claude-mystery-9" in tl.notices[0]


def test_known_model_has_no_notice() -> None:
    assert timeline("model: claude-sonnet-4-6\n").notices == ()


def test_profile_override_of_buffer() -> None:
    _, t = thresholds_of("profile: {autocompact_buffer: 23000}\n")
    assert t.autocompact == 200_000 - 20_000 - 23_000 == 157_000


# --- when auto-compaction triggers -----------------------------------------------------------------
THRESHOLD = 167_000


def test_autocompact_triggers_exactly_at_threshold() -> None:
    reply = THRESHOLD - STARTUP_200K  # 149,020: used = 167,000 exactly after the reply
    tl = timeline(f"events:\n  - reply: {reply}\n  - prompt: next\n")
    kinds = [s.kind for s in tl.steps if s.kind != "startup"]
    assert kinds == ["reply", "auto-compact", "prompt"]
    reply_step = steps_of_kind(tl, "reply")[0]
    assert reply_step.used == THRESHOLD
    compaction = steps_of_kind(tl, "auto-compact")[0]
    assert compaction.index == reply_step.index + 1
    # history (the reply) replaced by the 4,000-token default summary
    assert compaction.used == STARTUP_200K + P.summary_tokens == 17_980 + 4_000
    assert any("167,000" in n for n in compaction.notes)


def test_autocompact_not_below_threshold() -> None:
    reply = THRESHOLD - STARTUP_200K - 1  # 166,999
    tl = timeline(f"events:\n  - reply: {reply}\n  - note: nothing added\n")
    assert steps_of_kind(tl, "auto-compact") == []
    assert steps_of_kind(tl, "reply")[0].used == THRESHOLD - 1


def test_autocompact_triggers_above_threshold_mid_session() -> None:
    tl = timeline("events:\n  - reply: 100k\n  - reply: 49019\n  - reply: 2\n  - reply: 10\n")
    # 17,980 + 100,000 + 49,019 = 166,999 < 167,000; + 2 = 167,001 ≥ 167,000
    kinds = [s.kind for s in tl.steps if s.kind != "startup"]
    assert kinds == ["reply", "reply", "reply", "auto-compact", "reply"]
    assert tl.used_at(tl.last) == 17_980 + 4_000 + 10


def test_autocompact_with_lowered_threshold() -> None:
    tl = timeline("autocompact_pct: 50\nevents:\n  - reply: 72020\n  - reply: 1\n")
    # threshold 90,000; 17,980 + 72,020 = 90,000 → compacts at once
    kinds = [s.kind for s in tl.steps if s.kind != "startup"]
    assert kinds == ["reply", "auto-compact", "reply"]


def test_autocompact_at_size_cap_on_1m_model() -> None:
    tl = timeline("model: claude-sonnet-5\nautocompact: 500k\nevents:\n  - reply: 449020\n  - reply: 1\n")
    # threshold 467,000 = 17,980 + 449,020
    kinds = [s.kind for s in tl.steps if s.kind != "startup"]
    assert kinds == ["reply", "auto-compact", "reply"]


def test_autocompact_checked_once_after_a_parallel_group() -> None:
    # Parallel results arrive together before the next model call: one check after the group.
    tl = timeline(
        """
        events:
          - reply: 149000
          - parallel:
              - bash: {command: a, output: 30}
              - bash: {command: b, output: 30}
          - reply: 1
        """
    )
    # 17,980 + 149,000 = 166,980; first bash: + 60 + 30 = 167,070 ≥ 167,000 but the group is not done
    kinds = [s.kind for s in tl.steps if s.kind != "startup"]
    assert kinds == ["reply", "bash", "bash", "auto-compact", "reply"]
    assert steps_of_kind(tl, "bash")[1].used == 166_980 + 2 * (60 + 30)
