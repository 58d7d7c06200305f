"""Audit speed: ``ctxviz audit`` of a real session, by phase, in CPU seconds (the machine is shared).

    python benchmarks/audit.py [SESSION.jsonl …] [--repeat 3]

Phases: read the session and work out its carried cost (every item's tokens × calls); import it as a
scenario; the findings (one replay as recorded, then one per what-if and one per other profile). Goal
(issue 17): a 3 MB session audited in ≤ 2 s, whole process. For the whole command with its start-up,
time ``ctxviz audit SESSION --json`` with paired whole-process runs (on a busy machine: quote the median).

Measured 2026-12-02 (this branch, one more replay than before: the dedup what-if always runs, its
references being the repeated-content finding's items), farm-bench, whole ``ctxviz audit SESSION --json``
process, median of 5, on 2 shared cores under a load average of 12-13 (wall times are the wait for a
core, up to 10 s; CPU seconds are the figure to read). A is this branch, B main at a3e6d3a:

    session (MB)           cpu A    cpu B   A/B cpu (paired)  peak A
    44_785715c3f5 (2.2)    1.40 s   1.42 s  0.98              49 MiB
    0f_c364a22bea (3.1)    1.40 s   1.43 s  1.00              51 MiB
    18_4069756ffc (3.3)    1.22 s   -       -                 51 MiB
    cd_95adddad32 (3.9)    1.13 s   -       -                 55 MiB

So a 3 MB session is audited in 1.1-1.4 s of CPU, within the 2 s asked (the same figures were 0.75-0.99 s
on 2026-12-01 at a lighter load; CPU time itself grows on a machine this busy). About 0.8 s of it is
importing the modules (the scenario models' pydantic schemas are most of that: ``python -X importtime``).

With the machine almost idle (two other jobs), main after the issue-17 merge, ``farm-bench -n 5`` of
``ctxviz audit`` on 2a_075ef186b4 (3.9 MB unpacked): wall 1.64 / 1.93 / 2.07 s (min / median / max),
CPU 1.41 s median, peak 54.7 MiB.

Large sessions: Claude Code sessions of many small calls as benchmarks/big_session.py writes them (20
MB, 8,932 calls; 152 MB; 1 GB, 446,583 calls), ``/usr/bin/time -v``, same load:

    MB      cpu s    peak MiB
    20      5.8        239      (4.7 s, 206 MiB on main at a lighter moment)
    152    29.3       1300      (main a3e6d3a)
    1004   110.3*     4912*    (* killed by ``timeout 900`` after 15:05 wall, still importing)

In process, by phase (152 MB, gc off as the command runs): reading the session and its carried cost
4.2 s CPU, +139 MiB; importing it as a scenario 22.9 s, +1,098 MiB; the findings' replays (as
recorded, one per what-if, one per other profile) 14.9 s, +136 MiB.
Memory grows with the import: about 7.3 MiB per MB of session (its pydantic event models are about 40%
of what it holds, then the calibration replays' timelines, the draft, and the YAML text it writes and
parses back), against about 1.2 MiB per MB for the audit's own reading. So a 1 GB session of small
calls needs about 8.3 GiB, most of it the import's; a real session of larger calls grows less (below).
The 1 GB run, capped at 900 s of wall time under a load average of 12, got 110 s of CPU: by the 152 MB
phases scaled up (read and cost ~28 s, import ~150 s, findings ~100 s) it was in the import, whose
memory had reached 4.8 GiB. Linear scaling of those phases puts the whole audit near 280 s of CPU and
8.3 GiB: far over 1 GB, and what grows is the import (an audit that needs no replay, or one that
replays from a leaner import, would stay near the reading's 1.2 MiB per MB).

Earlier (2026-12-01), a 312 MB session (benchmarks/audit_large.py: 0f_c364a22bea written 1, 10 and 100
times over as one chain, whole ``ctxviz audit --json`` process, one run each, 2 shared cores under a
load average of 9-10 and a full test suite running beside it):

    MB      calls   input_tokens (= N x 18,185,116)   cpu s   wall s   peak MiB
    3.1       202      18,185,116                      1.24     4.72       51
    31.2    2,020     181,851,160                      3.73    14.21      140
    312.6  20,200   1,818,511,600                     58.58   282.97      990

Memory is linear: ~3.1 MiB per MB at both steps (so a 1 GB session would peak near 3.2 GiB). CPU is
not: 0.089 s per MB from 3 to 31 MB, 0.195 s per MB from 31 to 312 MB (the last run had more beside it,
but CPU time does not double from contention alone); where it goes was not profiled. A 1 GB session
was not run (at that rate, 3-4 CPU minutes).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from pathlib import Path

from ctxviz.importer import session_to_scenario
from ctxviz.report.audit import carried_cost
from ctxviz.report.audit_findings import findings
from ctxviz.transcripts.registry import read_target

DEFAULT = (
    Path(__file__).resolve().parents[1]
    / "tests/fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
)


def phases(session: Path) -> tuple[float, float, float, int, int]:
    start = time.process_time()
    timeline = read_target(session).timeline
    cost = carried_cost(timeline)
    read = time.process_time()
    imported = session_to_scenario(session)
    imported_at = time.process_time()
    found = findings(imported.scenario, cost, call_events=[c.after_event for c in imported.calls],
                     window=timeline.window)  # fmt: skip
    end = time.process_time()
    return read - start, imported_at - read, end - imported_at, cost.calls, len(found)


def main() -> None:
    gc.disable()  # as the command runs (ctxviz.process.one_shot): with the collector on, 32 MB took 4x as long
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("sessions", nargs="*", type=Path, default=[DEFAULT])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'session':40} {'MB':>5} {'calls':>5}  read+cost  import  findings  (medians of {args.repeat})")
    for session in args.sessions:
        runs = [phases(session) for _ in range(args.repeat)]
        read, imported, found = (statistics.median(run[n] for run in runs) for n in range(3))
        calls = runs[0][3]
        print(f"{session.name[:40]:40} {session.stat().st_size / 1e6:5.1f} {calls:5}  {read:8.2f}s {imported:6.2f}s "
              f"{found:8.2f}s")  # fmt: skip


if __name__ == "__main__":
    main()
