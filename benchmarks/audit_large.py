"""Audit of a large session: a real Claude Code session written N times over as one session, and the
whole ``ctxviz audit --json`` process timed (CPU and wall) with its peak memory.

    python benchmarks/audit_large.py SESSION.jsonl --times 1 10 100 [--keep DIR]

Each copy after the first gets its own ids (uuids hashed with the copy's number; message, request
and tool-use ids a per-copy suffix) and its first line hangs on the previous copy's last, so the
copies are one chain of one session: N times the calls, N times the bytes. Results: benchmarks/audit.py.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_IDS = re.compile(rb'"((?:msg|req|toolu)_[A-Za-z0-9]+)"')


def _renamed(uuid: bytes, n: int) -> bytes:
    """Copy ``n``'s own uuid for ``uuid``: a hash, so that no copy's id can be another copy's (changing a
    few digits could: a chain that met an earlier copy's id lost the copies between)."""
    digest = hashlib.md5(uuid + b"/%d" % n).hexdigest().encode()  # noqa: S324 (an id, not a secret)
    return b"-".join((digest[:8], digest[8:12], digest[12:16], digest[16:20], digest[20:]))


def _copy(lines: list[bytes], n: int, session_id: bytes, previous: bytes | None) -> tuple[list[bytes], bytes | None]:
    """Copy ``n`` of the session's lines, with ids of its own, chained after uuid ``previous``."""
    out: list[bytes] = []
    last = previous
    for line in lines:
        if n:
            line = _UUID.sub(lambda m: m.group(0) if m.group(0) == session_id else _renamed(m.group(0), n), line)
            line = _IDS.sub(lambda m: b'"' + m.group(1) + b"x%d" % n + b'"', line)
        if previous is not None and b'"parentUuid":null' in line:
            line = line.replace(b'"parentUuid":null', b'"parentUuid":"' + previous + b'"', 1)
            previous = None
        if (found := re.search(rb'"uuid":"([0-9a-f-]{36})"', line)) is not None:
            last = found.group(1)
        out.append(line)
    return out, last


def build(session: Path, times: int, into: Path) -> Path:
    lines = session.read_bytes().splitlines(keepends=True)
    session_id = json.loads(next(line for line in lines if b'"sessionId"' in line))["sessionId"].encode()
    target = into / f"{session.stem}-x{times}.jsonl"
    previous = None
    with target.open("wb") as out:
        for n in range(times):
            copy, previous = _copy(lines, n, session_id, previous)
            out.writelines(copy)
    return target


def audit(session: Path) -> tuple[float, float, float, dict[str, object]]:
    """CPU seconds, wall seconds and peak MiB of one whole ``ctxviz audit --json`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ctxviz", "audit", str(session), "--json"],
                          capture_output=True)  # fmt: skip
    if done.returncode:
        sys.exit(f"{session}: ctxviz audit failed: {done.stderr.decode(errors='replace').strip()}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, wall, after.ru_maxrss / 1024, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("session", type=Path)
    parser.add_argument("--times", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--keep", type=Path, help="Write the built sessions here (default: a temporary folder).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        into = args.keep or Path(temporary)
        print(f"{'times':>5} {'MB':>7} {'calls':>6} {'input_tokens':>14}  cpu s  wall s  peak MiB")
        for times in args.times:
            built = build(args.session, times, into)
            cpu, wall, peak, document = audit(built)
            print(f"{times:5} {built.stat().st_size / 1e6:7.1f} {document['calls']:6} {document['input_tokens']:14,} "
                  f"{cpu:6.2f} {wall:7.2f} {peak:8.0f}", flush=True)  # fmt: skip
            if args.keep is None:
                built.unlink()


if __name__ == "__main__":
    main()
