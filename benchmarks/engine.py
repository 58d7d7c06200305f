"""Engine speed: generate scenarios of 1,000 / 10,000 / 100,000 events and time each phase.

    python benchmarks/engine.py [--sizes 1000,10000,100000] [--repeat 3]

Prints, per size: YAML load + validation, simulation, JSON writing (in-process, best of --repeat), and
`ctxviz run --json` end to end minus a bare `python -c "import ctxviz.cli"` start-up. Goals (issue 7):
`run --json` end to end beyond start-up ≤ 0.5 s at 10,000 events and ≤ 5 s at 100,000, cost linear in
events. On a shared machine, compare two versions with paired runs rather than this.

Measured 2026-12-01 on a shared 2-core machine (load average 2.4–4.5 from other work, so every figure
is noisy), whole `ctxviz --tokenizer chars4 run X --json` processes, A and B alternated, medians:

    events   before (cpu / wall)   after (cpu / wall)   after/before (paired cpu)   load
    10,000   0.733 s / 0.743 s     0.603 s / 0.610 s    0.83                        2.9 → 2.5
   100,000   5.55 s / 7.41 s       4.50 s / 6.14 s      0.77                        4.4 → 3.4

Start-up (`python -c "import ctxviz.cli"`) was 0.065 s cpu / 0.066 s wall then, so beyond start-up
10,000 events went from about 0.68 s to 0.54 s wall; this script's own last column read 0.630 s
before and 0.512 s after. Peak memory grew 5 % (92.6 → 97.3 MiB; 100k: 592 → 634 MiB): with the
cyclic collector off for the whole command, the little cyclic garbage of imports stays until exit.
Where the 10,000-event run's time goes now (cpu): importing the engine, the profiles and the
pydantic scenario model 0.19 s, loading the YAML 0.17 s (libyaml composing 0.08, building plain
data 0.05, pydantic validation 0.045, checks 0.016), simulating 0.13 s, writing JSON 0.04 s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ctxviz.engine import simulate
from ctxviz.report.json import dumps
from ctxviz.scenario.load import load_scenario
from ctxviz.tokens import CharsPerToken

FILES = 40


def scenario_text(events: int) -> str:
    """A long session: prompts, reads (rules and nested memory trigger), edits, searches, bash,
    skills, subagents and replies in a fixed rotation; auto-compaction happens on its own."""
    lines = [
        "name: benchmark",
        "model: claude-sonnet-4-6",
        "setup:",
        "  memory: {CLAUDE.md: 2k}",
        "  rules:",
        "    .claude/rules/api.md: {tokens: 400, paths: ['src/api/**']}",
        "    .claude/rules/tests.md: {tokens: 300, paths: ['tests/**']}",
        "  skills: [{name: s1, description: 100, body: 6k}, {name: s2, description: 80, body: 3k}]",
        "  hooks: [{event: PostToolUse, matcher: Edit, name: fmt, adds: 100}]",
        "files:",
        "  src/api/CLAUDE.md: 500",
    ]
    lines += [f"  src/api/m{n}.py: {1_000 + 137 * n}" for n in range(FILES // 2)]
    lines += [f"  tests/t{n}.py: {800 + 91 * n}" for n in range(FILES // 2)]
    lines.append("events:")
    # one prompt in 10 events and one subagent in 20, as in a busy real session
    rotation = [
        "  - prompt: 'work on item {n}'",
        "  - read: src/api/m{a}.py",
        "  - read: tests/t{b}.py",
        "  - grep: {{pattern: 'x{n}', matches: {m}}}",
        "  - edit: {{path: src/api/m{a}.py, change: 300}}",
        "  - bash: {{command: 'pytest -q', output: {{chars: {c}}}}}",
        "  - reply: 700",
        "  - read: src/api/m{b}.py",
        "  - skill: s{s}",
        "  - reply: 400",
        "  - prompt: 'and item {n}'",
        "  - read: tests/t{a}.py",
        "  - glob: {{pattern: 'src/**/*{n}.py', matches: {m}}}",
        "  - edit: {{path: tests/t{a}.py, change: 200}}",
        "  - subagent: {{type: Explore, reads: [src/api/m{b}.py, tests/t{a}.py], returns: {r}}}",
        "  - bash: {{command: 'pytest -q', output: {{chars: {c}}}}}",
        "  - reply: 900",
        "  - read: src/api/m{b}.py",
        "  - edit: {{path: src/api/m{b}.py, change: 250}}",
        "  - reply: 300",
    ]
    for n in range(events):
        lines.append(
            rotation[n % len(rotation)].format(
                n=n,
                a=n % (FILES // 2),
                b=(n * 7) % (FILES // 2),
                m=(n * 13) % 400,
                c=(n * 997) % 60_000,
                s=1 + n % 2,
                r=300 + n % 997,
            )
        )
    return "\n".join(lines) + "\n"


def best(repeat: int, run):  # noqa: ANN001, ANN201
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    counter = CharsPerToken()
    startup, _ = best(args.repeat, lambda: subprocess.run([sys.executable, "-c", "import ctxviz.cli"], check=True))
    print(f"python start-up + import ctxviz.cli: {startup * 1000:.0f} ms (subtracted below)")
    print(
        f"{'events':>8} {'steps':>8} {'blocks':>8} {'load':>8} {'simulate':>9} {'json':>8} "
        f"{'sim+json':>9} {'per 1k ev':>9} {'cli e2e−startup':>16}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for size in (int(s) for s in args.sizes.split(",")):
            path = Path(folder) / f"bench-{size}.yaml"
            path.write_text(scenario_text(size))
            load_time, scenario = best(args.repeat, lambda path=path: load_scenario(path, counter=counter))
            sim_time, timeline = best(args.repeat, lambda scenario=scenario: simulate(scenario))
            json_time, text = best(args.repeat, lambda timeline=timeline: dumps(timeline))
            command = [sys.executable, "-m", "ctxviz", "--tokenizer", "chars4", "run", str(path), "--json"]
            e2e, _ = best(
                1 if size > 10_000 else args.repeat,
                lambda command=command: subprocess.run(command, check=True, capture_output=True),
            )
            print(
                f"{size:>8,} {len(timeline.steps):>8,} {len(timeline.blocks):>8,} {load_time:>7.3f}s "
                f"{sim_time:>8.3f}s {json_time:>7.3f}s {sim_time + json_time:>8.3f}s "
                f"{(sim_time + json_time) / size * 1000:>8.3f}s {e2e - startup:>15.3f}s"
            )
            del text


if __name__ == "__main__":
    main()
