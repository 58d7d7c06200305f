"""``ctxviz audit`` over every session in some folders: does the carried cost add up, and what was found.

    python benchmarks/audit_accuracy.py FOLDER [FOLDER...]

Any agent's session files (``.jsonl``, ``.jsonl.gz``, ``.json``, opencode's ``.db``; subagents' own files
left out). Each row: the agent, calls, input_tokens (the sum of the calls' measured context), the items'
carried tokens less input_tokens (issue 17 asks for 0.5% at most), each finding's replayed saving (and
for repeated-content how many items the dedup replay sent as a reference), and the CPU time in process.
Then, per agent, the worst session; per finding, how often it saves and how often its replay sends as
much or more. Reads nothing from the network and writes nothing.

Last run, 2026-12-02, on a corpus of 80 public sessions (68 Claude Code, 10 Codex, 2 pi) and on every
session in tests/fixtures whose log records usage (21 Claude Code, 3 Codex, 2 gemini-cli, 2 opencode,
2 pi; grok-build's record none): the items' carried tokens equal input_tokens exactly on every one,
worst 0 tokens for each agent. Before, 7 of the 10 Codex rollouts were over (worst 79/6eaddfe2f9
+1.52%): a compaction's replacement history holds the developer instructions and AGENTS.md again, and
the reader had added them beside the first copies.

Findings, as ``ctxviz audit`` replays them. On the 68 Claude Code sessions: repeated-content on 59
(what the dedup replay sends as a reference), saving on 49 (4,707,315 tokens in all); on the other 10 the
smaller window compacts later and the calls until then send more (up to -615,956). stale-read saves on
48 of 68, large-output on 21 of 29, other-agent on 63 of 68; window-choice (1M) never saves tokens, it
saves compactions. Codex and pi sessions, imported from their reader's timeline (no digests, so no
repeated-content): large-output saves on 9 of 10 Codex and 2 of 2 pi, other-agent on 9 of 10 and 2 of 2.
Each Claude Code session took 0.07-0.63 s of CPU in process, median 0.33 s (load average 12).
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ctxviz.audit_source import audit_session
from ctxviz.errors import InputError
from ctxviz.kinds import FindingKind
from ctxviz.report.audit import carried_cost
from ctxviz.report.audit_findings import Finding
from ctxviz.transcripts.registry import read_target

_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".db")


@dataclass
class Tally:
    sessions: dict[str, list[tuple[float, int, str]]] = field(default_factory=lambda: defaultdict(list))
    found: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))  # kind → savings


def _saving(finding: Finding) -> str:
    shown = f"{finding.kind} {finding.input_tokens_saved:+,}"
    if finding.kind == FindingKind.REPEATED_CONTENT:
        shown += f" ({len(finding.items)} items)"
    return shown


def audit_row(name: str, path: Path, tally: Tally) -> str | None:
    start = time.process_time()
    try:
        timeline = read_target(path).timeline
    except InputError:
        return None  # not a session ctxviz reads (a hook log, a summary beside a session)
    cost = carried_cost(timeline)
    if not cost.calls:
        return None  # no call records its usage: nothing to add up
    over = cost.carried - cost.input_tokens
    share = 100 * over / cost.input_tokens
    tally.sessions[timeline.agent].append((abs(share), over, name))
    found = audit_session(path, timeline).findings  # as ``ctxviz audit`` replays it
    saved = "not replayed" if found is None else "; ".join(_saving(f) for f in found)
    for finding in found or ():
        tally.found[f"{timeline.agent} {finding.kind}"].append(finding.input_tokens_saved)
    seconds = time.process_time() - start
    return (f"| `{name}` | {timeline.agent} | {cost.calls} | {cost.input_tokens:,} | {over:+,} ({share:+.2f}%) "
            f"| {saved} | {seconds:.2f} s |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    tally = Tally()
    print("| session | agent | calls | input_tokens | carried - sent | findings (tokens saved, replayed) | cpu |")
    print("|---|---|---|---|---|---|---|")
    for folder in args.folders:
        for path in sorted(folder.rglob("*")):
            if "subagents" in path.parts or not path.name.endswith(_SUFFIXES) or not path.is_file():
                continue
            row = audit_row(str(path.relative_to(folder)), path, tally)
            if row is not None:
                print(row, flush=True)
    print()
    for agent, rows in sorted(tally.sessions.items()):
        share, over, name = max(rows)
        exact = sum(1 for row in rows if row[1] == 0)
        print(f"{agent}: {len(rows)} sessions, {exact} exact; worst {name}: {over:+,} tokens ({share:.2f}%)")
    for kind, savings in sorted(tally.found.items()):
        saving = [s for s in savings if s > 0]
        print(f"{kind}: found on {len(savings)}, saves on {len(saving)} (total {sum(saving):,}), "
              f"sends as much or more on {len(savings) - len(saving)}")  # fmt: skip


if __name__ == "__main__":
    main()
