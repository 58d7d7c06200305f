"""SVG snapshots of the TUI on the default scenario: fixed size, fixed theme, no timer running.

Review a changed snapshot in ``snapshot_report.html`` before accepting it with ``--snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytest import MonkeyPatch
from textual.pilot import Pilot

from ctxviz.sources import open_timeline
from ctxviz.timeline import Timeline
from ctxviz.tui.app import DARK, CtxvizApp
from ctxviz.tui.screens.timeline_screen import TimelineScreen

SIZE = (120, 36)
SnapCompare = Callable[..., bool]


@pytest.fixture(scope="module")
def default() -> Timeline:
    return open_timeline(None)


def app_for(timeline: Timeline) -> CtxvizApp:
    return CtxvizApp(timeline, theme=DARK)


async def go_to(pilot: Pilot[Any], index: int) -> None:
    await pilot.pause()  # run_before can start before the screen has mounted
    screen = pilot.app.screen
    assert isinstance(screen, TimelineScreen)
    screen.index = index
    await pilot.pause()


def test_start(snap_compare: SnapCompare, default: Timeline) -> None:
    assert snap_compare(app_for(default), terminal_size=SIZE)


def test_mid_session_a_read_that_brings_a_rule(snap_compare: SnapCompare, default: Timeline) -> None:
    index = next(s.index for s in default.steps if s.kind == "read" and s.notes)

    async def run_before(pilot: Pilot[Any]) -> None:
        await go_to(pilot, index)

    assert snap_compare(app_for(default), terminal_size=SIZE, run_before=run_before)


def test_compaction_step(snap_compare: SnapCompare, default: Timeline) -> None:
    assert snap_compare(app_for(default), press=["n"], terminal_size=SIZE)


def test_context_view_at_the_peak(snap_compare: SnapCompare, default: Timeline) -> None:
    assert snap_compare(app_for(default), press=["n", "left", "2"], terminal_size=SIZE)


def test_blocks_view(snap_compare: SnapCompare, default: Timeline) -> None:
    assert snap_compare(app_for(default), press=["n", "left", "3"], terminal_size=SIZE)


def test_subagent_drill_in(snap_compare: SnapCompare, default: Timeline) -> None:
    index = next(s.index for s in default.steps if s.child is not None)

    async def run_before(pilot: Pilot[Any]) -> None:
        await go_to(pilot, index)
        await pilot.press("enter", "end")

    assert snap_compare(app_for(default), terminal_size=SIZE, run_before=run_before)


def test_smallest_supported_terminal(snap_compare: SnapCompare, default: Timeline) -> None:
    assert snap_compare(app_for(default), press=["right"] * 9, terminal_size=(80, 24))


def test_help(snap_compare: SnapCompare, default: Timeline) -> None:
    assert snap_compare(app_for(default), press=["question_mark"], terminal_size=SIZE)


def test_glossary(snap_compare: SnapCompare, default: Timeline) -> None:
    assert snap_compare(app_for(default), press=["g"], terminal_size=SIZE)


def test_compaction_at_a_glance_at_80x24(snap_compare: SnapCompare, default: Timeline) -> None:
    assert snap_compare(app_for(default), press=["n"], terminal_size=(80, 24))


def test_chart_crossing_the_auto_compact_line(snap_compare: SnapCompare) -> None:
    deep_dive = open_timeline("compaction-deep-dive")
    crossing = deep_dive.compaction_indices()[0] - 1  # the step at 170,770, over 167,000

    async def run_before(pilot: Pilot[Any]) -> None:
        await go_to(pilot, crossing)

    assert snap_compare(app_for(deep_dive), terminal_size=SIZE, run_before=run_before)


def test_open_picker(snap_compare: SnapCompare, default: Timeline, tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    # no sessions on this "machine": the picker must not show the real user's
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("o")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app_for(default), terminal_size=SIZE, run_before=run_before)


def test_audit_at_80x24(snap_compare: SnapCompare) -> None:
    from ctxviz.cli.audit_commands import _audit_scenario
    from ctxviz.report.audit_json import audit_dict, cost_json
    from ctxviz.tui.audit_app import AuditApp

    path = Path(__file__).resolve().parents[1] / "ctxviz" / "scenarios" / "compaction-deep-dive.yaml"
    audited = _audit_scenario(path)
    document = audit_dict(audited.timeline, audited.cost, audited.findings, cost_json(None, "m", None))
    app = AuditApp(audited.timeline, document, audited.findings, audited.comparison)
    assert snap_compare(app, terminal_size=(80, 24))
