"""How close the size after a compaction could come if the replay chose the re-read files perfectly.

    python benchmarks/restore_ceiling.py --corpus DIR [--json OUT.json]

Transcripts of Claude Code up to 2.1.96 do not record which files a compaction re-read, and the order Claude
Code picks them in (the files' modification times) is not recorded either. This asks what any choice could
do: for every automatic compaction the replay makes at the session's call, each set of at most ``max_files``
of the files the replay's read-file cache held then (sized as the replay sizes them: whole, or a one-line
reference when over the per-file limit; within the restore's total budget) is tried in place of the replay's
own choice, with everything else in the replay as it is. The best set's error at the first call after the
compaction is an upper bound on what any ordering rule for these files can reach: where even it misses by
more than 5%, the size is off by something other than which files came back.

Sessions whose later transcripts record what came back (``restores_recorded``) have nothing to choose and
are left out, as are compactions the replay makes at another call than the session (scored by
``fidelity.py``). Reads nothing from the network, writes nothing beside the sessions.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ctxviz.importer import session_to_scenario
from ctxviz.importer.fidelity import NEXT_CALL_TOLERANCE, CompactionFit, fidelity_of
from ctxviz.importer.replay import replay
from ctxviz.kinds import BlockKind, StepKind
from ctxviz.profiles.base import Session
from ctxviz.profiles.policies.compaction import RestoreEvidence, SummaryAndRecentFiles
from ctxviz.timeline import Fate, Step

sys.path.insert(0, str(Path(__file__).parent))
from fidelity import FIT, HELD_OUT, half, sessions  # noqa: E402

_FILE_KINDS = (BlockKind.RESTORED_FILE, BlockKind.FILE_REFERENCE)


@dataclass(frozen=True)
class Choice:
    """What one compaction could re-read: each candidate's cost if chosen, and the restore's limits."""

    costs: tuple[int, ...]
    max_files: int
    budget: int


@dataclass(frozen=True)
class Row:
    session: str
    half: str
    version: str | None
    after_call: int
    measured: int  # the first call after the compaction
    replay: int
    files_now: int  # what the replay's own choice re-read (whole files and references)
    candidates: int
    best: int  # the replay's size there with the best choice of files

    @property
    def now_within(self) -> bool:
        return abs(self.replay - self.measured) <= NEXT_CALL_TOLERANCE / 100 * self.measured

    @property
    def best_within(self) -> bool:
        return abs(self.best - self.measured) <= NEXT_CALL_TOLERANCE / 100 * self.measured


def _recording(choices: list[Choice]) -> Callable[..., None]:
    """``SummaryAndRecentFiles._restore_files`` that first notes every file it could re-read."""
    original = SummaryAndRecentFiles._restore_files

    def restore(
        self: SummaryAndRecentFiles,
        session: Session,
        fates: list[Fate],
        fits: Callable[[int], bool],
        known: RestoreEvidence,
    ) -> None:
        costs = [
            self.file_reference if self.comes_back_referenced(session, path, known) else session.file_size(path).tokens
            for path in self.restore_candidates(session)
        ]
        choices.append(Choice(tuple(costs), self.max_files, self.total_tokens))
        original(self, session, fates, fits, known)

    return restore


def reachable(choice: Choice) -> Iterator[int]:
    """Every total of at most ``max_files`` of the costs within the budget (bit i of a mask: total i)."""
    mask = (1 << (choice.budget + 1)) - 1
    by_count = [1] + [0] * choice.max_files  # by_count[k]: totals of exactly k files
    for cost in choice.costs:
        for k in range(choice.max_files - 1, -1, -1):
            by_count[k + 1] |= (by_count[k] << cost) & mask
    sums = 0
    for bits in by_count:
        sums |= bits
    return (total for total in range(choice.budget + 1) if sums >> total & 1)


def _is_compaction(step: Step) -> bool:
    return any(f.kind == BlockKind.SUMMARY and f.fate == "new" for f in step.fates)


def measure(name: str, path: Path) -> list[Row]:
    result = session_to_scenario(path)
    report = fidelity_of(result, name)
    choices: list[Choice] = []
    original = SummaryAndRecentFiles._restore_files
    SummaryAndRecentFiles._restore_files = _recording(choices)  # type: ignore[method-assign]
    try:
        timeline = replay(result.scenario, sum(len(top.flat()) for top in result.draft.events)).timeline
    finally:
        SummaryAndRecentFiles._restore_files = original  # type: ignore[method-assign]
    compactions = [s for s in timeline.steps if _is_compaction(s)]
    if len(choices) != len(compactions):
        return []  # what came back is recorded: nothing was chosen
    automatic = [(s, c) for s, c in zip(compactions, choices, strict=True) if s.kind == StepKind.AUTO_COMPACT]
    replayed = sorted(
        (c for c in report.compactions if c.trigger == "auto" and c.simulated_after_call is not None),
        key=lambda c: c.simulated_after_call or 0,
    )
    rows = []
    for fit, (step, choice) in zip(replayed, automatic, strict=True):
        row = _row(name, report.version, fit, step, choice)
        if row is not None:
            rows.append(row)
    return rows


def _row(name: str, version: str | None, fit: CompactionFit, step: Step, choice: Choice) -> Row | None:
    if fit.offset != 0 or fit.measured_next is None or fit.simulated_next is None or fit.measured_after_call is None:
        return None
    files_now = sum(f.tokens for f in step.fates if f.kind in _FILE_KINDS and f.fate in ("restored", "referenced"))
    base, measured = fit.simulated_next - files_now, fit.measured_next
    best = min(reachable(choice), key=lambda total: abs(base + total - measured))
    return Row(
        name, half(name), version, fit.measured_after_call, fit.measured_next, fit.simulated_next, files_now,
        len(choice.costs), base + best,
    )  # fmt: skip


def totals(rows: list[Row]) -> dict[str, int]:
    return {
        "compactions": len(rows),
        "within_5pct_now": sum(r.now_within for r in rows),
        "within_5pct_best_choice": sum(r.best_within for r in rows),
        "short_with_best_choice": sum(not r.best_within and r.best < r.measured for r in rows),
        "over_with_best_choice": sum(not r.best_within and r.best > r.measured for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, required=True, help="a folder of sessions")
    parser.add_argument("--json", type=Path, default=None, help="write every row and the totals here")
    args = parser.parse_args()
    print("| session | half | version | after call | measured next | replay | best choice | candidates |")
    print("|---|---|---|---|---|---|---|---|")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as scratch:
        for name, path in sessions(args.corpus, Path(scratch)):
            for row in measure(name, path):
                rows.append(row)
                print(
                    f"| `{row.session}` | {row.half} | {row.version} | {row.after_call} | {row.measured:,} "
                    f"| {row.replay - row.measured:+,} | {row.best - row.measured:+,} | {row.candidates} |",
                    flush=True,
                )
    summary = {label: totals([r for r in rows if label in ("all", r.half)]) for label in ("all", FIT, HELD_OUT)}
    print()
    for label, t in summary.items():
        n, best = t["compactions"], t["within_5pct_best_choice"]
        print(
            f"{label}: {n} compactions; first call after within 5%: the replay's choice {t['within_5pct_now']}, "
            f"the best choice of files {best} ({best / max(n, 1):.0%}); "
            f"missed even so: {t['short_with_best_choice']} short, {t['over_with_best_choice']} over"
        )
    if args.json is not None:
        document: dict[str, Any] = {"rows": [asdict(r) for r in rows], "totals": summary}
        args.json.write_text(json.dumps(document, indent=1))


if __name__ == "__main__":
    main()
