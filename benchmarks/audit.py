"""Audit speed: ``ctxviz audit`` of a real session, by phase, in CPU seconds (the machine is shared).

    python benchmarks/audit.py [SESSION.jsonl …] [--repeat 3]

Phases: read the session and work out its carried cost (every item's tokens × calls); import it as a
scenario; the findings (one replay as recorded, then one per what-if and one per other profile). Goal
(issue 17): a 3 MB session audited in ≤ 2 s, whole process. For the whole command with its start-up,
time ``ctxviz audit SESSION --json`` with paired whole-process runs (on a busy machine: quote the median).

Measured 2026-12-01 on 2 shared cores under a load average of 8–10 from other work (wall times are
inflated by the wait for a core; CPU times are the steadier figure), four real Claude Code sessions:

    session (MB, calls)        read+cost  import  findings   whole process, median of 5
                               (in process, CPU, median of 3)  cpu      wall     peak
    0f_c364a22bea (3.1, 202)   0.03 s     0.10 s  0.06 s    0.75 s   2.68 s   50 MiB
    2a_075ef186b4 (3.9, 253)   0.03 s     0.13 s  0.07 s    0.80 s   3.29 s   54 MiB
    44_785715c3f5 (2.2, 149)   0.03 s     0.11 s  0.08 s    0.74 s   2.06 s   48 MiB
    cd_95adddad32 (3.9, 225)   0.03 s     0.13 s  0.07 s    0.99 s   2.92 s   54 MiB

Linear in size: the first session written 3 and 10 times over (fresh ids, one chain; 606 and 2,020
calls, input_tokens exactly 3 and 10 times 18,185,116): 9.6 MB 1.07 s CPU, 76 MiB; 32 MB 1.99 s CPU,
144 MiB (median of 3; in process 0.27 + 0.88 + 0.56 s). About 0.05 s and 4.5 MiB more per MB beyond
the start-up.

The audit's own work is ~0.2 s of a 3 MB session's ~0.75 s: Python's start-up and the imports (the
engine, the scenario models, the importer) take the rest. Of that work the import is the largest
phase, then the findings' 11 replays; the carried cost is one pass over the blocks, a bisection each.
Not measured: a 1 GB session (none was at hand; the reader and the import hold a whole session in
memory, so at ~4.5 MiB per MB its peak would be some GiB).
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
