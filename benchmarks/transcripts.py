"""Transcript reading speed: ``ctxviz sessions --json`` and a full per-call breakdown over a ~97 MB corpus.

The corpus is 32 copies of the spotter session (``../shared/transcripts``) with fresh session and
message ids, written as compact JSON in a projects root. Each command runs as a subprocess with
CLAUDE_CONFIG_DIR pointed at the corpus and HOME at an empty folder; the median of several runs is
printed. If ccusage is installed (CCUSAGE=/path/to/ccusage), it is timed in the same run.

    python benchmarks/transcripts.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPOTTER = ROOT.parent / "shared/transcripts/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
COPIES = 32
PROJECT = "-home-USER-projects-spotter-worktrees-spotter-dov"

# Every session's timeline, built in full (all calls, all blocks), and its /context at the last call.
BREAKDOWN = """
import sys
from ctxviz.transcripts.discover import config_roots, session_files
from ctxviz.transcripts.load import read_transcript
from ctxviz.report.context_data import context_dict
files = session_files(config_roots())
steps = 0
for f in files:
    timeline = read_transcript(f.path).timeline
    context_dict(timeline, timeline.last)
    steps += len(timeline.steps)
print(len(files), steps)
"""


def build_corpus(config: Path) -> int:
    project = config / "projects" / PROJECT
    project.mkdir(parents=True)
    lines = SPOTTER.read_text().splitlines()
    total = 0
    for n in range(COPIES):
        session = str(uuid.UUID(int=n + 1))
        out = []
        for line in lines:
            record = json.loads(line)
            if "sessionId" in record:
                record["sessionId"] = session
            message = record.get("message")
            if isinstance(message, dict) and "id" in message:
                message["id"] = f"{message['id']}_{n:02d}"
            out.append(json.dumps(record, separators=(",", ":"), ensure_ascii=False))
        path = project / f"{session}.jsonl"
        path.write_text("\n".join(out) + "\n")
        total += path.stat().st_size
    return total


def timed(command: list[str], env: dict[str, str], runs: int) -> tuple[float, str]:
    times = []
    output = ""
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - start)
        output = done.stdout
    return statistics.median(times), output


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config, home = Path(tmp) / "config", Path(tmp) / "home"
        home.mkdir()
        size = build_corpus(config)
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config), "HOME": str(home), "PYTHONPATH": str(ROOT)}
        print(f"corpus: {COPIES} sessions, {size / 2**20:.1f} MiB ({size:,} bytes)")
        python = sys.executable
        startup, _ = timed([python, "-c", "import ctxviz.cli"], env, args.runs)
        sessions, out = timed([python, "-m", "ctxviz", "sessions", "--json"], env, args.runs)
        assert len(json.loads(out)) == COPIES
        breakdown, out = timed([python, "-c", BREAKDOWN], env, args.runs)
        print(f"python + import ctxviz.cli         {startup:6.3f} s")
        print(f"ctxviz sessions --json             {sessions:6.3f} s")
        print(f"full breakdown (every call)        {breakdown:6.3f} s   ({out.strip()} files/steps)")
        ccusage = os.environ.get("CCUSAGE")
        if ccusage:
            theirs, _ = timed([ccusage, "claude", "session", "--json", "--offline"], env, args.runs)
            print(f"ccusage claude session --json      {theirs:6.3f} s")
            print(f"sessions / ccusage                 {sessions / theirs:6.2f}×")
            print(f"breakdown / ccusage                {breakdown / theirs:6.2f}×")


if __name__ == "__main__":
    main()
