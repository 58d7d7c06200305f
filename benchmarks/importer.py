"""Import + fidelity speed: ``session_to_scenario`` and ``fidelity`` of a ~3 MB real session.

    python benchmarks/importer.py [SESSION.jsonl] [--repeat 5]

Prints the best and median in-process time of each phase (read + draft + calibrate, then the replay and
comparison) and of both together. Goal (issue 9): import + fidelity of a 3 MB session ≤ 1.5 s. For the
whole command with its start-up, time ``ctxviz fidelity SESSION`` with paired whole-process runs (on a
busy machine: quote the median).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from ctxviz.importer import session_to_scenario
from ctxviz.importer.fidelity import fidelity_of

DEFAULT = (
    Path(__file__).resolve().parents[1]
    / "tests/fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("session", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    size = args.session.stat().st_size
    imports, fits = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = session_to_scenario(args.session)
        middle = time.perf_counter()
        report = fidelity_of(result, args.session.stem)
        end = time.perf_counter()
        imports.append(middle - start)
        fits.append(end - middle)
    totals = [a + b for a, b in zip(imports, fits, strict=True)]
    print(f"{args.session.name}: {size / 1e6:.2f} MB, {len(report.calls)} calls, {len(result.scenario.events)} events")
    for label, times in (("import", imports), ("fidelity replay", fits), ("both", totals)):
        print(f"  {label:16} best {min(times):.3f} s   median {statistics.median(times):.3f} s")


if __name__ == "__main__":
    main()
