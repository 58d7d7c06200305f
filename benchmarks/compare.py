"""Compare speed: one scenario of N events under every profile, phase by phase.

    python benchmarks/compare.py [--events 10000] [--repeat 3]

Prints the YAML load, the runs (simulation of every profile and the event alignment), the table, the
JSON writing (each best of --repeat, in-process), and ``ctxviz compare --json`` / ``--table`` end to end
(including Python's start-up), wall and CPU. Goal (issue 7): 10,000 events under all 8 profiles in
≤ 4 s. On a loaded machine the wall figures grow with the load; the CPU figure is the steadier one, and
paired whole-process runs (A and B alternated) compare two versions. Measured 2026-12-01, 5 rounds
paired with the version before (medians): --table 3.03 s (was 4.27 s), --json 2.07 s (was 3.39 s);
both now run as one-shot commands (no cyclic collector passes, no teardown) and the tables are printed
without Rich cropping lines already cut to width.
"""

from __future__ import annotations

import argparse
import io
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from ctxviz.report.compare import comparison_renderable
from ctxviz.report.compare_json import dump_bytes
from ctxviz.report.compare_runs import agent_names, compare, parse_run_specs
from ctxviz.scenario_file import load_scenario
from ctxviz.tokens import CharsPerToken
from ctxviz.whatif import Settings

sys.path.insert(0, str(Path(__file__).parent))
from engine import best, scenario_text  # noqa: E402  (the engine benchmark's timing and generated session)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    agents = agent_names()
    specs = parse_run_specs(None, agents)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.yaml"
        path.write_text(scenario_text(args.events))
        load_time, scenario = best(args.repeat, lambda: load_scenario(path, counter=CharsPerToken()))
        runs_time, comparison = best(args.repeat, lambda: compare(scenario, specs, Settings()))
        json_time, data = best(args.repeat, lambda: dump_bytes(comparison))
        console = Console(file=io.StringIO(), width=200)
        table_time, _ = best(1, lambda: console.print(comparison_renderable(comparison, 200), crop=False))
        command = [sys.executable, "-m", "ctxviz", "--tokenizer", "chars4", "compare", str(path)]
        cpu_before = children_cpu()
        json_e2e, _ = best(args.repeat, lambda: subprocess.run([*command, "--json"], check=True, capture_output=True))
        json_cpu = (children_cpu() - cpu_before) / args.repeat
        table_e2e, _ = best(1, lambda: subprocess.run([*command, "--table"], check=True, capture_output=True))
    steps = sum(len(run.timeline.steps) for run in comparison.runs)
    print(f"{args.events:,} events × {len(specs)} runs ({', '.join(agents)}): {steps:,} steps in all")
    print(f"load {load_time:.3f}s · runs {runs_time:.3f}s · json {json_time:.3f}s ({len(data) / 1e6:.1f} MB)"
          f" · table {table_time:.3f}s")  # fmt: skip
    print(f"ctxviz compare --json end to end: {json_e2e:.3f}s wall, {json_cpu:.3f}s CPU (user + system, mean)"
          f" · --table: {table_e2e:.3f}s wall (goal ≤ 4 s)")  # fmt: skip


if __name__ == "__main__":
    main()
