"""Independent jobs shared among forked copies of this process, the results in job order.

The jobs are cut into one contiguous share per CPU, of about equal weight (bytes to read). This process
does the first share itself while one forked child per other share works on its own and sends its
results back through a pipe, pickled, then ends without running any exit handler. Compared with a
process pool there is no pool to start, no manager thread and no per-job round trip: on the sessions
benchmark that was about 20 ms of a 130 ms summary of 97 MB.

Whatever goes wrong in a child (an exception the job did not turn into a result, a signal, a result
that does not unpickle) only costs time: its share is done again here, where the error surfaces as it
would have without children. Forking is done only where it is safe: where ``os.fork`` exists and this
process runs no other thread.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")


def shares(weights: Sequence[int], count: int) -> list[range]:
    """``count`` contiguous ranges of job indices covering every job in order, each cut where the
    running weight reaches the next equal part of the total (a range may be empty: few or huge jobs)."""
    total = sum(weights)
    bounds = [0]
    running = 0
    for n, weight in enumerate(weights):
        running += weight
        while len(bounds) < count and running * count >= total * len(bounds):
            bounds.append(n + 1)
    bounds += [len(weights)] * (count + 1 - len(bounds))
    return [range(start, end) for start, end in zip(bounds, bounds[1:], strict=False)]


def can_fork() -> bool:
    """Whether forking is safe: ``os.fork`` exists and this process runs one thread (none was started
    if the threading module was never imported, which spares a cold run importing it)."""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def _run_child(function: Callable[[Job], Result], jobs: Sequence[Job], share: range) -> tuple[int, int]:
    """Fork a child that does ``share`` and writes its pickled results to a pipe: (pid, read end)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(read_end)
            data = pickle.dumps([function(jobs[n]) for n in share], protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def _child_results(pid: int, read_end: int, expected: int) -> list[Any] | None:
    """The child's results, or None when it failed in any way."""
    with os.fdopen(read_end, "rb") as results:
        data = results.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    try:
        loaded = pickle.loads(data)  # written by our own forked child a moment ago
    except Exception:  # a damaged pipe is a failed child: its share is redone here
        return None
    return loaded if isinstance(loaded, list) and len(loaded) == expected else None


def map_in_shares(
    function: Callable[[Job], Result], jobs: Sequence[Job], weights: Sequence[int], workers: int
) -> Iterator[Result]:
    """``function`` of each job, in job order; the results of this process's share are yielded as they
    are made (a progress display moves), then each child's."""
    if workers < 2 or len(jobs) < 2 or not can_fork():
        yield from map(function, jobs)
        return
    own, *others = shares(weights, workers)
    children: list[tuple[int, int, range]] = []
    try:
        for share in others:
            if share:
                children.append((*_run_child(function, jobs, share), share))
        for n in own:
            yield function(jobs[n])
        while children:
            pid, read_end, share = children[0]
            results = _child_results(pid, read_end, len(share))
            children.pop(0)
            yield from (function(jobs[n]) for n in share) if results is None else results
    finally:
        for pid, read_end, _ in children:  # left early (an error, or the caller stopped): end the rest
            _end_child(pid, read_end)


def _end_child(pid: int, read_end: int) -> None:
    import signal

    with contextlib.suppress(OSError):
        os.close(read_end)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
