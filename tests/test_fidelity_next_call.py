"""Where the size after a compaction is scored: the first call after both the session's compaction and
the replay's, so that a replay that compacted a call or two late is not scored as an uncompacted window
against a compacted one (its lateness is the offset, scored apart)."""

from __future__ import annotations

from ctxviz.importer.fidelity import CallFit, CompactionFit, scored_next_call

# calls 1..10 measured; the session compacted after call 5 (in segment 5: the next call is 6)
SIZES = {n: CallFit(n, 1_000 * n, 1_000 * n) for n in range(1, 11)}


def test_same_call_or_earlier_is_scored_at_the_sessions_next_call() -> None:
    assert scored_next_call(6, 5, SIZES) == 6
    assert scored_next_call(6, 3, SIZES) == 6  # the replay compacted two calls early: it has grown since


def test_a_late_replay_is_scored_at_the_first_call_after_its_own_compaction() -> None:
    assert scored_next_call(6, 7, SIZES) == 8
    assert scored_next_call(6, 10, SIZES) is None  # no call after the replay's: nothing to score


def test_a_replay_that_never_compacted_is_scored_uncompacted() -> None:
    assert scored_next_call(6, None, SIZES) == 6


def test_no_measured_call_after_the_compaction() -> None:
    assert scored_next_call(11, 5, SIZES) is None


def test_the_error_is_taken_at_that_call() -> None:
    # measured 33,441 and replayed 56,457 at the scored call: (56,457 - 33,441) / 33,441 = 68.83%
    fit = CompactionFit("auto", 30, 30, 33_441, 56_457, 154_764, 31)
    assert fit.next_error is not None and round(fit.next_error, 2) == 68.83
