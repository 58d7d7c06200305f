"""``ctxviz fidelity`` over every Claude Code session in a folder, as one Markdown table.

    python benchmarks/fidelity.py FOLDER [FOLDER...]

Main sessions only (files under ``subagents/`` are read with their session). A ``.jsonl.gz`` (such as the
shrunk sessions in tests/fixtures/claude-code/spotter-shrunk/) is unpacked into a temporary folder with
its ``subagents/`` first. Reads nothing from the network and writes nothing beside the sessions. Each row:
calls, median and 90th-percentile error, each compaction (the call it came before, measured / simulated,
and the size at that call, measured / simulated), and the time import + fidelity took in-process.
"""

from __future__ import annotations

import argparse
import gzip
import tempfile
import time
from pathlib import Path

from ctxviz.importer import fidelity
from ctxviz.importer.fidelity import CompactionFit, FidelityReport


def compaction_cell(fit: CompactionFit) -> str:
    if fit.trigger == "manual":
        if fit.measured_call is None:
            return "`/compact` after the last call (no call measured after it)"
        return f"`/compact` before call {fit.measured_call}, after {fit.measured_after:,} / {fit.simulated_after:,}"
    if fit.measured_call is None or fit.measured_after is None or fit.simulated_after is None:
        return f"automatic only in the replay, before call {fit.simulated_call}"
    change = (fit.simulated_after - fit.measured_after) / fit.measured_after * 100
    return (
        f"automatic before call {fit.measured_call} / {fit.simulated_call}, "
        f"after {fit.measured_after:,} / {fit.simulated_after:,} ({change:+.1f}%)"
    )


def row(name: str, report: FidelityReport, seconds: float) -> str:
    compactions = "; ".join(compaction_cell(c) for c in report.compactions) or "—"
    return (
        f"| `{name}` | {len(report.calls)} | {report.median_error:.2f}% | {report.p90_error:.2f}% "
        f"| {compactions} | {seconds:.2f} s |"
    )


def sessions(folder: Path, scratch: Path) -> list[tuple[str, Path]]:
    found = []
    for path in sorted(folder.rglob("*.jsonl*")):
        if "subagents" in path.parts or path.suffix not in (".jsonl", ".gz") or path.name.endswith(".gz.jsonl"):
            continue
        if path.suffix == ".gz":
            for packed in sorted(path.parent.glob(path.name[: -len(".jsonl.gz")] + "/subagents/*.jsonl.gz")):
                out = scratch / packed.relative_to(path.parent).with_suffix("")
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(gzip.decompress(packed.read_bytes()))
            unpacked = scratch / path.with_suffix("").name
            unpacked.write_bytes(gzip.decompress(path.read_bytes()))
            found.append((str(path.relative_to(folder)), unpacked))
        elif path.stat().st_size > 0:
            found.append((str(path.relative_to(folder)), path))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    print("| session | calls | median error | 90th percentile | compaction | time |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for folder in args.folders:
            for name, path in sessions(folder, Path(scratch)):
                start = time.perf_counter()
                try:
                    report = fidelity(path)
                except Exception as error:  # noqa: BLE001 - one bad file must not stop the table
                    print(f"| `{name}` | — | — | — | {type(error).__name__}: {error} | — |")
                    continue
                print(row(name, report, time.perf_counter() - start))


if __name__ == "__main__":
    main()
