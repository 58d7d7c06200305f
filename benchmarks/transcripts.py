"""Transcript reading speed and memory, beside ccusage, from a clean clone.

Speed: a ~97 MB corpus of 32 copies of the vendored spotter session (tests/fixtures/claude-code), with
fresh session and message ids, in a projects root. ``ctxviz sessions --json`` runs cold (an empty cache
folder: no summary index yet) and warm (the index of the run before, nothing changed), and a full
per-call breakdown of every session; ccusage (``ccusage claude session --json --offline``) runs in the
same loop, each round A then B, so a machine that slows down mid-run slows both. Medians and the median
of the per-round ratios are printed. "one changed" is the usual next run: the index is there and the
session being worked in was written since.

Memory (``--memory``): one ~1 GB session (the spotter session repeated, each copy with its own ids,
chained) and the peak resident memory of ``sessions --json --no-cache`` and ``context --json`` on it.

    python benchmarks/transcripts.py [--runs 7] [--memory] [--python PATH]
    python benchmarks/transcripts.py --other-agents 200 [--against ../other-checkout] [--runs 21]
    CCUSAGE=/path/to/ccusage python benchmarks/transcripts.py   # else `ccusage` on PATH, else skipped

ccusage 20 as compared so far: ``npm i --prefix /tmp/cc @ccusage/ccusage-linux-x64@20.0.24`` and
``chmod +x /tmp/cc/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage`` (the package's binary), then
``CCUSAGE=/tmp/cc/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage``. It always runs ``--offline``.

Measured 2026-12-01 (2 cores whose speed drifted with other work on the host; whole processes, A and B
alternated, medians of 25-30 pairs, ctxviz installed with ``pip install .``): warm, ``ctxviz sessions
--json`` 0.037-0.039 s against ccusage's 0.103-0.118 s, paired ratio 0.32-0.38x (0.45-0.47x before
the rows became named tuples, sparing that run the import of dataclasses and inspect); cold
0.154 s against 0.106 s, 1.59x (1.41x in this script's own rounds). The floor, Python starting,
importing msgspec and skipping every byte with it on two cores, took 0.095 s against ccusage's
0.111 s: 0.90x (0.80x in this script's rounds). So a reader that decodes every record with msgspec has
about a tenth of ccusage's time left for everything else, while the summaries' own work per 3 MB file
of 1,500 records is ~2.6 ms beyond that floor (fields kept ~0.6 ms, the loop over the records ~1.3 ms,
the active chain ~0.4 ms, the rest ~0.3 ms): ~40 ms on two cores. Meeting 1.0x cold would take a
compiled line scanner. ccusage's own time varied from 0.09 to 0.24 s between rounds.

Again on 2026-12-02, after the sessions summary began to decode with the timeline's own record
declaration (one Claude parser), 9 rounds with two other jobs running: warm 0.109 s against ccusage's
0.642 s (0.15x per round), cold 0.935 s (1.51x per round), one changed 0.34x; the same order as before.

Other agents (``--other-agents 200``: 200 sessions of each copied from the fixtures, a home per agent,
opencode's two stores apart; the fixtures' sessions without usage included, as failures), measured
2026-12-01 against the commit before their rows and failures were kept in the summary index (two
runs of 25 rounds, A then B; medians, paired ratios): warm ``sessions --json`` codex 0.052-0.077 s
against 0.073-0.105 s (0.72-0.77x: its 50 sessions without usage are no longer read again), pi
0.053-0.073 s against 0.051-0.073 s (0.98-1.02x, nothing changed for it), gemini-cli 0.056-0.084 s
against 0.131-0.202 s (0.42-0.43x), opencode's older files 0.096-0.121 s against 0.296-0.365 s
(0.31-0.34x: its discovery still reads every session's file, and every message and part file is
stat-ed), opencode's database 0.053-0.068 s against 0.81-1.13 s (0.06-0.07x), grok-build
0.068-0.080 s against 0.171-0.188 s (0.41-0.42x). Python's start-up alone is ~0.045 s.
Without the index (``--no-cache``) and "one changed" (the database's file, or the newest session's
file, touched after the index's run), measured 2026-12-01 against the commit before opencode read once
a run what its sessions share (21 rounds, A then B; medians, paired ratios): opencode's database
0.223 s against 0.431 s without the index (0.54x) and 0.218 s against 0.445 s with one changed
(0.51x; a write to the database summarises all its sessions again, and each listed every session);
its older files 0.282 s against 0.330 s (0.87x) and 0.152 s against 0.156 s (0.97x: only the touched
session's project folder, 20 sessions, is read again, each of which read its 20 neighbours). The warm
runs and every other agent within 0.96-1.05x. Most of what is left for the database is opening it once
per session (~0.2 ms each). Before its corpus had opencode's indexes, each query for a message's parts
scanned the whole table: 0.54 s against 0.73 s then, without the index.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPOTTER = ROOT / "tests/fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
COPIES = 32
PROJECT = "-home-USER-projects-spotter-worktrees-spotter-dov"
BIG_BYTES = 1_000_000_000

# Every session's timeline, built in full (all calls, all blocks), and its /context at the last call.
BREAKDOWN = """
from ctxviz.transcripts.claude_code.discover import config_roots, session_files
from ctxviz.transcripts.claude_code.load import read_transcript
from ctxviz.report.context_data import context_dict
files = session_files(config_roots())
steps = 0
for f in files:
    timeline = read_transcript(f.path).timeline
    context_dict(timeline, timeline.last)
    steps += len(timeline.steps)
print(len(files), steps)
"""

# The least any msgspec-based reader can take on this corpus: start Python, import msgspec, and let it skip
# every byte of every file (no field kept), the files shared with one forked child per other CPU, as
# ctxviz shares them. Everything ctxviz does beyond this is what its summaries cost.
FLOOR = """
import os, sys
import msgspec
class Nothing(msgspec.Struct):
    pass
skip = msgspec.json.Decoder(Nothing).decode_lines
files = [os.path.join(d, f) for d, _, names in os.walk(sys.argv[1]) for f in sorted(names) if f.endswith(".jsonl")]
cpus = min(os.cpu_count() or 1, len(files))
share = 0
for n in range(1, cpus):
    if os.fork() == 0:
        share = n
        break
for path in files[share::cpus]:
    with open(path, "rb") as handle:
        skip(handle.read())
if share:
    os._exit(0)
for _ in range(1, cpus):
    os.wait()
"""

# Runs a command and prints its peak resident memory (KiB on Linux) as the last line.
PEAK = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def build_corpus(config: Path) -> int:
    project = config / "projects" / PROJECT
    project.mkdir(parents=True)
    lines = SPOTTER.read_text(encoding="utf-8").splitlines()
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
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
        total += path.stat().st_size
    return total


_UUID = re.compile(rb"\b[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b")


def build_big_session(project: Path, size: int = BIG_BYTES) -> Path:
    """One session of about ``size`` bytes: the spotter session over and over, every uuid and message
    id made new for each copy (so the copies chain into one long conversation, as a user's would)."""
    project.mkdir(parents=True, exist_ok=True)
    session = "4d5611e5-241a-462a-8d15-5122611a9569"
    original = SPOTTER.read_bytes()
    last = re.findall(rb'"uuid":"([0-9a-f-]{36})"', original.rstrip().rsplit(b"\n", 1)[-1])[-1]
    template = _UUID.sub(rb"@COPY@\1", original)
    template = template.replace(b"@COPY@" + session.encode()[8:], session.encode())
    template = template.replace(b'"id":"msg_', b'"id":"msg_@COPY@_')
    # the first record of each copy hangs off the last record of the copy before it
    template = template.replace(b'"parentUuid":null', b'"parentUuid":@PREVIOUS@', 1)
    path = project / f"{session}.jsonl"
    with path.open("wb") as out:
        copy = 0
        while out.tell() < size:
            previous = b"null" if copy == 0 else b'"%08x%s"' % (copy - 1, last[8:])
            out.write(template.replace(b"@PREVIOUS@", previous).replace(b"@COPY@", b"%08x" % copy))
            copy += 1
    return path


def interleaved(commands: dict[str, list[str]], env: dict[str, str], runs: int, before=None) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    """Each command once per round, in turn; ``before(name)`` runs untimed before each (e.g. a cold cache)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            if before is not None:
                before(name)
            start = time.perf_counter()
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
    return times


def ccusage_command() -> list[str] | None:
    found = os.environ.get("CCUSAGE") or shutil.which("ccusage")
    return [found, "claude", "session", "--json", "--offline"] if found else None


def speed(runs: int, python: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config, home, cache = Path(tmp) / "config", Path(tmp) / "home", Path(tmp) / "cache"
        home.mkdir()
        size = build_corpus(config)
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config), "HOME": str(home), "XDG_CACHE_HOME": str(cache),
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        # An installed ctxviz runs from compiled bytecode: let the untimed first run write it.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"corpus: {COPIES} sessions, {size / 2**20:.1f} MiB ({size:,} bytes)")
        sessions = [python, "-m", "ctxviz", "sessions", "--json"]
        out = subprocess.run(sessions, env=env, capture_output=True, text=True, check=True).stdout
        assert len(json.loads(out)) == COPIES
        commands = {
            "start-up (import ctxviz.cli)": [python, "-c", "import ctxviz.cli"],
            "sessions --json, cold": sessions,
            "sessions --json, one changed": sessions,
            "sessions --json, warm": sessions,
            "full breakdown": [python, "-c", BREAKDOWN],
            "floor (start, msgspec skips all)": [python, "-c", FLOOR, str(config / "projects")],
        }
        growing = sorted((config / "projects" / PROJECT).iterdir())[-1]  # the session being worked in
        theirs = ccusage_command()
        if theirs:
            commands["ccusage session --json"] = theirs
        else:
            print("ccusage not found (set CCUSAGE=/path/to/ccusage): ctxviz timed alone")

        def prepare(name: str) -> None:
            if name.endswith("cold"):  # a first run: no index yet
                shutil.rmtree(cache, ignore_errors=True)
            elif name.endswith("warm") or name.endswith("changed"):  # the index of a finished run
                subprocess.run(sessions, env=env, stdout=subprocess.DEVNULL, check=True)
            if name.endswith("changed"):  # the usual next run: the active session was written since
                os.utime(growing, ns=(time.time_ns(), time.time_ns()))

        times = interleaved(commands, env, runs, prepare)
        for name, taken in times.items():
            print(f"{name:32} median {statistics.median(taken):6.3f} s  (min {min(taken):.3f}, max {max(taken):.3f})")
        if theirs:
            base = times["ccusage session --json"]
            for name in (
                "sessions --json, cold",
                "sessions --json, one changed",
                "sessions --json, warm",
                "full breakdown",
                "floor (start, msgspec skips all)",
            ):
                ratios = [a / b for a, b in zip(times[name], base, strict=True)]
                print(f"{name} / ccusage: median {statistics.median(ratios):.2f}×  (per round)")


def memory(python: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config"
        path = build_big_session(config / "projects" / PROJECT)
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config), "HOME": tmp, "XDG_CACHE_HOME": str(Path(tmp) / "cache"),
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        print(f"one session of {path.stat().st_size / 2**20:,.0f} MiB")
        for name, command in {
            "sessions --json --no-cache": [python, "-m", "ctxviz", "sessions", "--json", "--no-cache"],
            "context --json": [python, "-m", "ctxviz", "context", str(path), "--json"],
        }.items():
            start = time.perf_counter()
            done = subprocess.run([python, "-c", PEAK, *command], env=env, capture_output=True, text=True, check=True)
            peak = int(done.stdout.split()[-1]) / 1024
            print(f"{name:28} peak RSS {peak:7.0f} MiB   {time.perf_counter() - start:6.1f} s")


def other_agents(runs: int, python: str, count: int, against: Path | None) -> None:
    """``sessions --json`` on ``count`` sessions of each other agent (one home per agent): warm, without
    the index (``--no-cache``) and with one session written since the index's run ("one changed"). This
    checkout against ``against`` (another checkout, e.g. main) when given: each its own cache folder, A
    then B in every round."""
    from agent_corpus import CORPORA

    checkouts = {"this": ROOT, **({"against": against.resolve()} if against is not None else {})}
    sessions = [python, "-m", "ctxviz", "sessions", "--json"]
    cases = {"warm": sessions, "no-cache": [*sessions, "--no-cache"], "one changed": sessions}
    variables = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "PI_CODING_AGENT_DIR",
                 "GROK_HOME", "PYTHONDONTWRITEBYTECODE")  # fmt: skip
    for agent, build in CORPORA.items():
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            growing = build(home, count)
            base = {name: value for name, value in os.environ.items() if name not in variables}
            envs = {name: {**base, "HOME": str(home), "XDG_CACHE_HOME": f"{tmp}/cache-{name}",
                           "PYTHONPATH": str(checkout)} for name, checkout in checkouts.items()}  # fmt: skip
            listed = {}
            for name, env in envs.items():  # the first run writes the index; run from tmp, since
                # ``-m`` puts the current folder first on the path
                done = subprocess.run(sessions, env=env, cwd=tmp, capture_output=True, text=True, check=True)
                listed[name] = len(json.loads(done.stdout))
            print(f"{agent:20} rows {listed}")
            for case, command in cases.items():
                times: dict[str, list[float]] = {name: [] for name in envs}
                for _ in range(runs):
                    for name, env in envs.items():
                        if case == "one changed":  # the index of the run before, then the agent wrote
                            os.utime(growing, ns=(time.time_ns(), time.time_ns()))
                        start = time.perf_counter()
                        subprocess.run(command, env=env, cwd=tmp, capture_output=True, check=True)
                        times[name].append(time.perf_counter() - start)
                line = "  ".join(f"{name} {statistics.median(taken):.3f} s" for name, taken in times.items())
                if against is not None:
                    ratios = [a / b for a, b in zip(times["this"], times["against"], strict=True)]
                    line += f"  this/against {statistics.median(ratios):.2f}x"
                print(f"  {case:12} median: {line}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--memory", action="store_true", help="peak memory on one ~1 GB session instead")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter to time ctxviz with (this checkout comes first on its path). An editable "
        "install's import hook adds ~10 ms to every start-up that an installed ctxviz does not pay: give "
        "the python of a venv where ctxviz (or only its dependencies) was installed with `pip install .`",
    )
    parser.add_argument(
        "--other-agents", type=int, metavar="N", help="runs on N sessions of each other agent (agent_corpus.py)"
    )
    parser.add_argument("--against", type=Path, help="with --other-agents: another checkout timed alongside")
    args = parser.parse_args()
    if args.other_agents:
        other_agents(args.runs, args.python, args.other_agents, args.against)
    elif args.memory:
        memory(args.python)
    else:
        speed(args.runs, args.python)


if __name__ == "__main__":
    main()
