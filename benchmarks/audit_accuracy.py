"""``ctxviz audit`` over every session in a folder: does the carried cost add up, and what was found.

    python benchmarks/audit_accuracy.py FOLDER [FOLDER...]

Any agent's session files (``.jsonl``, or ``.jsonl.gz`` unpacked into a temporary folder). Each row: the
agent, calls, input_tokens (the sum of the calls' measured context), the items' carried tokens against
it (issue 17 asks for 0.5% at most), each finding's replayed saving, and the time in process. Reads
nothing from the network and writes nothing beside the sessions.

Last run, 2026-12-01, on a corpus of 80 public sessions (68 Claude Code, 10 Codex, 2 pi): the carried
tokens equal input_tokens exactly on all 68 Claude Code sessions; on Codex and pi they are within 0.1%
but for one Codex session, 1.52% over (its compaction keeps more than the next call measures: the items
kept outweigh the measured size). Findings exist for Claude Code sessions only (the import is theirs),
and for 55 of the 68 (the other 13 fail to import: a custom subagent type the scenario does not list).
Of those: other-agent saves on 53; large-output found on 23, saving on 17 (on 6 a cap makes the replay
compact later and send more); window-choice (1M) saves a compaction at the price of more tokens sent on
every one; repeated-content found on 38 (reads of the same file and size while a copy was held) but its
replayed saving is 0 on all 38: the import turns a partial read into a plain tool result with no path,
which dedup cannot match, and the replay of a whole re-read already sends Claude Code's unchanged stub
where the session sent the content again. Each session took 0.1-0.4 s of CPU in process.
"""

from __future__ import annotations

import argparse
import gzip
import tempfile
import time
from pathlib import Path

from ctxviz.errors import InputError
from ctxviz.importer import session_to_scenario
from ctxviz.report.audit import carried_cost
from ctxviz.report.audit_findings import findings
from ctxviz.transcripts.registry import read_target


def audit_row(name: str, path: Path) -> str:
    start = time.process_time()
    try:
        timeline = read_target(path).timeline
    except InputError as error:
        return f"| `{name}` | — | — | — | — | {error.message[:60]} | — |"
    cost = carried_cost(timeline)
    off = cost.unaccounted / cost.input_tokens * 100 if cost.input_tokens else 0.0
    try:
        imported = session_to_scenario(path)
        found = findings(imported.scenario, cost, call_events=[c.after_event for c in imported.calls],
                         window=timeline.window)  # fmt: skip
        saved = "; ".join(f"{f.kind} {f.input_tokens_saved:+,}" for f in found)
    except InputError:
        saved = "not replayed"
    seconds = time.process_time() - start
    return (f"| `{name}` | {timeline.agent} | {cost.calls} | {cost.input_tokens:,} | {-off:+.2f}% | {saved} "
            f"| {seconds:.2f} s |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    print("| session | agent | calls | input_tokens | carried vs sent | findings (tokens saved, replayed) | cpu |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for folder in args.folders:
            for path in sorted(folder.rglob("*.jsonl*")):
                if "subagents" in path.parts:
                    continue
                name = str(path.relative_to(folder))
                if path.suffix == ".gz":
                    unpacked = Path(scratch) / path.name.removesuffix(".gz")
                    unpacked.write_bytes(gzip.decompress(path.read_bytes()))
                    path = unpacked
                print(audit_row(name, path), flush=True)


if __name__ == "__main__":
    main()
