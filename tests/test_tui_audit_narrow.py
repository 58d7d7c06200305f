"""At 80 columns the audit's findings keep the one column to act on, the what-if to replay: a compactions
column that says "as many" in every row gives way, said once in the heading (it cut "--set stale_reads…")."""

from __future__ import annotations

import asyncio
from typing import Any

from agent_helpers import run
from textual.widgets import DataTable, Label

from ctxviz.kinds import FindingKind
from ctxviz.report.audit_findings import Finding
from ctxviz.tui.audit_app import AuditApp
from ctxviz.tui.screens.audit_screen import AuditScreen

SETTING = "stale_reads=drop"
REPLAY = f"--set {SETTING}"


def _document() -> dict[str, Any]:
    return {"session": "s", "file": "s.jsonl", "agent": "claude-code", "model": "m", "measured": True,
            "calls": 200, "input_tokens": 10_000_000, "unaccounted": 0, "categories": {}, "items": [],
            "findings": [], "not_replayed": None, "cost": {"known": False, "model": "m", "prices": "p"}}  # fmt: skip


def _shown(compactions: int, size: tuple[int, int]) -> tuple[str, list[str], list[str]]:
    finding = Finding(FindingKind.STALE_READ, "t", (), 0, (SETTING,), ("claude-code", "claude-code"), -1_500_000,
                      compactions)  # fmt: skip
    app = AuditApp(run("claude-code", "events:\n  - prompt: hi\n"), _document(), [finding], lambda f: None)  # type: ignore[arg-type,return-value]
    seen: list[Any] = []

    async def pilot_run() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, AuditScreen)
            table = app.screen.query_one("#audit-findings", DataTable)
            seen.append(str(app.screen.query_one("#findings-heading", Label).render()))
            seen.append([str(column.label) for column in table.columns.values()])
            seen.append([str(cell) for cell in table.get_row_at(0)])

    asyncio.run(pilot_run())
    return seen[0], seen[1], seen[2]


def test_at_80_columns_the_replay_shows_whole() -> None:
    heading, columns, row = _shown(0, (80, 24))
    assert columns == ["finding", "input tokens (replayed)", "replay with"]
    assert row[-1] == REPLAY
    assert "compactions: as many in each" in heading


def test_a_finding_that_changes_the_compactions_keeps_the_column() -> None:
    heading, columns, row = _shown(-2, (80, 24))
    assert "compactions" in columns and "2 more" in row
    assert "as many in each" not in heading


def test_wide_enough_nothing_goes() -> None:
    heading, columns, row = _shown(0, (120, 40))
    assert "compactions" in columns and row[-1] == REPLAY
