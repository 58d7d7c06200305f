"""The audit screen words a finding's outcome as ``ctxviz audit`` does: a what-if that sends more says
"sends N more", never shows a negative saving. Findings are made by hand, so the figures are known."""

from __future__ import annotations

import asyncio
from typing import Any

from agent_helpers import run
from textual.widgets import DataTable

from ctxviz.kinds import FindingKind
from ctxviz.report.audit_findings import Finding
from ctxviz.tui.audit_app import AuditApp
from ctxviz.tui.screens.audit_screen import AuditScreen

ITEM = {"label": "src/a.py", "kind": "file-read", "tokens": 1_000, "first_call": 2, "last_call": 5, "calls": 4,
        "carried": 4_000}  # fmt: skip


def _finding(kind: FindingKind, saved: int, compactions: int) -> Finding:
    return Finding(kind, "t", (), 0, ("output_cap=2k",), ("claude-code", "claude-code"), saved, compactions)


def _document() -> dict[str, Any]:
    return {"session": "s", "file": "s.jsonl", "agent": "claude-code", "model": "m", "measured": True,
            "calls": 200, "input_tokens": 10_000_000, "unaccounted": 0, "categories": {}, "items": [ITEM],
            "findings": [], "not_replayed": None, "cost": {"known": False, "model": "m", "prices": "p"}}  # fmt: skip


def _rows(findings: list[Finding], size: tuple[int, int]) -> list[list[str]]:
    """The findings table's rows, as shown; the items table's numbers are checked to line up on the right."""
    timeline = run("claude-code", "events:\n  - prompt: hi\n")
    app = AuditApp(timeline, _document(), findings, lambda finding: None)  # type: ignore[arg-type,return-value]
    rows: list[list[str]] = []

    async def pilot_run() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, AuditScreen)
            table = app.screen.query_one("#audit-findings", DataTable)
            rows.extend([str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count))
            items = app.screen.query_one("#audit-items", DataTable).get_row_at(0)
            assert [str(cell) for cell in items] == ["src/a.py", "file-read", "1,000", "2–5", "4,000", "0.0%"]
            assert [getattr(cell, "justify", None) for cell in items[2:]] == ["right"] * 4

    asyncio.run(pilot_run())
    return rows


def test_a_what_if_that_sends_more_is_worded_not_negative() -> None:
    findings = [
        _finding(FindingKind.REPEATED_CONTENT, 250_000, 1),  # 2.5% of 10,000,000
        _finding(FindingKind.LARGE_OUTPUT, -1_500_000, -2),  # 15.0%
        _finding(FindingKind.STALE_READ, 0, 0),
    ]
    for size in ((80, 24), (120, 40)):
        rows = _rows(findings, size)
        assert [row[1:3] for row in rows] == [
            ["saves 250,000 (2.5%)", "1 fewer"],
            ["sends 1,500,000 more (15.0%)", "2 more"],
            ["sends the same", "as many"],
        ]
        assert not any("-" in cell for row in rows for cell in row[1:3])
