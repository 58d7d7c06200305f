"""``ctxviz fidelity`` over the Codex and pi sessions of a corpus: the figures of issue 16's table per session
and in total, the sessions the profiles' measured numbers were fitted on apart from the held-out ones.

    python benchmarks/fidelity_agents.py --corpus DIR [--json OUT.json]

DIR holds ``codex/…/*.jsonl[.gz]`` and ``pi/…/*.jsonl[.gz]`` (each is read by the reader that recognises
it). Nothing is written beside the sessions; a ``.gz`` is read into a temporary file.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from ctxviz.importer.replay_recorded import RecordedReport, recorded_fidelity
from ctxviz.transcripts.registry import reader_for

# The sessions the measured numbers of the codex profile were fitted on (by their path in the corpus); every
# other session is held out. pi's numbers are read in its source, not fitted: all its sessions are held out.
FITTED = frozenset(
    {
        "codex/agentv/00/34f597b72d/1/full.jsonl.gz",
        "codex/agentv/0b/9f2ac6f3aa/1/full.jsonl.gz",
        "codex/agentv/0b/9f2ac6f3aa/3/full.jsonl.gz",
        "codex/agentv/1f/4427577930/0/full.jsonl.gz",
        "codex/agentv/33/5841c2d678/0/full.jsonl.gz",
    }
)
AGENTS = ("codex", "pi")


def reports(corpus: Path, scratch: Path) -> list[tuple[str, RecordedReport]]:
    found: list[tuple[str, RecordedReport]] = []
    for agent in AGENTS:
        for path in sorted((corpus / agent).rglob("*.jsonl*")):
            name = str(path.relative_to(corpus))
            readable = path
            if path.suffix == ".gz":
                readable = scratch / name.replace("/", "_").removesuffix(".gz")
                readable.write_bytes(gzip.decompress(path.read_bytes()))
            reader = reader_for(readable)
            if reader is not None:
                found.append((name, recorded_fidelity(str(reader.name), readable)))
    return found


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Issue 16's figures over ``rows``: compactions at the same call / within one, the first call after
    within 5% and 10%, and the predicted calls' median error (median and 90th percentile over sessions)."""
    predicted = [r["predicted"] for r in rows]
    medians = sorted(r["median_error"] for r in rows if r["median_error"] is not None)
    return {
        "sessions": len(rows),
        "automatic_compactions": sum(p["automatic_compactions"] for p in predicted),
        "same_call": sum(p["same_call"] for p in predicted),
        "within_one_call": sum(p["within_one_call"] for p in predicted),
        "next_calls": sum(p["next_calls"] for p in predicted),
        "next_within_5pct": sum(p["next_within_5pct"] for p in predicted),
        "next_within_10pct": sum(p["next_within_10pct"] for p in predicted),
        "sessions_predicting": len(medians),
        "median_of_medians": round(statistics.median(medians), 2) if medians else None,
        "p90_of_medians": round(medians[max(0, -(-9 * len(medians) // 10) - 1)], 2) if medians else None,
    }


def line(name: str, row: dict[str, Any]) -> str:
    p = row["predicted"]
    median = "—" if row["median_error"] is None else f"{row['median_error']:.2f}%"
    places = ", ".join(f"{c['measured_after_call']}→{c['simulated_after_call']}" for c in row["compactions"]) or "—"
    return (
        f"| `{name}` | {row['version'] or '?'} | {len(row['calls'])} | {places} | {p['same_call']}/"
        f"{p['within_one_call']} of {p['automatic_compactions']} | {p['next_within_10pct']} of {p['next_calls']} "
        f"| {p['calls']} | {median} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--json", type=Path, default=None, help="Write every figure here too.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        found = reports(args.corpus, Path(scratch))
    rows = {name: report.to_json() for name, report in found}
    print("| session | version | calls | compactions after call (measured→replay) | same/within one "
          "| next within 10% | predicted calls | their median error |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, row in rows.items():
        print(line(name, row))
    summary: dict[str, Any] = {}
    for agent in AGENTS:
        for part, fitted in (("fitted", True), ("held out", False)):
            chosen = [r for n, r in rows.items() if r["agent"] == agent and (n in FITTED) == fitted]
            if chosen:
                summary[f"{agent} {part}"] = totals(chosen)
    for label, figures in summary.items():
        print(f"\n{label}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    if args.json is not None:
        args.json.write_text(json.dumps({"sessions": rows, "totals": summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
