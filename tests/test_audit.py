"""``ctxviz audit``: carried cost (tokens × calls), findings saved by two replays, prices. Every expected
figure is worked out by hand from the fixture's own numbers (the usage it records, the sizes it gives)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_helpers import scenario
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.engine import simulate
from ctxviz.kinds import BlockKind, CostKind, FindingKind, StepKind
from ctxviz.report.audit import answered_call_steps, carried_cost
from ctxviz.report.audit_findings import findings
from ctxviz.report.prices import PRICES, Price, input_cost, parse_prices
from ctxviz.scenario.model import Scenario
from ctxviz.timeline import Block, Category, Source, Step, Thresholds, Timeline

# Codex's start-up (its profile's numbers): system prompt 5,583 + environment 120 + tool definitions 1,500.
CODEX_STARTUP = 5_583 + 120 + 1_500
# A file read twice, unchanged, the first copy still in the window; sizes in tokens (chars / 4).
TWICE = """
agent: codex
files:
  src/a.py: {tokens: 1000, lines: 40}
events:
  - prompt: "look at a"
  - read: src/a.py
  - reply: 100
  - prompt: "again"
  - read: src/a.py
  - reply: 100
  - prompt: "done?"
"""


def _timeline(blocks: list[Block], steps: list[Step]) -> Timeline:
    return Timeline(Source("transcript", "t"), "claude-code", "m", 200_000, Thresholds.from_trigger(160_000, 200_000),
                    tuple(steps), tuple(blocks))  # fmt: skip


def test_carried_is_tokens_times_the_calls_an_item_stayed() -> None:
    # call 1 sends A (1,000); call 2 sends A and B (300); a compaction removes B and adds a summary C (50);
    # call 3 sends A and C
    blocks = [
        Block(0, Category.SYSTEM_PROMPT, BlockKind.OVERHEAD, "start-up", 1_000, 0),
        Block(1, Category.MESSAGES, BlockKind.FILE_READ, "a.py", 300, 1, 2),
        Block(2, Category.MESSAGES, BlockKind.SUMMARY, "summary", 50, 2),
    ]
    call = StepKind.API_CALL
    steps = [
        Step(0, call, "call 1", (0,), (), 1_000, measured=True),
        Step(1, call, "call 2", (1,), (), 1_300, measured=True),
        Step(2, StepKind.AUTO_COMPACT, "auto-compaction", (2,), (1,), 1_050, measured=True),
        Step(3, call, "call 3", (), (), 1_050, measured=True),
    ]
    cost = carried_cost(_timeline(blocks, steps))
    assert cost.calls == 3
    assert cost.input_tokens == 1_000 + 1_300 + 1_050
    by_label = {item.label: item for item in cost.items}
    assert (by_label["start-up"].first_call, by_label["start-up"].last_call, by_label["start-up"].carried) == (
        1, 3, 3_000,
    )  # fmt: skip
    assert by_label["start-up"].kind == CostKind.STARTUP_OVERHEAD
    assert (by_label["a.py"].calls, by_label["a.py"].carried) == (1, 300)
    assert (by_label["summary"].first_call, by_label["summary"].carried) == (3, 50)
    assert cost.carried == cost.input_tokens and cost.unaccounted == 0
    assert cost.categories() == {"System prompt": 3_000, "Messages": 350}
    # sent again: A by calls 2 and 3; B and C by no call after their first
    assert cost.carried_over == 1_000 * 2


def test_a_replay_calls_the_model_after_each_prompt_and_tool_result() -> None:
    timeline = simulate(scenario(TWICE))
    steps = timeline.steps
    assert [steps[i].kind for i in answered_call_steps(timeline)] == ["prompt", "read", "prompt", "read", "prompt"]
    cost = carried_cost(timeline)
    # after each call: "look at a" 3 tokens; the read 60 (its call) + 1,000; a reply 100 and "again" 2;
    # the read again; a reply 100 and "done?" 2
    sizes = [CODEX_STARTUP + 3, CODEX_STARTUP + 1_063, CODEX_STARTUP + 1_165, CODEX_STARTUP + 2_225,
             CODEX_STARTUP + 2_327]  # fmt: skip
    assert cost.input_tokens == sum(sizes) == 42_798
    reads = [item for item in cost.items if item.kind == BlockKind.FILE_READ]
    assert sorted((r.tokens, r.calls, r.carried) for r in reads) == [(1_000, 2, 2_000), (1_000, 4, 4_000)]
    assert cost.carried == cost.input_tokens


def test_dedup_saves_what_the_second_copy_would_have_carried() -> None:
    twice = scenario(TWICE)
    cost = carried_cost(simulate(twice))
    found = {f.kind: f for f in findings(twice, cost)}
    repeated = found[FindingKind.REPEATED_CONTENT]
    # the second read (event 4), the one the what-if sends as a reference, carried by calls 4 and 5
    assert repeated.items == ("src/a.py (event 4)",) and repeated.tokens == 2_000
    assert repeated.what_if == ("--set", "dedup=sha256")
    # the reference instead of the content: '<file path="…40 chars…" sha256="…64…" content="full"
    # lines="1-400" total-lines="400" status="unchanged"/>' is 195 chars, 49 tokens; carried by calls 4 and 5
    assert repeated.input_tokens_saved == (1_000 - 49) * 2
    assert repeated.compactions_saved == 0


def test_findings_are_ranked_by_tokens_saved() -> None:
    twice = scenario(TWICE)
    found = findings(twice, carried_cost(simulate(twice)))
    saved = [f.input_tokens_saved for f in found]
    assert saved == sorted(saved, reverse=True)
    assert {f.kind for f in found} >= {FindingKind.REPEATED_CONTENT, FindingKind.WINDOW_CHOICE, FindingKind.OTHER_AGENT}


def _call(n: int, parent: str, used: int) -> dict[str, object]:
    usage = {"input_tokens": used, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    message = {"id": f"m{n}", "model": "claude-opus-4-6", "role": "assistant", "usage": usage, "content": []}
    return {"type": "assistant", "uuid": f"a{n}", "parentUuid": parent, "message": message}


def _prompt(n: int, parent: str | None, chars: int) -> dict[str, object]:
    return {"type": "user", "uuid": f"u{n}", "parentUuid": parent, "message": {"role": "user", "content": "p" * chars}}


@pytest.fixture
def three_calls(tmp_path: Path) -> Path:
    """Three calls: 10,000 (a 400-char prompt, 100 tokens, and 9,900 unrecorded), then 12,000 and 12,500,
    each growth a prompt of its own."""
    records = [_prompt(0, None, 400), _call(0, "u0", 10_000), _prompt(1, "a0", 800), _call(1, "u1", 12_000),
               _prompt(2, "a1", 80), _call(2, "u2", 12_500)]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_cli_audit_json_of_a_session(three_calls: Path) -> None:
    result = CliRunner().invoke(main, ["audit", str(three_calls), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["format"] == "ctxviz.audit/1"
    assert (document["agent"], document["calls"], document["measured"]) == ("claude-code", 3, True)
    assert document["input_tokens"] == 10_000 + 12_000 + 12_500
    items = [(i["kind"], i["tokens"], i["first_call"], i["last_call"], i["carried"]) for i in document["items"]]
    assert items == [
        ("startup-overhead", 9_900, 1, 3, 29_700),
        ("prompt", 2_000, 2, 3, 4_000),
        ("prompt", 500, 3, 3, 500),
        ("prompt", 100, 1, 3, 300),
    ]
    assert sum(i["carried"] for i in document["items"]) == document["input_tokens"]
    assert document["categories"] == {"System prompt": 29_700, "Messages": 4_800}
    assert document["findings"] is not None
    for finding in document["findings"]:
        assert set(finding) == {"kind", "title", "items", "tokens", "what_if", "input_tokens_saved",
                                "compactions_saved", "compaction_calls"}  # fmt: skip
    # Opus 4.6: $6.25 per million written, $0.50 read; written 10,000 + 2,000 + 500, read 0 + 10,000 + 12,000
    assert document["cost"]["input_dollars"] == round((12_500 * 6.25 + 22_000 * 0.50) / 1_000_000, 4)


def test_cli_audit_text_and_a_scenario(tmp_path: Path) -> None:
    path = tmp_path / "twice.yaml"
    path.write_text("name: twice\n" + TWICE)
    result = CliRunner().invoke(main, ["audit", str(path)])
    assert result.exit_code == 0, result.output
    assert "repeated-content" in result.output and "dedup=sha256" in result.output


def test_another_agents_session_is_replayed_under_its_own_rules() -> None:
    # two token_count records: last_token_usage.input_tokens 1,000, then 2,500
    rollout = Path(__file__).parent / "fixtures" / "other-agents" / "codex" / "ccusage-session-alpha.jsonl"
    result = CliRunner().invoke(main, ["audit", str(rollout), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert (document["agent"], document["calls"], document["input_tokens"]) == ("codex", 2, 1_000 + 2_500)
    assert document["not_replayed"] is None and document["cost"]["known"] is False
    found = {f["kind"]: f for f in document["findings"]}
    # 3,500 tokens in two calls compact under neither window: the 1M window changes nothing
    window = found["window-choice"]
    assert (window["input_tokens_saved"], window["compactions_saved"]) == (0, 0)
    what_if = found["other-agent"]["what_if"]
    assert what_if[0] == "--agents" and what_if[1].startswith("codex,")  # as recorded: codex's rules


def test_prices_file_and_unknown_model(tmp_path: Path, three_calls: Path) -> None:
    prices = tmp_path / "p.json"
    prices.write_text(json.dumps({"claude-opus-4-6": {"input": 1, "cache_write": 2, "cache_read": 1, "output": 3}}))
    result = CliRunner().invoke(main, ["audit", str(three_calls), "--json", "--prices", str(prices)])
    assert json.loads(result.output)["cost"]["input_dollars"] == round((12_500 * 2 + 22_000 * 1) / 1_000_000, 4)
    prices.write_text(json.dumps({"other-model": {"input": 1, "cache_write": 2, "cache_read": 1, "output": 3}}))
    result = CliRunner().invoke(main, ["audit", str(three_calls), "--json", "--prices", str(prices)])
    assert json.loads(result.output)["cost"] == {"model": "claude-opus-4-6", "known": False,
                                                 "note": "no price known", "prices": str(prices)}  # fmt: skip
    prices.write_text('{"m": {"input": "cheap"}}')
    bad = CliRunner().invoke(main, ["audit", str(three_calls), "--prices", str(prices)])
    assert bad.exit_code == 1 and "m.input" in bad.output and "Traceback" not in bad.output


def test_a_compaction_writes_the_whole_window_again() -> None:
    price = Price(input=3, cache_write=4, cache_read=1, output=0)
    # 100 written; 100 read + 20 written; compacted to 50: written again
    cost = input_cost("m", [100, 120, 50], {"m": price})
    assert cost is not None and (cost.written, cost.read) == (170, 100)
    assert input_cost("unknown", [100], PRICES) is None
    with pytest.raises(ValueError, match="x.output"):
        parse_prices({"x": {"input": 1, "cache_write": 1, "cache_read": 1}}, "p.json")


def test_a_call_smaller_than_the_first_calls_unrecorded_part_shrinks_it(tmp_path: Path) -> None:
    """A resumed session's first call holds the earlier conversation: when a later call measures less, the
    unrecorded part gives way, so the items still add up to what each call sent."""
    records = [_prompt(0, None, 400), _call(0, "u0", 50_000), _prompt(1, "a0", 400), _call(1, "u1", 30_000)]
    path = tmp_path / "resumed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    document = json.loads(CliRunner().invoke(main, ["audit", str(path), "--json"]).output)
    # call 1: 49,900 unrecorded + the 100-token prompt; call 2 measures 30,000: the first prompt leaves
    # (100), then the unrecorded part gives the other 20,000 - 100 + 100 (the new prompt's): 29,900
    items = sorted((i["kind"], i["tokens"], i["first_call"], i["calls"]) for i in document["items"])
    assert items == [("prompt", 100, 1, 1), ("prompt", 100, 2, 1), ("startup-overhead", 29_900, 2, 1),
                     ("startup-overhead", 49_900, 1, 1)]  # fmt: skip
    assert document["input_tokens"] == 80_000 and document["unaccounted"] == 0


def test_tool_search_defers_what_the_start_up_loaded_up_front() -> None:
    mcp = scenario("""
        setup:
          mcp: [{server: jira, tools: 10, deferred: false, schemas: 5k}]
        events:
          - prompt: "hi"
          - reply: 10
          - prompt: "bye"
        """)
    found = {f.kind: f for f in findings(mcp, carried_cost(simulate(mcp)))}
    startup = found[FindingKind.STARTUP_OVERHEAD]
    assert startup.what_if == ("--set", "tool_search=on")
    # up front: the 5,000-token schemas; deferred: 10 names × 15 tokens (claude-code's number); two calls
    assert startup.input_tokens_saved == (5_000 - 10 * 15) * 2
    assert "MCP jira: 10 tool schemas" in startup.items


def _a_codex_read_then_edited(change: int, *later_events: str) -> Scenario:
    """A codex scenario: a prompt, a read of the 1,000-token src/a.py, an edit of ``change`` tokens to it,
    then ``later_events`` (YAML list items)."""
    later = "".join(f"\n  {event}" for event in later_events)
    return scenario(
        "agent: codex\nfiles:\n  src/a.py: {tokens: 1000, lines: 40}\nevents:\n"
        f'  - prompt: "look at a"\n  - read: src/a.py\n  - edit: {{path: src/a.py, change: {change}}}{later}\n'
    )


def test_a_read_carried_after_its_file_was_edited_is_a_stale_read_and_its_saving_is_replayed() -> None:
    stale = _a_codex_read_then_edited(50, '- prompt: "next"', '- prompt: "done?"')
    found = {f.kind: f for f in findings(stale, carried_cost(simulate(stale)))}
    finding = found[FindingKind.STALE_READ]
    assert finding.items == ("src/a.py",) and finding.what_if == ("--set", "stale_reads=drop")
    # a call after each of the 5 events; the 1,000-token read enters at call 2 and stays to call 5, so
    # dropped at the edit it is not sent by calls 3, 4 and 5
    assert finding.tokens == 1_000 * 4
    assert (finding.input_tokens_saved, finding.compactions_saved) == (1_000 * 3, 0)


def test_a_finding_opens_its_two_replays_side_by_side(tmp_path: Path) -> None:
    import asyncio

    from ctxviz.audit_source import audit_scenario
    from ctxviz.report.audit_json import audit_dict, cost_json
    from ctxviz.tui.audit_app import AuditApp
    from ctxviz.tui.screens.audit_screen import AuditScreen
    from ctxviz.tui.screens.compare_screen import CompareScreen

    path = tmp_path / "twice.yaml"
    path.write_text("name: twice\n" + TWICE)
    audited = audit_scenario(path)
    document = audit_dict(audited.timeline, audited.cost, audited.findings, cost_json(None, "m", None))
    first = audited.findings[0] if audited.findings else None
    assert first is not None

    async def run() -> None:
        app = AuditApp(audited.timeline, document, audited.findings, audited.comparison)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, CompareScreen)
            labels = [run.label for run in screen.comparison.runs]
            assert labels[0] == "as-recorded" and len(labels) == 2
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, AuditScreen)

    asyncio.run(run())


def test_a_on_the_timeline_opens_the_audit_and_esc_comes_back(tmp_path: Path) -> None:
    import asyncio

    from textual.widgets import DataTable

    from ctxviz.sources import open_timeline
    from ctxviz.tui.app import CtxvizApp
    from ctxviz.tui.screens.audit_screen import AuditScreen
    from ctxviz.tui.screens.compare_screen import CompareScreen
    from ctxviz.tui.screens.timeline_screen import TimelineScreen

    path = tmp_path / "twice.yaml"
    path.write_text("name: twice\n" + TWICE)
    app = CtxvizApp(open_timeline(path))

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("a")
            await app.workers.wait_for_complete()
            await pilot.pause()
            audit = app.screen
            assert isinstance(audit, AuditScreen)
            # a call after each of the 3 prompts and 2 reads; the 1,000-token file read at call 2 stays to
            # call 5 (4,000 carried), read again at call 4 (2,000): codex keeps both copies (hand count)
            items = audit.query_one("#audit-items", DataTable)
            rows = [[str(cell) for cell in items.get_row_at(row)][:5] for row in range(items.row_count)]
            assert ["src/a.py", "file-read", "1,000", "2–5", "4,000"] in rows
            assert ["src/a.py", "file-read", "1,000", "4–5", "2,000"] in rows
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, CompareScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is audit
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TimelineScreen)
            await pilot.press("a")  # made once: the same audit again, at once
            await pilot.pause()
            assert isinstance(app.screen, AuditScreen)

    asyncio.run(run())


def test_context_lists_what_carried_most_so_far() -> None:
    # Codex's two calls: 1,000 (all start-up, the rollout records no item), then 2,500 (1,500 more)
    rollout = Path(__file__).parent / "fixtures" / "other-agents" / "codex" / "ccusage-session-alpha.jsonl"
    document = json.loads(CliRunner().invoke(main, ["context", str(rollout), "--json"]).output)
    assert [(i["kind"], i["carried"]) for i in document["carried"]] == [
        ("startup-overhead", 1_000 * 2), ("unexplained-growth", 1_500 * 1),
    ]  # fmt: skip
    at_first = json.loads(CliRunner().invoke(main, ["context", str(rollout), "--json", "--at", "1"]).output)
    assert [i["carried"] for i in at_first["carried"]] == [1_000]
    text = CliRunner().invoke(main, ["context", str(rollout)]).output
    assert "Carried most so far" in text and "2,000" in text


def test_a_label_with_markup_is_printed_as_written(tmp_path: Path) -> None:
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "[/][bold]boom"}},
        _call(0, "u0", 10_000),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    for command in (["audit", str(path)], ["context", str(path)]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 0, result.output
        assert "[/][bold]boom" in result.output


def test_a_read_after_an_edit_is_new_content_not_repeated() -> None:
    edited = _a_codex_read_then_edited(20, "- read: src/a.py")
    cost = carried_cost(simulate(edited))
    assert cost.edits["src/a.py"] == (3,)  # the edit is sent by the third call
    assert FindingKind.REPEATED_CONTENT not in {f.kind for f in findings(edited, cost)}


def _partial_reads(path: Path, second: str) -> Path:
    """Two Reads of the same line range, each a measured call (10,000 → 11,000 → 12,000), then a prompt
    (12,100); the first result is 4,000 x's, the second ``second``."""

    def read(n: int, parent: str, used: int) -> list[dict[str, object]]:
        use = {"type": "tool_use", "id": f"t{n}", "name": "Read",
               "input": {"file_path": "/r/a.py", "offset": 10, "limit": 100}}  # fmt: skip
        call = _call(n, parent, used)
        call["message"]["content"] = [use]  # type: ignore[index]
        return [call]

    def result(n: int, parent: str, text: str) -> dict[str, object]:
        content = [{"type": "tool_result", "tool_use_id": f"t{n - 1}", "content": text}]
        return {"type": "user", "uuid": f"u{n}", "parentUuid": parent, "message": {"role": "user", "content": content}}

    records = [_prompt(0, None, 400), *read(1, "u0", 10_000), result(2, "a1", "x" * 4_000),
               *read(2, "u2", 11_000), result(3, "a2", second), _call(3, "u3", 12_000),
               _prompt(4, "a3", 400), _call(4, "u4", 12_100)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_dedup_matches_a_partial_read_of_a_session_by_its_content(tmp_path: Path) -> None:
    session = _partial_reads(tmp_path / "s.jsonl", "x" * 4_000)
    result = CliRunner().invoke(main, ["audit", str(session), "--json"])
    assert result.exit_code == 0, result.output
    repeated = next(f for f in json.loads(result.output)["findings"] if f["kind"] == "repeated-content")
    # the second Read grew the window by 11,000 → 12,000 = 1,000: Claude Code's 60-token tool-call envelope,
    # its arguments (56 chars, 14 tokens) and the result, 926; dedup sends the 49-token reference instead,
    # and calls 3 and 4 carry it
    assert repeated["input_tokens_saved"] == (1_000 - 60 - 14 - 49) * 2


def test_dedup_leaves_other_content_of_the_same_size_alone(tmp_path: Path) -> None:
    session = _partial_reads(tmp_path / "s.jsonl", "y" * 4_000)
    result = CliRunner().invoke(main, ["audit", str(session), "--json"])
    assert result.exit_code == 0, result.output
    # the dedup what-if sends nothing as a reference: no finding
    assert "repeated-content" not in {f["kind"] for f in json.loads(result.output)["findings"]}


def test_every_built_in_scenario_model_has_a_price() -> None:
    """The audit of a built-in scenario prices its input: its model is in the table (the published
    Sonnet 4.6 rate is $3 in / $15 out per million, cache write 1.25x and read 0.1x of input)."""
    import yaml

    folder = Path(__file__).parent.parent / "ctxviz" / "scenarios"
    models = {yaml.safe_load(path.read_text()).get("model") for path in folder.glob("*.yaml")} - {None}
    assert models and models <= set(PRICES)
    assert PRICES["claude-sonnet-4-6"] == Price(3.00, 3.75, 0.30, 15.00)
