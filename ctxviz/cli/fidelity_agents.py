"""``ctxviz import`` and ``ctxviz fidelity`` on a session another agent wrote: which agent, and for
``fidelity`` the replay under that agent's rules (Codex, pi), printed or as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ctxviz.cli.common import fail

if TYPE_CHECKING:
    from ctxviz.importer.replay_recorded import RecordedReport


def other_agent(path: Path) -> str | None:
    """The agent that wrote ``path`` when it is not Claude Code (None: Claude Code's, or nobody's known)."""
    from ctxviz.kinds import AgentName
    from ctxviz.transcripts.registry import reader_for

    reader = reader_for(path) if path.is_file() else None
    return None if reader is None or reader.name == AgentName.CLAUDE_CODE else str(reader.name)


def refuse_import(agent: str, path: Path) -> None:
    from ctxviz.importer.replay_recorded import not_importable

    fail(not_importable(agent, path).message)


def print_fidelity(agent: str, path: Path, as_json: bool) -> None:
    from ctxviz.errors import InputError
    from ctxviz.importer.replay_recorded import recorded_fidelity

    try:
        report = recorded_fidelity(agent, path)
    except InputError as error:
        fail(error.message)
    for problem in report.session.problems[:5]:
        click.echo(f"warning: {problem}", err=True)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=1))
        return
    _print(report)


def _print(report: RecordedReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    document = report.to_json()
    first = report.first_predicted
    calls = Table("call", "measured", "simulated", "error", "scored as")
    for row in document["calls"]:
        error = abs(row["simulated"] - row["measured"]) / row["measured"] * 100 if row["measured"] else 0.0
        scored = "predicted" if first is not None and row["call"] >= first else "fitted"
        calls.add_row(str(row["call"]), f"{row['measured']:,}", f"{row['simulated']:,}", f"{error:.2f}%", scored)
    console.print(calls)
    if report.compactions:
        table = Table("compaction", "after call (measured)", "after call (replay)", "off by", "next call measured",
                      "replay there", "error")  # fmt: skip
        for c in document["compactions"]:
            cells = (c["measured_after_call"], c["simulated_after_call"], c["offset"], c["measured_next"],
                     c["simulated_next"])  # fmt: skip
            error = f"{c['next_error']:.1f}%" if c["next_error"] is not None else "—"
            table.add_row(c["trigger"], *(f"{v:,}" if v is not None else "—" for v in cells), error)
        console.print(table)
    console.print(_headline(report, document))


def _headline(report: RecordedReport, document: dict[str, object]) -> str:
    session = report.session
    name = f"[bold]{session.session}[/]: {len(session.calls)} calls replayed under {session.agent}"
    name += f" {session.version}" if session.version else ""
    predicted = document["predicted"]
    fitted = document["fitted"]
    assert isinstance(predicted, dict) and isinstance(fitted, dict)
    if not predicted["calls"]:
        return (
            f"{name}; no compaction with a call after it, so nothing was predicted: all {fitted['calls']} calls fitted"
        )
    return (
        f"{name}: {predicted['calls']} calls predicted (after the first compaction), median error "
        f"{document['median_error']:.2f}%, 90th percentile {document['p90_error']:.2f}%; automatic compactions at "
        f"the same call {predicted['same_call']} of {predicted['automatic_compactions']}, within one "
        f"{predicted['within_one_call']}; first call after within 10% {predicted['next_within_10pct']} of "
        f"{predicted['next_calls']}; {fitted['calls']} calls before it fitted"
    )
