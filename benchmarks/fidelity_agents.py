"""``ctxviz fidelity`` over the Codex and pi sessions of a corpus: the figures of issue 16's table per session
and in total, the sessions the profiles' measured numbers were fitted on apart from the held-out ones. The
figures are those of the engine's replay of the imported scenario (what what-ifs and ``compare`` run); the
recorded calls replayed under the agent's compaction rules alone are totalled apart.

    python benchmarks/fidelity_agents.py --corpus DIR [--json OUT.json]

DIR holds ``codex/…/*.jsonl[.gz]`` and ``pi/…/*.jsonl[.gz]`` (each is read by the reader that recognises
it). Nothing is written beside the sessions; a ``.gz`` is read into a temporary file.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from ctxviz.importer.fidelity_timeline import AgentFidelity, timeline_fidelity
from ctxviz.transcripts.registry import reader_for


def fitted(name: str) -> bool:
    """Whether the profile's measured numbers were fitted on the session at ``name`` (its path in the corpus,
    ``codex/…``): the first byte of its SHA-256 is even. Every other session is held out. pi's numbers are
    read in its source, not fitted: all its sessions are held out."""
    return name.startswith("codex/") and hashlib.sha256(name.encode()).digest()[0] % 2 == 0


AGENTS = ("codex", "pi")


def reports(corpus: Path, scratch: Path) -> list[tuple[str, AgentFidelity]]:
    found: list[tuple[str, AgentFidelity]] = []
    for agent in AGENTS:
        for path in sorted((corpus / agent).rglob("*.jsonl*")):
            name = str(path.relative_to(corpus))
            readable = path
            if path.suffix == ".gz":
                readable = scratch / name.replace("/", "_").removesuffix(".gz")
                readable.write_bytes(gzip.decompress(path.read_bytes()))
            if reader_for(readable) is not None:
                found.append((name, timeline_fidelity(readable)))
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
    } | _fitted(rows)


def _fitted(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The calls before the first compaction (fitted: the scenario's sizes come from them): the largest of
    the sessions' median errors, which shows whether the replay keeps to the log where nothing is predicted."""
    medians = [r["fitted"]["median_error"] for r in rows if "fitted" in r and r["fitted"]["median_error"] is not None]
    return {"fitted_worst_median": round(max(medians), 2)} if medians else {}


def line(name: str, row: dict[str, Any]) -> str:
    p = row["predicted"]
    median = "—" if row["median_error"] is None else f"{row['median_error']:.2f}%"
    places = ", ".join(f"{c['measured_after_call']}→{c['simulated_after_call']}" for c in row["compactions"]) or "—"
    return (
        f"| `{name}` | {row['version'] or '?'} | {len(row['calls'])} | {places} | {p['same_call']}/"
        f"{p['within_one_call']} of {p['automatic_compactions']} | {p['next_within_10pct']} of {p['next_calls']} "
        f"| {p['calls']} | {median} |"
    )


def print_reports(found: list[tuple[str, AgentFidelity]]) -> dict[str, Any]:
    """Print the table and the totals, fitted apart from held out (the engine's replay, then the recorded
    calls under the rules alone); return both for the JSON."""
    rows = {name: report.to_json() for name, report in found}
    print("| session | version | calls | compactions after call (measured→replay) | same/within one "
          "| next within 10% | predicted calls | their median error |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, row in rows.items():
        print(line(name, row))
    summary: dict[str, Any] = {}
    for agent in AGENTS:
        for part, part_fitted in (("fitted", True), ("held out", False)):
            chosen = [r for n, r in rows.items() if r["agent"] == agent and fitted(n) == part_fitted]
            if chosen:
                summary[f"{agent} {part}"] = totals(chosen)
                summary[f"{agent} {part}, recorded calls under the rules alone"] = totals(
                    [r["recorded_calls"] for r in chosen]
                )
    for label, figures in summary.items():
        print(f"\n{label}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    return {"sessions": rows, "totals": summary}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--json", type=Path, default=None, help="Write every figure here too.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        document = print_reports(reports(args.corpus, Path(scratch)))
    if args.json is not None:
        args.json.write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    main()
