"""Big sessions: what each command costs against the size of one long session of many small calls.

The session is built the way a newcomer would script one: a user tool result and an assistant call
with its usage, repeated, with an auto-compaction (its boundary and its summary) every ``--every``
calls. Claude Code's; with ``--agent codex`` a Codex rollout of the same shape (a function call, its
output and a ``token_count`` event per call, a ``compacted`` record every ``--every`` calls). Sizes are
given in MB; the calls follow from them (a Claude Code call is ~2,240 bytes, so 1,000 MB is the
446,583 calls of the issue's session).

Each command runs as a whole process, one after the other, and its wall time and the peak resident
memory the kernel recorded for it (``resource.getrusage(RUSAGE_CHILDREN)`` is read in a fresh child
that runs the command, so each figure is that command's own) are printed against the file's size:

    python benchmarks/big_session.py --sizes 50,200 [--agent codex] [--runs 1] [--folder /tmp/big]

Commands: ``statusline`` cold (no cache) and warm (the cache of the run before, nothing new),
``context --json`` (the last call), ``context --at 1 --json``, ``sessions --json --no-cache``,
``sessions --json`` warm (the summary index of an unmeasured run just before),
``watch``'s first screen and ``play``'s first paint (the app built headless, up to its first screen: a
big session's is read from its end, see BIG.md).
Files are written into ``--folder`` (a temporary folder by default) and kept there when it is given,
so a second run reuses them.

Measured 2026-12-01 on 2 cores shared with other work (load 8-10: wall times inflated several-fold,
so processor seconds are given where they were read). Before reading from the end, 152 MB Claude Code
session (66,994 calls), wall seconds and peak MB: statusline cold 19.93 s / 322 MB, warm 0.28 s /
37 MB, context --json 15.08 s / 242 MB, context --at 1 12.03 s / 242 MB, sessions --no-cache 3.28 s /
94 MB, watch's first screen 28.37 s / 409 MB, play's first paint 24.59 s / 269 MB. The same shape as
Codex, 151 MB: context --json 32.37 s / 168 MB, --at 1 36.50 s / 168 MB, sessions --no-cache 25.18 s /
144 MB, watch 50.13 s / 174 MB, play 30.89 s / 204 MB.

After (the statusline from the last compaction, records let go as the timeline is built, the chain
keyed by hashes), the same 152 MB session, wall / processor seconds and peak MB: statusline cold 1.35 /
0.33 s / 24 MB, warm 0.25 / 0.07 s / 11 MB (a bare python: 0.20 / 0.06 s), context --json 26.42 /
6.85 s / 186 MB, context --at 1 21.18 / 5.15 s / 186 MB, sessions --no-cache 6.51 / 1.63 s / 83 MB,
watch's first screen 39.17 / 9.30 s / 409 MB, play's first paint 35.37 / 7.53 s / 210 MB (the load was
higher than for the figures before: compare the peaks, and the processor seconds below).

1 GB Claude Code session (1,003,577,064 bytes, 446,627 calls), context --json: 1,479 MB and 89.7 s cpu
before, 1,104 MB and 90.6 s after (output identical). Statusline cold: 34.55 s of processor
time and 2,069 MB reading the whole file; 0.29 s and 25 MB from the last compaction (farm-bench, 5
runs: 0.24 s cpu median, 24.5 MiB); warm 1.26x a bare ``python -c pass`` (10 paired runs). sessions
--json --no-cache: 331.6 MB and 8.18 s cpu with the chain keyed by uuid strings, 268.8 MB and 7.50 s
keyed by their hashes (output identical).

Then (the summary lets go of the uuids before counting, keeps no set of every call's id and decodes 1 MB
chunks; Codex rows counted without a timeline; watch's first read parsed chunk by chunk), 2026-12-02,
load 8-12, wall seconds inflated 5-10x, processor seconds and peak MiB (``--only`` these commands):

| agent | MB | calls | sessions --no-cache | sessions warm | watch first screen | play first paint | context --json |
|---|---|---|---|---|---|---|---|
| Claude Code | 20 | 8,932 | 0.41 s / 36 | 0.20 s / 18 | 2.86 s / 98 | 2.44 s / 78 | |
| Claude Code | 152 | 66,994 | 1.53 s / 45 | 0.21 s / 18 | 9.29 s / 258 | 7.97 s / 212 | |
| Claude Code | 1,004 | 446,627 | 9.9 s / 165 | | | | |
| Codex | 20 | 8,932 | 0.52 s / 47 | 0.20 s / 17 | 3.30 s / 69 | 2.79 s / 72 | 1.45 s / 50 |
| Codex | 151 | 66,994 | 2.72 s / 73 | 0.21 s / 17 | 10.17 s / 179 | 9.89 s / 205 | 10.18 s / 178 |

Where the cost follows the file: every command here but ``sessions warm`` (served from the summary index:
flat, a bare start-up plus 0.15 s). Peak memory of ``sessions`` now grows ~0.3 MB per 1,000 calls (the
uuid tree's index: one entry a record), 272 -> 165 MiB on the 1 GB session; watch's first screen and
play's first paint still read the whole file and keep a step per call (Claude Code 152 MB: watch
421 -> 258-271 MB, play unchanged). Side by side with the code before (farm-bench, median of the pairs):
Claude Code 152 MB ``sessions --no-cache`` cpu A/B 1.04 (0.95-1.16, 7 pairs), warm 1.01 (10 pairs);
Codex 151 MB ``sessions --no-cache`` cpu 6.66 -> 2.96 s (A/B 0.44, 3 pairs), peak 148 -> 66 MiB.

``context`` from one streaming pass and its cache (branch big-context, 2026-12-02, load 12-13 on 2
cores: processor seconds (user + system) and peak RSS from ``/usr/bin/time``, one run each; before is
the code before this change, after is this one; outputs compared byte for byte):

| command | session | before | after |
|---|---|---|---|
| ``context --json`` | 20 MB, 8,932 calls | 1.17 s / 60 MB | first run 1.22 s / 70 MB; then 0.42 s / 29 MB |
| | 152 MB, 66,994 calls | 7.48 s / 187 MB | first run 5.90 s / 112 MB; then 0.60 s / 63 MB |
| | 1,004 MB, 446,627 calls | 104.3 s / 1,274 MB | first run 35.5 s / 325 MB; then 1.87-1.97 s / 289 MB |
| ``context --at 1 --json`` | 20 MB | 1.06 s / 60 MB | 0.95 s / 66 MB |
| | 152 MB | 6.16 s / 187 MB | 5.77 s / 109 MB |
| | 1,004 MB | not measured (the whole timeline, as ``--json`` before) | 34.3 s / 272 MB |
| ``statusline`` cold / warm | 20 MB | unchanged | 0.49 s / 25 MB; 0.09 s / 12 MB |
| | 152 MB | unchanged | 0.47 s / 25 MB; 0.10 s / 12 MB |
| | 1,004 MB | unchanged | 0.35 s / 25 MB; 0.09 s / 12 MB |

The first run reads the whole file once (what the calls before the last compaction add to the output
— the number of calls, every compaction, the items carried most — cannot be known otherwise), holding
the window and each tool call's id and label, each call's message id: memory grows with the calls by
about 0.6 KB each, not by the ~3 KB of a timeline. "then" is every later run while the file only grew:
it reads the cache (33 MB for the 1 GB session) and what was appended. ``--at N`` is not cached: it is
one streaming pass every time.

Statusline on the 1 GB session, farm-bench whole process (load 10.6 on 2 cores, the lowest seen that
hour): cold (cache folder removed before each run), 5 runs, median wall 1.35 s (1.14-1.81), 0.30 s
cpu, 24.5 MiB; warm against a bare ``python -c pass``, 10 pairs: wall 1.36x, cpu 1.36x (11.6 MiB).

Codex from the end, watch's first read streamed, the Codex reader's hot spots, the timeline's checkpoints
as tuples (branch big-others, 2026-12-02, load 8-13 on 2 cores: processor seconds and peak MiB, one run
each, this script; the Codex rollout now as Codex writes one: base instructions in its session_meta and a
turn_context after each compaction). Before is main at 19a3542 (Claude Code 20 MB: the table above;
152 MB: ``/usr/bin/time`` on the same first-screen program), after is this branch:

| command | Claude Code 20 MB, 8,932 calls | 152 MB, 66,994 | 1,004 MB, 446,627 |
|---|---|---|---|
| statusline cold | 0.48 s / 25 | 0.33 s / 25 | 0.46 s / 25 |
| statusline warm | 0.08 s / 13 | 0.08 s / 12 | 0.09 s / 12 |
| context --json | 0.40 s / 28 | 5.35 s / 112 | 38.8 s / 353 |
| context --at 1 | 0.80 s / 66 | 4.29 s / 108 | |
| sessions --no-cache | 0.40 s / 36 | 1.61 s / 44 | 9.99 s / 165 |
| sessions warm | 0.24 s / 18 | 0.24 s / 18 | |
| watch first screen, before | 2.86 s / 98 | 11.2 s / 261 | 63.1 s / 1,482 |
| watch first screen, after | 2.98 s / 92 | 8.68 s / 211 | 58.1 s / 1,053 |
| play first paint, before | 2.44 s / 78 | 9.11 s / 209 | |
| play first paint, after | 2.57 s / 78 | 8.23 s / 201 | |

| command | Codex 20 MB, before | after | 151 MB, before | after |
|---|---|---|---|---|
| statusline cold | 0.45 s / 52 (wrong) | 0.49 s / 26 | 1.48 s / 60 (wrong) | 0.53 s / 26 |
| statusline warm | 0.09 s / 12 | 0.09 s / 12 | 0.06 s / 12 | 0.10 s / 12 |
| context --json | 1.56 s / 50 | 1.01 s / 50 | 6.86 s / 180 | 7.82 s / 146 |
| context --at 1 | 1.28 s / 50 | 1.03 s / 50 | 7.66 s / 170 | 6.05 s / 133 |
| sessions --no-cache | 0.62 s / 47 | 0.46 s / 47 | 2.87 s / 73 | 1.72 s / 66 |
| sessions warm | 0.23 s / 18 | 0.23 s / 18 | 0.25 s / 18 | 0.22 s / 18 |
| watch first screen | 2.99 s / 69 | 2.65 s / 69 | 10.67 s / 178 | 9.45 s / 175 |
| play first paint | 2.79 s / 72 | 2.60 s / 69 | 8.65 s / 206 | 7.58 s / 176 |

"wrong": before, ``statusline`` read a Codex rollout with Claude Code's parser, the whole file, and said "no
API call yet"; now it reads the rollout from its last compaction through the Codex reader, flat in the file's
size (26 MiB). Single runs on a loaded machine: the processor seconds of one command vary by up to 1.5x
between runs (Codex 151 MB context --json: 7.82 s here, 5.4 s an hour earlier); the side by side figures:
Codex 151 MB ``context --json``, farm-bench, 3 pairs, this branch's final code against main: cpu 9.01 -> 7.40
s (A/B 0.82), peak 180 -> 149 MiB (the tables' after columns were measured with ``share_cells`` skipping its
sort, since put back: see below). Where the cost follows the file: everything but the statusline and
``sessions`` warm; watch's first screen and play's first paint still read the whole file (watch's now without
holding every entry: 1 GB session 1,482 -> 1,053 MiB). The 1 GB ``context --json`` first run peaks higher on
this branch than on main, same output, ``/usr/bin/time`` with PYTHONHASHSEED=0: 322 MiB on main, 354 with
``share_cells`` skipping its sort when no cell is left over (the table's 353; the sort since put back), 333
without that; putting back the timeline's and the assembler's changes too left it at 334: the rest not found.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SESSION = "b16b16b1-0000-4000-8000-000000000000"
PROJECT = "-home-USER-big"
CWD = "/home/USER/big"
CALL_BYTES = 2_239  # one Claude Code call of this shape, both lines (1 GB = 446,583 calls)
CODEX_CALL_BYTES = 2_239

# Runs one command in a child and prints its wall seconds and peak RSS (KiB) as JSON on the last line.
_MEASURE = """
import json, resource, subprocess, sys, time
stdin = sys.stdin.buffer.read()
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": used.ru_utime + used.ru_stime, "peak_kib": used.ru_maxrss,
                  "exit": done.returncode, "stderr": done.stderr[-300:].decode()}))
"""

# The TUI's first screen, headless: the app built on the file as the command builds it and run until its
# first screen is up; then the process ends. A big session's first screen (read from the end) ends it
# when it says it is drawn, where the read of the whole file would start in a thread.
_FIRST_SCREEN = """
import asyncio, os, sys
from pathlib import Path
from ctxviz.tui.screens.first_screen import FirstScreen
mode, path = sys.argv[1], Path(sys.argv[2])
FirstScreen._shown = property(lambda self: lambda: os._exit(0), lambda self, value: None)

async def main():
    if mode == "watch":
        from ctxviz.live.watch import Watch
        from ctxviz.live.watch_app import WatchApp
        watch = Watch(path)
        first = watch.window_from_end()
        app = WatchApp(watch, first or watch.poll().timeline, from_end=first is not None)
    else:
        from functools import partial
        from ctxviz.sources import last_call_from_end, open_timeline
        from ctxviz.tui.app import CtxvizApp
        first = last_call_from_end(str(path))
        if first is not None:
            app = CtxvizApp(first, read_whole=partial(open_timeline, str(path)))
        else:
            app = CtxvizApp(open_timeline(str(path)))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        sys.stdout.flush()
        os._exit(0)

asyncio.run(main())
"""


def _uuid(kind: int, n: int) -> str:
    return f"{kind:08x}-{n >> 16 & 0xFFFF:04x}-4{n >> 4 & 0xFFF:03x}-8{n & 0xF:03x}-{n:012x}"


def _claude_lines(calls: int, every: int, pad: int) -> object:
    """The session's lines, one at a time (a 1 GB session is never held whole)."""
    stamp = "2026-11-30T10:00:00.000Z"
    common = f'"isSidechain":false,"userType":"external","cwd":"{CWD}","sessionId":"{SESSION}","version":"2.1.39"'
    filler = "x" * pad
    used = 20_000
    yield json.dumps({"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": CWD,
                      "sessionId": SESSION, "version": "2.1.39", "type": "user", "uuid": _uuid(1, 0),
                      "timestamp": stamp, "message": {"role": "user", "content": "Work through the list"}},
                     separators=(",", ":"))  # fmt: skip
    parent = _uuid(1, 0)
    for n in range(1, calls + 1):
        call = _uuid(2, n)
        tool = f"toolu_{n:024d}"
        yield (f'{{"parentUuid":"{parent}",{common},"message":{{"model":"claude-sonnet-4-5-20250929",'
               f'"id":"msg_{n:024d}","type":"message","role":"assistant","content":[{{"type":"tool_use",'
               f'"id":"{tool}","name":"Bash","input":{{"command":"step {n}","description":"one small step"}}}}],'
               f'"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":3,'
               f'"cache_creation_input_tokens":600,"cache_read_input_tokens":{used - 603},"output_tokens":40,'
               f'"service_tier":"standard"}}}},"requestId":"req_{n:024d}","type":"assistant","uuid":"{call}",'
               f'"timestamp":"{stamp}"}}')  # fmt: skip
        result = _uuid(3, n)
        yield (f'{{"parentUuid":"{call}",{common},"type":"user","message":{{"role":"user","content":'
               f'[{{"tool_use_id":"{tool}","type":"tool_result","content":"{filler}"}}]}},"uuid":"{result}",'
               f'"timestamp":"{stamp}","toolUseResult":{{"stdout":"ok","stderr":""}}}}')  # fmt: skip
        parent = result
        used += 520
        if n % every == 0 and n < calls:
            boundary, summary = _uuid(4, n), _uuid(5, n)
            yield (f'{{"parentUuid":null,"logicalParentUuid":"{parent}",{common},"type":"system",'
                   f'"subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,'
                   f'"timestamp":"{stamp}","uuid":"{boundary}","level":"info",'
                   f'"compactMetadata":{{"trigger":"auto","preTokens":{used}}}}}')  # fmt: skip
            yield (f'{{"parentUuid":"{boundary}",{common},"type":"user","message":{{"role":"user","content":'
                   f'"This session is being continued from a previous conversation. Summary: steps up to {n}."}},'
                   f'"isCompactSummary":true,"uuid":"{summary}","timestamp":"{stamp}"}}')  # fmt: skip
            parent = summary
            used = 24_000


def _codex_lines(calls: int, every: int, pad: int) -> object:
    stamp = "2026-11-30T10:00:00.000Z"
    yield json.dumps({"timestamp": stamp, "type": "session_meta", "payload": {
        "id": "019fc8be-3658-7ca3-9e29-b16b16b16b16", "timestamp": stamp, "cwd": CWD,
        "originator": "codex_cli_rs", "cli_version": "0.146.0", "source": "cli",
        "base_instructions": {"text": "You are Codex, a coding agent. " * 300}}}, separators=(",", ":"))  # fmt: skip
    turn = json.dumps({"timestamp": stamp, "type": "turn_context", "payload": {"cwd": CWD, "model": "gpt-5-codex"}},
                      separators=(",", ":"))  # fmt: skip
    yield turn
    filler = "x" * pad
    used, total = 20_000, 0
    for n in range(1, calls + 1):
        yield (f'{{"timestamp":"{stamp}","type":"response_item","payload":{{"type":"function_call","name":"shell",'
               f'"arguments":"{{\\"command\\":[\\"step\\",\\"{n}\\"]}}","call_id":"call_{n}"}}}}')  # fmt: skip
        yield (f'{{"timestamp":"{stamp}","type":"response_item","payload":{{"type":"function_call_output",'
               f'"call_id":"call_{n}","output":"{filler}"}}}}')  # fmt: skip
        total += used + 40
        yield (f'{{"timestamp":"{stamp}","type":"event_msg","payload":{{"type":"token_count","info":'
               f'{{"total_token_usage":{{"input_tokens":{total},"cached_input_tokens":0,"output_tokens":40,'
               f'"reasoning_output_tokens":0,"total_tokens":{total}}},"last_token_usage":{{"input_tokens":{used},'
               f'"cached_input_tokens":{used - 600},"output_tokens":40,"reasoning_output_tokens":0,'
               f'"total_tokens":{used + 40}}},"model_context_window":258400}}}}}}')  # fmt: skip
        used += 520
        if n % every == 0 and n < calls:
            yield (f'{{"timestamp":"{stamp}","type":"compacted","payload":{{"message":"Summary: steps up to {n}.",'
                   f'"replacement_history":[{{"type":"message","role":"user","content":[{{"type":"input_text",'
                   f'"text":"Work through the list"}}]}}]}}}}')  # fmt: skip
            yield f'{{"timestamp":"{stamp}","type":"event_msg","payload":{{"type":"context_compacted"}}}}'
            yield turn  # the turn that goes on names its model again, as Codex writes each turn's context
            used = 24_000


def build(folder: Path, agent: str, megabytes: int, every: int) -> Path:
    """The session file of about ``megabytes`` MB (reused when already there)."""
    per_call = CALL_BYTES if agent == "claude-code" else CODEX_CALL_BYTES
    calls = megabytes * 1_000_000 // per_call
    if agent == "claude-code":
        path = folder / f"claude-{megabytes}mb" / "projects" / PROJECT / f"{SESSION}.jsonl"
        lines = _claude_lines(calls, every, 1_008)
    else:
        path = folder / f"codex-{megabytes}mb" / "sessions" / "2026" / "11" / "30" / (
            f"rollout-2026-11-30T10-00-00-019fc8be-3658-7ca3-9e29-{megabytes:012d}.jsonl")  # fmt: skip
        lines = _codex_lines(calls, every, 1_510)
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with partial.open("w") as out:
        batch: list[str] = []
        for line in lines:  # type: ignore[attr-defined]
            batch.append(line)
            if len(batch) >= 10_000:
                out.write("\n".join(batch) + "\n")
                batch = []
        if batch:
            out.write("\n".join(batch) + "\n")
    partial.rename(path)
    return path


def measure(command: list[str], env: dict[str, str], stdin: bytes = b"") -> tuple[float, float, int, str]:
    """Wall seconds, processor seconds (user + system: what a busy machine does not inflate), peak MB."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, *command], input=stdin, capture_output=True, env=env,
                          check=True)  # fmt: skip
    figures = json.loads(done.stdout.splitlines()[-1])
    problem = f" (exit {figures['exit']}: {figures['stderr'].strip()[-120:]})" if figures["exit"] else ""
    return figures["wall"], figures["cpu"], figures["peak_kib"] // 1024, problem


def commands(ctxviz: list[str], python: str, path: Path, agent: str, root: Path) -> dict[str, tuple[list[str], bytes]]:
    payload = json.dumps({"transcript_path": str(path), "session_id": SESSION}).encode()
    found: dict[str, tuple[list[str], bytes]] = {}
    found["statusline cold"] = ([*ctxviz, "statusline"], payload)
    found["statusline warm"] = ([*ctxviz, "statusline"], payload)
    found["context --json"] = ([*ctxviz, "context", str(path), "--json"], b"")
    found["context --at 1"] = ([*ctxviz, "context", str(path), "--at", "1", "--json"], b"")
    found["sessions --no-cache"] = ([*ctxviz, "sessions", "--json", "--no-cache", "--root", str(root)], b"")
    found["sessions warm"] = ([*ctxviz, "sessions", "--json", "--root", str(root)], b"")  # after a first run
    found["watch first screen"] = ([python, "-c", _FIRST_SCREEN, "watch", str(path)], b"")
    found["play first paint"] = ([python, "-c", _FIRST_SCREEN, "play", str(path)], b"")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="50,200", help="session sizes in MB, comma-separated")
    parser.add_argument("--every", type=int, default=600, help="calls between compactions")
    parser.add_argument("--agent", choices=("claude-code", "codex"), default="claude-code")
    parser.add_argument("--folder", type=Path, help="where the sessions are built (kept); a temporary one else")
    parser.add_argument("--only", help="comma-separated command names to run (default: all)")
    parser.add_argument("--python", default=sys.executable, help="the Python whose ctxviz is measured")
    parser.add_argument("--source", type=Path, help="another checkout's ctxviz, run with this Python")
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="ctxviz-big-"))
    ctxviz = [str(Path(args.python).parent / "ctxviz")]
    if args.source is not None:
        ctxviz = [args.python, "-m", "ctxviz"]
        os.environ["PYTHONPATH"] = str(args.source.resolve())
    bare = measure([args.python, "-c", "pass"], dict(os.environ))
    print(f"python3 -c pass: {bare[0]:.3f} s, {bare[1]:.3f} cpu s, {bare[2]} MB")
    print(f"{'command':<22}{'MB':>7}{'calls':>9}{'wall s':>9}{'cpu s':>9}{'peak MB':>9}")
    try:
        for megabytes in (int(s) for s in args.sizes.split(",")):
            path = build(folder, args.agent, megabytes, args.every)
            root = path.parents[1] if args.agent == "claude-code" else path.parents[4]
            env = dict(os.environ, XDG_CACHE_HOME=str(folder / f"cache-{args.agent}-{megabytes}"), NO_COLOR="1")
            shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)
            size = path.stat().st_size / 1e6
            calls = megabytes * 1_000_000 // CALL_BYTES
            for name, (command, stdin) in commands(ctxviz, args.python, path, args.agent, root).items():
                if args.only and name not in args.only.split(","):
                    continue
                if name == "sessions warm":  # the run before writes the summary index this one reads
                    measure(command, env, stdin)
                wall, cpu, peak, problem = measure(command, env, stdin)
                print(f"{name:<22}{size:>7.0f}{calls:>9,}{wall:>9.2f}{cpu:>9.2f}{peak:>9,}{problem}", flush=True)
    finally:
        if args.folder is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
