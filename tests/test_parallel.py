"""Jobs shared with forked children: same results, same order, and a failed child costs only time."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxviz.parallel import can_fork, map_in_shares, shares

PARENT = os.getpid()


def test_shares_cut_at_equal_parts_of_the_weight() -> None:
    assert shares([1, 1, 1, 1], 2) == [range(0, 2), range(2, 4)]
    assert shares([10, 1, 1, 1], 2) == [range(0, 1), range(1, 4)]
    assert shares([1, 1, 1, 1, 1, 1], 3) == [range(0, 2), range(2, 4), range(4, 6)]
    assert shares([5], 2) == [range(0, 1), range(1, 1)]  # one job: the second share is empty
    assert shares([], 2) == [range(0, 0), range(0, 0)]


@given(st.lists(st.integers(min_value=0, max_value=10**9), max_size=50), st.integers(min_value=1, max_value=8))
def test_shares_cover_every_job_once_in_order(weights: list[int], count: int) -> None:
    cut = shares(weights, count)
    assert len(cut) == count
    assert [n for share in cut for n in share] == list(range(len(weights)))


def _square_and_where(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def _fails_in_a_child(n: int) -> int:
    if os.getpid() != PARENT:
        raise RuntimeError("a bug that only shows in a child")
    return -n


def _exits_in_a_child(n: int) -> int:
    if os.getpid() != PARENT:
        os._exit(3)
    return n + 1


needs_fork = pytest.mark.skipif(not can_fork(), reason="no os.fork, or other threads run in this process")


@needs_fork
def test_results_come_back_in_job_order_and_children_did_their_share() -> None:
    jobs = list(range(40))
    results = list(map_in_shares(_square_and_where, jobs, [1] * len(jobs), workers=3))
    assert [square for square, _ in results] == [n * n for n in jobs]
    workers = [pid for _, pid in results]
    assert workers[:14] == [PARENT] * 14  # the first share is done here
    assert len(set(workers[14:])) == 2 and PARENT not in workers[14:]


@needs_fork
def test_a_child_that_raises_or_dies_has_its_share_done_here() -> None:
    jobs = list(range(10))
    assert list(map_in_shares(_fails_in_a_child, jobs, [1] * 10, workers=2)) == [-n for n in jobs]
    assert list(map_in_shares(_exits_in_a_child, jobs, [1] * 10, workers=2)) == [n + 1 for n in jobs]


def test_an_error_in_this_process_share_is_raised_as_without_children() -> None:
    def fails_on_two(n: int) -> int:
        if n == 2:
            raise ValueError("two")
        return n

    with pytest.raises(ValueError, match="two"):
        list(map_in_shares(fails_on_two, list(range(10)), [1] * 10, workers=2))


def test_one_worker_or_one_job_runs_here() -> None:
    assert list(map_in_shares(_square_and_where, [3], [1], workers=4)) == [(9, PARENT)]
    assert list(map_in_shares(_square_and_where, [1, 2], [1, 1], workers=1)) == [(1, PARENT), (4, PARENT)]


@needs_fork
def test_sessions_summarised_in_shares_are_those_summarised_one_by_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    from ctxviz.transcripts.claude_code.discover import session_files
    from ctxviz.transcripts.claude_code.summary import summarize, summarize_all

    fixture = Path(__file__).parent / "fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    project = tmp_path / "projects" / "-home-u-app"
    project.mkdir(parents=True)
    text = fixture.read_bytes()
    for n in range(8):  # 8 files of 3 MB: above the sizes where work is shared
        (project / f"s{n}.jsonl").write_bytes(text if n != 5 else text + b"{not json\n")
    (project / "s8.jsonl").write_bytes(b"\xff\xfe" + "{}".encode("utf-16-le"))  # unreadable as UTF-8
    files = session_files([tmp_path])
    assert len(files) == 9
    one_by_one = []
    for f in files:
        try:
            one_by_one.append(summarize(f.path, f.project_dir))
        except Exception as error:  # noqa: BLE001 - compared by message below
            one_by_one.append(error)
    shared = list(summarize_all(files))
    assert [str(r) if isinstance(r, Exception) else r for r in shared] == [
        str(r) if isinstance(r, Exception) else r for r in one_by_one
    ]
    assert [r.calls for r in shared[:8]] == [139] * 8 and [r.peak for r in shared[:8]] == [164_831] * 8
    assert shared[5].problems and "s5.jsonl" in shared[5].problems[0]  # the damaged line, located
    assert "UTF-16" in str(shared[8])  # why the last file could not be read


def test_the_sessions_progress_bar_runs_no_thread_so_the_summaries_can_still_fork() -> None:
    import threading

    from ctxviz.report.sessions import with_progress_bar

    seen = []
    for n in with_progress_bar(iter(range(25)), 25):
        seen.append((n, threading.active_count(), can_fork()))
    assert [n for n, _, _ in seen] == list(range(25))
    assert {threads for _, threads, _ in seen} == {1}
    assert all(forkable for _, _, forkable in seen) is hasattr(os, "fork")
