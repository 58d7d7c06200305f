"""``ctxviz fidelity`` over every Claude Code session of a corpus: what the replay predicts, scored per
session and in total, as a table and as JSON.

    python benchmarks/fidelity.py --corpus DIR [--json OUT.json]
    python benchmarks/fidelity.py FOLDER [FOLDER...]

Main sessions only (files under ``subagents/`` are read with their session). A corpus's ``codex/`` and
``pi/`` folders are scored by ``fidelity_agents.py`` (their own table and totals, in the JSON as
``agents``). A ``.jsonl.gz`` is unpacked into a temporary folder with its ``subagents/`` first. Reads
nothing from the network and writes nothing beside the sessions.

Scored as ``ctxviz fidelity`` scores (only what the replay predicts): each automatic compaction at the
same call as in the session, or within one; the first call after each compaction within 5%; the median
and 90th-percentile error of the calls after the first compaction. Totals: the counts summed, and the
median and 90th percentile over sessions of each session's median error.

Rules are fitted on one half of a corpus and scored on the other: a session belongs to the *fit* half
when the first byte of the SHA-256 of its path inside the corpus is even, else to the *held-out* half.
Totals are given for each half; the figures that count are the held-out half's.

Then every automatic compaction the replay does not make at the session's call (and every one only the
replay makes), with the call, how far the replay's size was off there and a cause (``Cause``), so the
next person sees where the rules fail.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from ctxviz.importer import session_to_scenario
from ctxviz.importer.draft import Draft
from ctxviz.importer.fidelity import FidelityReport, fidelity_of, percentile

sys.path.insert(0, str(Path(__file__).parent))
import fidelity_agents  # noqa: E402  (Codex and pi sessions of the same corpus)

FIT, HELD_OUT = "fit", "held-out"


def half(name: str) -> str:
    """The half a session belongs to, from its path inside the corpus's Claude Code folder alone: the same
    whether the corpus itself or its ``claude-code/`` folder is named."""
    key = name.removeprefix("claude-code/")
    return FIT if hashlib.sha256(key.encode()).digest()[0] % 2 == 0 else HELD_OUT


class Cause(StrEnum):
    """Why the replay compacted at another call than the session (or where the session did not)."""

    THRESHOLD = "threshold"  # the session compacted with its count (preTokens) under the replay's line
    OWN_COUNT = "own count"  # at the measured sizes, Claude Code's count as rebuilt crosses the line elsewhere
    CARRIED = "size after the compaction before"  # the replay's size was off from the call after it on
    DRIFT = "growth since the compaction before"  # the replay grew otherwise than the session since it
    OTHER = "other"


@dataclass(frozen=True)
class Miss:
    """One automatic compaction not at the session's call. ``measured``/``simulated``: the call it came
    after in the session and in the replay (None: not on that side); ``off``: the replay's size minus the
    measured one at the earlier of the two calls, where they part; ``carried``: the same at the first call
    after the compaction before (the later of the session's and the replay's)."""

    measured: int | None
    simulated: int | None
    off: int | None
    carried: int | None
    cause: Cause

    def to_json(self) -> dict[str, Any]:
        return {"measured_after_call": self.measured, "simulated_after_call": self.simulated, "off": self.off,
                "carried": self.carried, "cause": self.cause.value}  # fmt: skip


def _after_call(segment: int, calls: set[int]) -> int:
    return max((c for c in calls if c <= segment), default=0)


def misses(draft: Draft, report: FidelityReport) -> tuple[Miss, ...]:
    """Each automatic compaction the replay makes at another call, or only on one side, with its cause."""
    sizes = {c.call: c for c in report.calls}
    line = report.threshold
    # the session's compactions: (call it came after, stretch it sits in, preTokens, trigger)
    recorded = [(_after_call(seg, set(sizes)), seg, pre, trigger) for seg, trigger, pre in draft.compactions]
    replayed = [c.simulated_after_call for c in report.compactions if c.simulated_after_call is not None]
    found = []
    for fit in report.compactions:
        if fit.trigger != "auto" or fit.offset == 0:
            continue
        sides = [c for c in (fit.measured_after_call, fit.simulated_after_call) if c is not None]
        if not sides:
            continue
        at = min(sides)
        off = sizes[at].simulated - sizes[at].measured if at in sizes else None
        earlier = [r for r in recorded if r[0] < at]
        before = max([r[0] for r in earlier] + [s for s in replayed if s < at], default=None)
        carried = None
        if before is not None and before + 1 in sizes:
            carried = sizes[before + 1].simulated - sizes[before + 1].measured
        own = next((r for r in recorded if r[0] == fit.measured_after_call), None)
        found.append(Miss(fit.measured_after_call, fit.simulated_after_call, off, carried,
                          _cause(draft, line, own, earlier[-1][1] if earlier else -1, off, carried)))  # fmt: skip
    return tuple(found)


def _cause(
    draft: Draft,
    line: int | None,
    own: tuple[int, int, int | None, str] | None,
    since: int,
    off: int | None,
    carried: int | None,
) -> Cause:
    """The session's count (preTokens) under the line; else whichever is larger: how far Claude Code's
    count as rebuilt at the measured sizes is on the wrong side of the line (over it at a call the session
    sent, or under it where it compacted), or how far the replay's size was off."""
    if line is None:
        return Cause.OTHER
    wrong_side = 0
    if own is not None:
        _, segment, pre, _ = own
        if pre is not None and pre < line:
            return Cause.THRESHOLD
        over = [draft.counts.get(s, 0) - line + 1 for s in range(since + 1, segment)]
        counted = draft.counts.get(segment)
        wrong_side = max([*over, line - counted if counted is not None else 0, 0])
    if wrong_side and wrong_side >= abs(off or 0):
        return Cause.OWN_COUNT
    if carried is None or off is None:
        return Cause.OTHER
    return Cause.CARRIED if abs(carried) >= abs(off - carried) else Cause.DRIFT


@dataclass(frozen=True)
class Row:
    name: str
    half: str
    seconds: float
    report: FidelityReport | None = None
    error: str | None = None
    misses: tuple[Miss, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"session": self.name, "half": self.half, "seconds": round(self.seconds, 3)}
        if self.report is None:
            return {**out, "error": self.error}
        r = self.report
        return {
            **out,
            "version": r.version,
            "calls": len(r.calls),
            "automatic_compactions": len(r.automatic),
            "same_call": r.same_call,
            "within_one_call": r.within_one_call,
            "offsets": [c.offset for c in r.automatic],
            "next_calls": len(r.next_calls),
            "next_within_5pct": r.next_within_tolerance,
            "next_errors": [round(c.next_error or 0, 2) for c in r.next_calls],
            "predicted_calls": r.predicted.calls,
            "median_error": r.median_error,
            "p90_error": r.p90_error,
            "fitted_calls": r.fitted.calls,
            "replay_compactions": sum(1 for c in r.compactions if c.simulated_after_call is not None),
            "misses": [m.to_json() for m in self.misses],
        }


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}%"


def table_row(row: Row) -> str:
    if row.report is None:
        return f"| `{row.name}` | {row.half} | — | — | — | — | — | — | {row.error} |"
    r = row.report
    offsets = ", ".join(f"{c.offset:+d}" if c.offset is not None else "missed" for c in r.automatic) or "—"
    nexts = ", ".join(f"{c.next_error:.1f}%" for c in r.next_calls) or "—"
    return (
        f"| `{row.name}` | {row.half} | {r.version or '?'} | {len(r.calls)} | {r.same_call}/{len(r.automatic)} "
        f"({offsets}) | {r.next_within_tolerance}/{len(r.next_calls)} ({nexts}) | {_pct(r.median_error)} "
        f"| {_pct(r.p90_error)} | {row.seconds:.2f} s |"
    )


def totals(rows: list[Row]) -> dict[str, Any]:
    reports = [r.report for r in rows if r.report is not None]
    medians = [r.median_error for r in reports if r.median_error is not None]
    autos = sum(len(r.automatic) for r in reports)
    nexts = sum(len(r.next_calls) for r in reports)
    return {
        "sessions": len(rows),
        "import_failures": sum(1 for r in rows if r.report is None),
        "automatic_compactions": autos,
        "same_call": sum(r.same_call for r in reports),
        "within_one_call": sum(r.within_one_call for r in reports),
        "next_calls": nexts,
        "next_within_5pct": sum(r.next_within_tolerance for r in reports),
        "sessions_with_predicted_calls": len(medians),
        "median_of_medians": round(percentile(medians, 0.5), 2) if medians else None,
        "p90_of_medians": round(percentile(medians, 0.9), 2) if medians else None,
    }


def totals_line(label: str, t: dict[str, Any]) -> str:
    def share(part: int, whole: int) -> str:
        return f"{part}/{whole} ({part / whole:.0%})" if whole else "0/0"

    return (
        f"{label}: {t['sessions']} sessions, {t['import_failures']} import failures; automatic compactions at "
        f"the same call {share(t['same_call'], t['automatic_compactions'])}, within one "
        f"{share(t['within_one_call'], t['automatic_compactions'])}; first call after within 5% "
        f"{share(t['next_within_5pct'], t['next_calls'])}; predicted calls' median error, median over "
        f"{t['sessions_with_predicted_calls']} sessions {_pct(t['median_of_medians'])}, 90th percentile "
        f"{_pct(t['p90_of_medians'])}"
    )


def sessions(folder: Path, scratch: Path) -> list[tuple[str, Path]]:
    found = []
    for path in sorted(folder.rglob("*.jsonl*")):
        if "subagents" in path.parts or path.suffix not in (".jsonl", ".gz") or path.name.endswith(".gz.jsonl"):
            continue
        name = str(path.relative_to(folder))
        if path.relative_to(folder).parts[0] in fidelity_agents.AGENTS:
            continue  # scored by fidelity_agents
        if path.suffix == ".gz":
            home = scratch / hashlib.sha256(name.encode()).hexdigest()[:16]
            for packed in sorted(path.parent.glob(path.name[: -len(".jsonl.gz")] + "/subagents/*.jsonl.gz")):
                out = home / packed.relative_to(path.parent).with_suffix("")
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(gzip.decompress(packed.read_bytes()))
            home.mkdir(parents=True, exist_ok=True)
            unpacked = home / path.with_suffix("").name
            unpacked.write_bytes(gzip.decompress(path.read_bytes()))
            found.append((name, unpacked))
        elif path.stat().st_size > 0:
            found.append((name, path))
    return found


def measure(name: str, path: Path) -> Row:
    start = time.perf_counter()
    try:
        result = session_to_scenario(path)
        report = fidelity_of(result, result.draft.session.session_id or path.stem)
    except Exception as error:  # noqa: BLE001 - one bad file must not stop the table
        return Row(name, half(name), time.perf_counter() - start, error=f"{type(error).__name__}: {error}")
    return Row(name, half(name), time.perf_counter() - start, report, misses=misses(result.draft, report))


def _signed(value: int | None) -> str:
    return "—" if value is None else f"{value:+,}"


def print_misses(rows: list[Row]) -> dict[str, dict[str, int]]:
    """One line per miss; returns the count of each cause in each half."""
    print("\n| session | half | compaction after call (measured → replay) | replay − measured there "
          "| of it, right after the compaction before | cause |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    causes: dict[str, dict[str, int]] = {FIT: {}, HELD_OUT: {}}
    for row in rows:
        for miss in row.misses:
            where = f"{miss.measured if miss.measured is not None else '—'} → "
            where += f"{miss.simulated if miss.simulated is not None else 'none'}"
            print(f"| `{row.name}` | {row.half} | {where} | {_signed(miss.off)} | {_signed(miss.carried)} "
                  f"| {miss.cause.value} |")  # fmt: skip
            causes[row.half][miss.cause.value] = causes[row.half].get(miss.cause.value, 0) + 1
    for label in (FIT, HELD_OUT):
        counted = ", ".join(f"{cause} {n}" for cause, n in sorted(causes[label].items())) or "none"
        print(f"misses, {label}: {counted}")
    return causes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="a folder of sessions")
    parser.add_argument("--json", type=Path, default=None, help="write every row and the totals here")
    args = parser.parse_args()
    folders = [*args.corpus, *args.folders]
    if not folders:
        parser.error("give --corpus DIR or a folder")
    print(
        "| session | half | version | calls | automatic compactions at the same call (offsets) "
        "| first call after within 5% (errors) | predicted median | predicted p90 | time |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as scratch:
        for folder in folders:
            for name, path in sessions(folder, Path(scratch)):
                rows.append(measure(name, path))
                print(table_row(rows[-1]), flush=True)
    summary = {label: totals([r for r in rows if label in (None, r.half)]) for label in (FIT, HELD_OUT)}
    summary["all"] = totals(rows)
    print()
    for label in ("all", FIT, HELD_OUT):
        print(totals_line(label, summary[label]))
    causes = print_misses(rows)
    agents: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for folder in folders:
            if any((folder / agent).is_dir() for agent in fidelity_agents.AGENTS):
                print()
                agents |= fidelity_agents.print_reports(fidelity_agents.reports(folder, Path(scratch)))
    if args.json is not None:
        document = {"sessions": [r.to_json() for r in rows], "totals": summary, "misses": causes, "agents": agents}
        args.json.write_text(json.dumps(document, indent=1))


if __name__ == "__main__":
    main()
