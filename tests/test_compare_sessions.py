"""What-ifs and comparisons on a real, vendored Claude Code session (spotter-4d5611e5), end to end.

The numbers were worked out from the commands' output and checked against the session itself: 139 API
calls, imported as 244 events; the session compacted automatically once, at the call after event 113
(the compact record's pre-compaction size is 170,251; the next call measured 36,081)."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Label
from tui_driving import press_and_settle

from ctxviz.cli import main
from ctxviz.cli.compare_commands import build_comparison, open_what_if
from ctxviz.report.compare import comparison_renderable
from ctxviz.report.compare_json import FORMAT
from ctxviz.report.compare_runs import WhatIf, compare, parse_run_specs
from ctxviz.report.json import FORMAT as TIMELINE_FORMAT
from ctxviz.sources import open_replayable
from ctxviz.timeline import Timeline
from ctxviz.tui.app import DARK
from ctxviz.tui.compare_app import CompareApp, WhatIfApp
from ctxviz.tui.screens.compare_screen import CompareScreen
from ctxviz.tui.widgets.compare_lane import EventChart
from ctxviz.tui.widgets.reference_chart import DOT, ReferenceChartWidget
from ctxviz.tui.widgets.token_bar import markers_of
from ctxviz.whatif import parse_settings

SESSION = Path(__file__).parent / "fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
EVENTS = 244
COMPACTING_EVENT = 113  # the session's own compaction came right after this event
MODELS = ["claude-opus-4-6", "gpt-5.4"]  # claude-code runs the session's model; Codex its own default


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--tokenizer", "chars4", *args])
    return result.exit_code, result.stdout, result.stderr


def run_json(*settings: str) -> dict[str, Any]:
    code, out, err = invoke("run", str(SESSION), *(f"--set={s}" for s in settings), "--json")
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def compactions(steps: list[dict[str, Any]]) -> list[tuple[int | None, int, int]]:
    """(the event that set it off, the size before, the size after) for each automatic compaction."""
    return [
        (steps[i - 1]["event"], steps[i - 1]["used"], step["used"])
        for i, step in enumerate(steps)
        if step["kind"] == "auto-compact"
    ]


def measured_after_each_event() -> list[int | None]:
    loaded = open_replayable(str(SESSION), "chars4")
    assert loaded.measured is not None
    return list(loaded.measured)


def test_the_session_imports_with_what_it_measured_after_each_event() -> None:
    measured = measured_after_each_event()
    assert len(measured) == EVENTS
    assert sum(value is not None for value in measured) == 139  # every call follows some event
    before = [value for value in measured[:COMPACTING_EVENT] if value is not None]
    assert before[-1] == max(before) == 164_831 and measured[COMPACTING_EVENT] == 36_081


def test_as_written_the_engine_compacts_where_the_session_did() -> None:
    steps = run_json("autocompact=on")["steps"]
    # where and from what size; what comes back is the compaction policy's (test_importer scores it)
    assert [(event, before) for event, before, _ in compactions(steps)] == [(COMPACTING_EVENT, 170_251)]


def test_window_1m_never_compacts_and_peaks_at_the_sum_of_everything() -> None:
    document = run_json("window=1m")
    steps = document["steps"]
    assert document["window"] == 1_000_000 and document["thresholds"]["autocompact"] == 967_000
    assert compactions(steps) == [] and len(steps) == 260
    assert max(step["used"] for step in steps) == steps[-1]["used"] == 240_268
    # nothing leaves the window: the peak is every block that ever entered it
    blocks = document["blocks"]
    assert all(block["left"] is None for block in blocks) and sum(block["tokens"] for block in blocks) == 240_268


def test_autocompact_above_the_window_changes_nothing_and_says_so() -> None:
    capped = run_json("autocompact=500k")
    assert capped["thresholds"] == run_json("autocompact=on")["thresholds"]
    assert compactions(capped["steps"]) == compactions(run_json("autocompact=on")["steps"])
    assert [(event, before) for event, before, _ in compactions(capped["steps"])] == [(COMPACTING_EVENT, 170_251)]
    assert any("autocompact=500k" in notice and "200,000" in notice for notice in capped["notices"])


def test_autocompact_below_the_window_compacts_earlier() -> None:
    document = run_json("autocompact=150k")
    # the trigger from a 150,000 window: less 20,000 for the reply and the 13,000 buffer
    assert document["thresholds"]["autocompact"] == 150_000 - 20_000 - 13_000 == 117_000
    # event 79 (a 9,801-token read) crosses it; the second compaction comes 79 events later, at the
    # first call whose window is over 117,000 (checked only before a call, as Claude Code does)
    assert compactions(document["steps"]) == [(79, 124_851, 42_936), (158, 117_894, 46_926)]
    assert document["notices"] == ["what-if: autocompact=150k"]  # said in the JSON: not the session as it ran


def test_dropping_the_largest_write_moves_the_compaction_later() -> None:
    steps = run_json("drop=86")["steps"]
    dropped = [step for step in steps if step["event"] == 86]
    assert [step["kind"] for step in dropped] == ["note"] and dropped[0]["added"] == []
    # the write of transcript_renderer.ex (15,865 tokens) left out: the window reaches the threshold
    # 11 events later, and holds 42,920 after the compaction
    assert compactions(steps) == [(124, 172_485, 42_920)]


def test_compare_runs_the_session_under_each_agent_event_by_event() -> None:
    code, out, err = invoke("compare", str(SESSION), "--agents", "claude-code,codex,pi", "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["format"] == FORMAT == "ctxviz.compare/1"
    assert document["scenario"]["name"] == SESSION.stem and len(document["scenario"]["events"]) == EVENTS
    # each event carries what the session measured after it, as the compare screen's dots
    measured = [event["measured"] for event in document["scenario"]["events"]]
    assert measured == measured_after_each_event() and measured[COMPACTING_EVENT] == 36_081
    runs = {run["label"]: run["timeline"] for run in document["runs"]}
    assert list(runs) == ["claude-code", "codex", "pi"]
    for timeline in runs.values():
        assert timeline["format"] == TIMELINE_FORMAT
        # every event appears, in order, in every run: the runs line up
        events = [step["event"] for step in timeline["steps"] if step["event"] is not None]
        assert sorted(set(events)) == list(range(EVENTS)) and events == sorted(events)
    assert [(t["window"], len(t["steps"])) for t in runs.values()] == [(200_000, 261), (272_000, 260), (200_000, 261)]
    assert compactions(runs["claude-code"]["steps"]) == compactions(run_json("autocompact=on")["steps"])
    # Codex compacts at 90% of 272,000 = 244,800: never reached
    assert compactions(runs["codex"]["steps"]) == [] and max(s["used"] for s in runs["codex"]["steps"]) == 231_649
    # pi compacts at the window less 16,384 = 183,616: earlier, and keeps the newest 20,000 tokens
    assert compactions(runs["pi"]["steps"]) == [(86, 189_005, 33_984)]


def window_1m() -> WhatIf:
    ctx = click.Context(main, obj={"tokenizer": "chars4"})
    return open_what_if(ctx, str(SESSION), parse_settings(["window=1m"]), False)


@asynccontextmanager
async def what_if_1m_shown(what_if: WhatIf, size: tuple[int, int]) -> AsyncIterator[tuple[WhatIfApp, Pilot[None]]]:
    """The app playing ``what_if`` (window=1m), running at ``size`` and settled."""
    app = WhatIfApp(what_if, ("window=1m",))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        yield app, pilot


def test_play_with_a_what_if_sets_the_measured_curve_against_the_simulated_one() -> None:
    what_if = window_1m()
    timeline: Timeline = what_if.timeline
    assert what_if.reference_name == "measured" and timeline.window == 1_000_000
    assert len(timeline.steps) == 260 and max(step.used for step in timeline.steps) == 240_268
    # each step carries what the session measured after its event (none for the start-up, none where
    # no call came before the next event)
    assert sum(value is not None for value in what_if.reference) == 152
    assert what_if.reference[:12] == [None, None, None, 26_450, None, None, 28_046, 28_046, 29_361, None, 29_510, None]

    async def run() -> None:
        async with what_if_1m_shown(what_if, (120, 36)) as (app, pilot):
            # the session by the first 8 characters of its id, after the what-if: a narrow header cuts the end
            assert str(app.screen.title) == f"what-if window=1m · session 4d5611e5 · ▇ simulated, {DOT} measured"
            chart = app.screen.query_one(ReferenceChartWidget)
            assert chart.border_title is not None and chart.border_title.startswith(f"▇ simulated · {DOT} measured")
            assert DOT in "".join(strip.text for strip in chart.render_lines(chart.region.reset_offset))

    asyncio.run(run())


def test_c_from_a_sessions_what_if_compares_with_the_measurements() -> None:
    async def run() -> None:
        async with what_if_1m_shown(window_1m(), (160, 50)) as (app, pilot):
            screen = await press_and_settle(pilot, app, "c")
            assert isinstance(screen, CompareScreen)
            runs = [(r.label, r.settings) for r in screen.comparison.runs]
            assert runs == [("as-written", {}), ("what-if", {"window": 1_000_000})]
            assert screen.comparison.measured == tuple(measured_after_each_event())
            assert screen.heading == f"compare · session 4d5611e5 · {DOT} measured"

    asyncio.run(run())


def test_at_80_columns_the_header_still_names_the_what_if() -> None:
    async def run() -> None:
        async with what_if_1m_shown(window_1m(), (80, 24)) as (app, pilot):
            header = app.screen.query_one("#header-name", Label)
            shown = "".join(strip.text for strip in header.render_lines(header.region.reset_offset)[:1])
            assert shown.startswith("what-if window=1m · ") and shown.rstrip().endswith("…")
            chart = app.screen.query_one(ReferenceChartWidget)
            assert chart.border_title is not None and chart.border_title.startswith(f"▇ simulated · {DOT} measured")

    asyncio.run(run())


def test_a_lane_whose_agent_warns_where_it_compacts_names_the_compaction() -> None:
    loaded = open_replayable(str(SESSION), "chars4")
    comparison = compare(loaded.scenario, parse_run_specs("claude-code,codex", []), parse_settings([]))
    claude, codex = (run.timeline for run in comparison.runs)
    assert [m.label for m in markers_of(claude)] == ["warning 147k", "auto-compact 167k"]
    # Codex warns at 90% of 272,000, where it compacts: one marker, not a "warning" at the trigger
    assert codex.thresholds.warning == codex.thresholds.autocompact == 244_800
    assert [m.label for m in markers_of(codex)] == ["auto-compact 245k"]


@pytest.mark.parametrize("command", ["run", "compare"])
def test_a_damaged_session_is_a_located_error(tmp_path: Path, command: str) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    code, out, err = invoke(command, str(broken), "--set", "window=1m")
    assert code == 1 and out == "" and str(broken) in err and "Traceback" not in err


def test_the_compare_screen_sets_the_measured_session_beside_every_lane() -> None:
    ctx = click.Context(main, obj={"tokenizer": "chars4"})
    comparison = build_comparison(ctx, str(SESSION), "claude-code,codex", parse_settings([]), False)
    assert comparison.measured == tuple(measured_after_each_event())

    async def run() -> None:
        app = CompareApp(comparison)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, CompareScreen)
            assert screen.heading == f"compare · session 4d5611e5 · {DOT} measured"
            screen.position = COMPACTING_EVENT + 1
            await pilot.pause()
            event = screen.query_one("#compare-event", Label)
            assert str(event.render()).startswith(f"event {COMPACTING_EVENT}/243 · measured 36,081 · ")
            for chart in screen.query(EventChart):
                drawn = "".join(strip.text for strip in chart.render_lines(chart.region.reset_offset))
                assert drawn.count(DOT) > 0

    asyncio.run(run())


def test_a_scenario_comparison_draws_no_dots() -> None:
    ctx = click.Context(main, obj={"tokenizer": "chars4"})
    comparison = build_comparison(ctx, "compaction-deep-dive", "claude-code", parse_settings([]), False)
    assert comparison.measured is None

    async def run() -> None:
        app = CompareApp(comparison)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, CompareScreen) and app.screen.heading == "compare · Compaction deep dive"
            chart = app.screen.query_one(EventChart)
            assert DOT not in "".join(strip.text for strip in chart.render_lines(chart.region.reset_offset))

    asyncio.run(run())


def table_lines(agents: str, width: int) -> list[str]:
    ctx = click.Context(main, obj={"tokenizer": "chars4"})
    comparison = build_comparison(ctx, str(SESSION), agents, parse_settings([]), False)
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(comparison_renderable(comparison, width))
    lines: list[str] = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert max(len(line.rstrip()) for line in lines) <= width
    return lines


def test_the_tables_give_the_measured_context_beside_the_runs() -> None:
    lines = table_lines("claude-code,codex", 80)
    # still two runs in one table at 80 columns: the event labels make room for the measured column
    assert [line.split() for line in lines[3:5]] == [["session", "claude-code", "codex"], ["measured", *MODELS]]
    row = next(line for line in lines if line.startswith(f"{COMPACTING_EVENT} "))
    assert row.split()[-8:] == ["36,081", "+18,385", "−143,838", "=", "39,403", "+5,395", "=", "161,632"]
    start = lines.index("Runs")
    assert lines[start + 1 : start + 4] == [
        "session · measured · peak 164,831 · final 106,060",
        "claude-code · claude-opus-4-6 · window 200,000 · peak 170,251 · final 109,420",
        f"    auto-compacted at event {COMPACTING_EVENT}: 170,251 → 39,403",
    ]
    assert next(line for line in lines if line.startswith("  0 ")).startswith("  0 prompt Work o…   26,450  +37")
    # with room to spare the labels keep their width
    wide = table_lines("claude-code,codex", 160)
    assert next(line for line in wide if line.startswith("  0 ")).startswith("  0 prompt Work on bead sp…   26,450")


def test_run_set_says_what_was_replayed() -> None:
    code, out, _ = invoke("run", str(SESSION), "--set", "window=1m")
    assert code == 0  # (the line wraps at the runner's 80 columns)
    words = " ".join(out.split())
    assert (
        "what-if window=1m: session 4d5611e5 replayed under these settings, not as it ran (without --set, "
        "`ctxviz run` shows the session as recorded) #" in words
    )
    code, out, _ = invoke("run", "compaction-deep-dive", "--set", "window=1m", "--set", "drop=3")
    assert code == 0
    words = " ".join(out.split())
    assert (
        "what-if window=1m drop=3: Compaction deep dive replayed under these settings (without --set: as written) #"
        in words
    )


def test_snapshot_the_session_under_three_agents_at_its_compaction(snap_compare: Callable[..., bool]) -> None:
    ctx = click.Context(main, obj={"tokenizer": "chars4"})
    comparison = build_comparison(ctx, str(SESSION), "claude-code,codex,pi", parse_settings([]), False)
    # n, n: pi compacts after event 86, then claude-code after event 113, where the session did
    assert snap_compare(CompareApp(comparison, theme=DARK), press=["n", "n"], terminal_size=(160, 50))
