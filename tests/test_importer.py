"""``ctxviz import`` and ``ctxviz fidelity`` on the vendored real sessions: exact numbers, a round trip
through YAML, paths kept off the output, and the command line."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.engine import simulate
from ctxviz.importer import fidelity, session_to_scenario
from ctxviz.scenario_file import load_scenario
from ctxviz.tokens import CharsPerToken

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
SPOTTER = FIXTURES / "spotter-4d5611e5" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
FASTHOOKS = FIXTURES / "fasthooks" / "sample_main_transcript.jsonl"
SMALL = [FIXTURES / "spotter-misc" / name for name in ("short.jsonl", "tool_heavy.jsonl", "subagent.jsonl")]


def measured_calls(path: Path) -> list[int]:
    """Each API call's context size, read straight from the file (main chain, deduplicated by id)."""
    seen: set[str] = set()
    calls = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        message = record.get("message") or {}
        usage = message.get("usage")
        if record.get("type") != "assistant" or not usage or record.get("isSidechain") or message["id"] in seen:
            continue
        seen.add(message["id"])
        calls.append(usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"])
    return calls


@pytest.fixture(scope="module")
def spotter():  # noqa: ANN201 - ImportResult
    return session_to_scenario(SPOTTER)


@pytest.fixture(scope="module")
def spotter_fit():  # noqa: ANN201 - FidelityReport
    return fidelity(SPOTTER)


def test_every_measured_call_is_compared(spotter_fit) -> None:  # noqa: ANN001
    assert [c.measured for c in spotter_fit.calls] == measured_calls(SPOTTER)
    assert len(spotter_fit.calls) == 139


def test_calls_before_the_compaction_replay_exactly(spotter_fit) -> None:  # noqa: ANN001
    before = [c for c in spotter_fit.calls if c.call <= 61]  # calls are numbered from 1
    assert len(before) == 61
    assert all(c.simulated == c.measured for c in before)


def test_the_automatic_compaction_is_scored_against_what_the_session_records(spotter_fit) -> None:  # noqa: ANN001
    (compaction,) = spotter_fit.compactions
    assert compaction.trigger == "auto"
    assert compaction.pre_tokens == 170_251  # the boundary's preTokens
    # the boundary sits between the 61st and the 62nd call of the file; the 62nd measured 36,081
    assert compaction.measured_after_call == 61
    assert compaction.measured_next == measured_calls(SPOTTER)[61] == 36_081
    assert compaction.offset == 0


_STILL_OVER = (
    "transcript_renderer.ex is now followed through its Write and Edit (17,892 characters: a reference, not "
    "its first read's 6,185 tokens; 21.3% over before), yet the replay is 3,322 over the measured 36,081"
)


@pytest.mark.xfail(reason=_STILL_OVER, strict=True)
def test_the_first_call_after_the_compaction_within_5_percent(spotter_fit) -> None:  # noqa: ANN001
    (compaction,) = spotter_fit.compactions
    assert compaction.next_error is not None and compaction.next_error <= 5.0


def test_only_the_calls_after_the_first_compaction_are_predicted(spotter_fit) -> None:  # noqa: ANN001
    assert (spotter_fit.fitted.calls, spotter_fit.predicted.calls) == (61, 139 - 61)
    predicted = sorted(c.error for c in spotter_fit.calls if c.call > 61)
    assert spotter_fit.median_error == (predicted[38] + predicted[39]) / 2  # 78 calls: the mean of the middle two
    assert spotter_fit.p90_error == predicted[math.ceil(0.9 * 78) - 1]
    assert spotter_fit.fitted.median_error == 0.0  # sized from the measurements: right by construction


def test_where_the_error_comes_from(spotter_fit) -> None:  # noqa: ANN001
    labels = [(s.label.split(" (")[0], s.calls) for s in spotter_fit.sources]
    assert labels == [
        ("the size after the compaction after call 61", 78),
        ("sizes and start-up", 61),
    ]


def test_startup_is_the_first_call_minus_its_messages(spotter) -> None:  # noqa: ANN001
    first_prompt = spotter.draft.first_messages
    assert first_prompt == 37
    assert spotter.draft.overhead == 26_450 - 37
    # the profile's tools (13,500) and environment (280) stay; the system prompt takes the rest
    assert spotter.calibrated.startup == {"system_prompt": 26_413 - 13_500 - 280}
    assert "# Start-up: the first call measured 26,450 tokens" in spotter.yaml


def test_events_of_each_kind(spotter) -> None:  # noqa: ANN001
    kinds: dict[str, int] = {}

    def walk(events) -> None:  # noqa: ANN001
        for event in events:
            kind = type(event).kind.value
            kinds[kind] = kinds.get(kind, 0) + 1
            if kind == "parallel":
                walk(event.parallel)

    walk(spotter.scenario.events)
    assert kinds == {
        "bash": 67, "edit": 32, "grep": 10, "parallel": 11, "prompt": 3, "read": 17, "reply": 104,
        "subagent": 1, "tool": 16, "write": 7,
    }  # fmt: skip
    # the automatic compaction is not an event: the engine must find it
    assert "compact" not in kinds
    assert spotter.calibrated.unplaced == 0


def test_a_dated_model_name_is_the_profiles_model() -> None:
    # the subagent ran on claude-sonnet-4-5-20250929: the profile knows it as claude-sonnet-4-5 (200k)
    result = session_to_scenario(FIXTURES / "spotter-4d5611e5" / "subagents" / "agent-a2898e3.jsonl")
    assert result.scenario.model == "claude-sonnet-4-5"
    assert not simulate(result.scenario).notices


def test_the_subagent_keeps_its_type_and_its_reads(spotter) -> None:  # noqa: ANN001
    (subagent,) = [e.subagent for e in spotter.scenario.events if hasattr(e, "subagent")]
    assert subagent.type == "Explore"
    # its own file (subagents/agent-a2898e3.jsonl) read these; they stay in its window
    assert subagent.reads == (
        "lib/spotter_web/live/session_live.ex", "lib/spotter_web/live/subagent_live.ex",
        "lib/spotter_web/live/pane_list_live.ex", "lib/spotter/services/transcript_renderer.ex",
        "test/spotter/services/transcript_renderer_test.exs", "test/spotter_web/live/session_live_test.exs",
        "assets/js/app.js",
    )  # fmt: skip
    # the parent got the task prompt and the answer: 342 + 5,170 measured, the engine's envelope included
    assert (subagent.prompt.tokens, subagent.returns.tokens) == (342, 5_170)


def test_no_home_folder_in_the_output_unless_asked(spotter) -> None:  # noqa: ANN001
    assert "/home/" not in spotter.yaml
    assert "USER" not in spotter.yaml  # the sanitised user name, also inside encoded folder names
    kept = session_to_scenario(SPOTTER, keep_paths=True)
    assert "/home/USER/projects/spotter-worktrees/spotter-dov/lib/spotter_web/live/session_live.ex" in kept.yaml


def test_measured_calls_name_the_event_before_them(spotter, spotter_fit) -> None:  # noqa: ANN001
    calls = spotter.calls
    assert [(c.call, c.measured) for c in calls] == [(c.call, c.measured) for c in spotter_fit.calls]
    assert calls[0].after_event == 0  # the first prompt
    assert [type(spotter.scenario.events[c.after_event]).__name__ for c in calls[:3]] == [
        "PromptEvent", "ParallelEvent", "BashEvent",
    ]  # fmt: skip


def test_import_is_deterministic(spotter) -> None:  # noqa: ANN001
    assert session_to_scenario(SPOTTER).yaml == spotter.yaml


def test_round_trip_through_yaml(spotter, tmp_path: Path) -> None:  # noqa: ANN001
    out = tmp_path / "session.yaml"
    out.write_text(spotter.yaml)
    loaded = load_scenario(out, counter=CharsPerToken())
    assert loaded == spotter.scenario
    assert [s.used for s in simulate(loaded).steps] == [s.used for s in simulate(spotter.scenario).steps]
    result = CliRunner().invoke(main, ["validate", str(out)])
    assert result.exit_code == 0, result.output


def test_manual_compaction_is_an_event_with_the_recorded_summary() -> None:
    summary = next(json.loads(line) for line in FASTHOOKS.read_text().splitlines() if '"isCompactSummary":true' in line)
    content = summary["message"]["content"]
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    result = session_to_scenario(FASTHOOKS)
    (compact,) = [e.compact for e in result.scenario.events if hasattr(e, "compact")]
    assert compact.summary is not None and compact.summary.tokens == math.ceil(len(text) / 4)
    report = fidelity(FASTHOOKS)
    # the /compact is the last thing in the file: no call came after it to measure
    (compaction,) = report.compactions
    assert (compaction.trigger, compaction.measured_after_call, compaction.measured_next) == ("manual", 12, None)
    assert report.predicted.calls == 0 and report.median_error is None  # nothing came after it to predict


@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.name)
def test_small_sessions_replay_exactly(path: Path) -> None:
    report = fidelity(path)
    assert [c.measured for c in report.calls] == measured_calls(path)
    assert [c.simulated for c in report.calls] == [c.measured for c in report.calls]
    assert (report.median_error, report.p90_error) == (None, None)  # no compaction: nothing predicted
    assert (report.fitted.median_error, report.fitted.p90_error) == (0.0, 0.0)


def test_a_small_overhead_shrinks_the_profiles_startup() -> None:
    # a minimal file whose first call is 135 tokens: less than the profile's tool definitions alone
    path = FIXTURES / "ccusage-fixtures" / "project-alpha-session-alpha-chat.jsonl"
    result = session_to_scenario(path)
    assert result.calibrated.startup == {"system_prompt": 0, "tools": 135, "environment": 0}
    assert [(c.measured, c.simulated) for c in fidelity(path).calls] == [(135, 135), (270, 270), (340, 340)]


def test_fidelity_json(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["fidelity", "--json", str(SMALL[1])])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["format"] == "ctxviz.fidelity/1"
    assert list(data)[:6] == ["format", "session", "calls", "compactions", "median_error", "p90_error"]
    assert (data["median_error"], data["predicted"]["calls"], data["fitted"]["calls"]) == (None, 0, 4)
    assert data["calls"][0] == {"call": 1, "measured": 25801, "simulated": 25801}


def test_cli_import_writes_a_scenario_that_runs(tmp_path: Path) -> None:
    out = tmp_path / "tool_heavy.yaml"
    result = CliRunner().invoke(main, ["import", str(SMALL[1]), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("# Imported by `ctxviz import`")
    run = CliRunner().invoke(main, ["run", "--json", str(out)])
    assert run.exit_code == 0, run.output
    # the last call measured 27,666; the reply and prompt after it are estimated from their text
    assert (
        json.loads(run.output)["steps"][-1]["used"] == simulate(session_to_scenario(SMALL[1]).scenario).steps[-1].used
    )
    assert measured_calls(SMALL[1])[-1] == 27_666


def test_cli_fidelity_table() -> None:
    result = CliRunner().invoke(main, ["fidelity", str(FASTHOOKS)])
    assert result.exit_code == 0, result.output
    assert "nothing was predicted" in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file, nothing to import"),
        (b'{"type":"user","message":{"role":"user","content":"hi"}}\n', "no API calls recorded"),
        (b'{"timestamp":"2026-01-01","type":"session_meta","payload":{}}\n', "codex session with no usable token"),
        (b"hello\nworld\n", "no record of one in 2 lines (expected one JSON object a line); first: "),
    ],
)
def test_bad_input_is_a_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(content)
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["fidelity", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 1
    assert "nope.jsonl: cannot read" in result.output


def test_one_session_source_at_a_time() -> None:
    result = CliRunner().invoke(main, ["import", str(SMALL[0]), "--latest"])
    assert result.exit_code == 2


def test_session_by_id_from_the_config_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "claude" / "projects" / "-work-app"
    project.mkdir(parents=True)
    (project / "0f0f0f0f-1111-2222-3333-444455556666.jsonl").write_bytes(SMALL[1].read_bytes())
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    by_id = CliRunner().invoke(main, ["fidelity", "--json", "--session", "0f0f0f0f"])
    assert by_id.exit_code == 0, by_id.output
    assert json.loads(by_id.output)["calls"][-1] == {"call": 4, "measured": 27_666, "simulated": 27_666}
    latest = CliRunner().invoke(main, ["import", "--latest"])
    assert latest.exit_code == 0, latest.output
    assert latest.output.startswith("# Imported by `ctxviz import`")


def test_import_finds_its_session_as_every_command_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--latest and --session look where ``context`` looks: none found is a message, not a traceback; the
    newest session of any agent is import's (test_import_latest_other_agents.py: other agents')."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    for command in (["import", "--latest"], ["fidelity", "--session", "0f0f"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)  # a message, no traceback
        assert "no session" in result.output, result.output
    claude = home / ".config" / "claude" / "projects" / "-work-app" / "0f0f0f0f-1111-2222-3333-444455556666.jsonl"
    claude.parent.mkdir(parents=True)
    claude.write_bytes(SMALL[1].read_bytes())
    pi = home / ".pi" / "agent" / "sessions" / "--work-app--" / "2026-01-01T00-00-00-000Z_abc.jsonl"
    pi.parent.mkdir(parents=True)
    pi.write_bytes((FIXTURES.parent / "other-agents" / "pi" / "agent-sessions_small.jsonl").read_bytes())
    os.utime(claude, (2e9, 2e9))  # written later
    os.utime(pi, (1e9, 1e9))
    latest = CliRunner().invoke(main, ["import", "--latest"])
    assert latest.exit_code == 0, latest.output
    assert latest.output.startswith("# Imported by `ctxviz import` from Claude Code session d6e0bada-")


def test_recorded_attachments_become_hidden_items(tmp_path: Path) -> None:
    """Newer transcripts record hook context and reminders as ``attachment`` records: they share the
    measured growth with the prompt, in proportion to their text."""

    def call(n: int, parent: str, used: int) -> dict[str, object]:
        usage = {"input_tokens": used, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message = {"id": f"m{n}", "model": "claude-sonnet-4-6", "role": "assistant", "usage": usage,
                   "content": [{"type": "text", "text": "done"}]}  # fmt: skip
        return {"type": "assistant", "uuid": f"a{n}", "parentUuid": parent, "message": message}

    hook = {"type": "hook_additional_context", "hookName": "PostToolUse:Edit", "content": "x" * 300}
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        call(0, "u0", 20_000),
        {"type": "user", "uuid": "u1", "parentUuid": "a0", "message": {"role": "user", "content": "y" * 96}},
        {"type": "attachment", "uuid": "t1", "parentUuid": "u1", "attachment": hook},
        call(1, "t1", 20_400),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = session_to_scenario(path)
    prompts = [e.prompt for e in result.scenario.events if hasattr(e, "prompt")]
    hidden = [p for p in prompts if p.visibility == "hidden"]
    assert [p.text for p in hidden] == ["PostToolUse:Edit"]
    # 400 tokens of growth shared by the reply "done" (4 chars), the prompt (96) and the hook's content
    # as recorded (the JSON string: 302 chars, counted as ceil(302 / 4) = 76 tokens, so 304): 4 : 96 : 304
    assert [p.size.tokens for p in prompts[1:]] == [95, 301]
    assert [(c.measured, c.simulated) for c in fidelity(path).calls] == [(20_000, 20_000), (20_400, 20_400)]


def test_each_automatic_compaction_keeps_its_own_recorded_summary(tmp_path: Path) -> None:
    """Two automatic compactions with summaries of 4,000 and 10,000 characters: the scenario sizes
    each from its own text (ceil(chars / 4): 1,000 and 2,500), never the second from the first."""

    def call(n: int, parent: str, used: int) -> dict[str, object]:
        usage = {"input_tokens": used, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message = {"id": f"m{n}", "model": "claude-sonnet-4-6", "role": "assistant", "usage": usage,
                   "content": [{"type": "text", "text": "done"}]}  # fmt: skip
        return {"type": "assistant", "uuid": f"a{n}", "parentUuid": parent, "message": message}

    def compacted(n: int, parent: str, chars: int) -> list[dict[str, object]]:
        meta = {"trigger": "auto", "preTokens": 167_100}
        boundary = {"type": "system", "subtype": "compact_boundary", "uuid": f"b{n}", "parentUuid": None,
                    "logicalParentUuid": parent, "compactMetadata": meta}  # fmt: skip
        summary = {"type": "user", "uuid": f"s{n}", "parentUuid": f"b{n}", "isCompactSummary": True,
                   "message": {"role": "user", "content": "s" * chars}}  # fmt: skip
        return [boundary, summary]

    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        call(0, "u0", 166_000),
        *compacted(1, "a0", 4_000),
        call(1, "s1", 30_000),
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "message": {"role": "user", "content": "y" * 400}},
        call(2, "u2", 166_500),
        *compacted(2, "a2", 10_000),
        call(3, "s2", 31_000),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    scenario = session_to_scenario(path).scenario
    assert scenario.profile["summary_tokens"] == 1_000
    assert scenario.profile["summary_tokens_each"] == [1_000, 2_500]


def test_a_file_read_in_part_is_sized_whole_from_its_line_count(tmp_path: Path) -> None:
    """A Read of lines 1-10 of a 100-line file: the scenario keeps the file at ten times the part's
    measured size, what a compaction would re-read, and the partial read touches it."""
    read_input = {"file_path": "/p/x.go", "offset": 1, "limit": 10}
    usage = {"input_tokens": 20_000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    ask = {"id": "m0", "model": "claude-sonnet-4-6", "role": "assistant", "usage": usage,
           "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": read_input}]}  # fmt: skip
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "x" * 2_000}
    done = {**ask, "id": "m1", "usage": {**usage, "input_tokens": 20_600}, "content": [{"type": "text", "text": ""}]}
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "uuid": "a0", "parentUuid": "u0", "message": ask},
        {"type": "user", "uuid": "u1", "parentUuid": "a0", "message": {"role": "user", "content": [result]},
         "toolUseResult": {"file": {"filePath": "/p/x.go", "numLines": 10, "startLine": 1, "totalLines": 100}}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": done},
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    imported = session_to_scenario(path, keep_paths=True)
    (tool,) = [e.tool for e in imported.scenario.events if hasattr(e, "tool")]
    assert tool.reads == "/p/x.go"
    # the 600 tokens of growth shared by the call's text (4 + 50 chars of name and input) and the
    # result's (2,002 chars as recorded, quotes included): 600 x 2,002 / 2,056 = 584.2, so 584 for the part
    assert imported.draft.files["/p/x.go"] == 5_840
    assert imported.draft.file_lines["/p/x.go"] == 100
    # the sizes are of Reads, line numbers included: the profile's measured 3 tokens a line is written
    assert imported.scenario.profile["restore_line_number_tokens"] == 3


def test_an_edited_file_is_sized_as_a_whole_read_of_its_original(tmp_path: Path) -> None:
    """An Edit records the file before the change (originalFile): a file only edited is sized as the
    Read of it would be, 2.26 characters a token (the profile's measured density), not chars/4."""
    edit_input = {"file_path": "/p/y.go", "old_string": "a", "new_string": "b"}
    usage = {"input_tokens": 20_000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    ask = {"id": "m0", "model": "claude-sonnet-4-6", "role": "assistant", "usage": usage,
           "content": [{"type": "tool_use", "id": "t1", "name": "Edit", "input": edit_input}]}  # fmt: skip
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "The file /p/y.go has been updated."}
    done = {**ask, "id": "m1", "usage": {**usage, "input_tokens": 20_100}, "content": [{"type": "text", "text": ""}]}
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "uuid": "a0", "parentUuid": "u0", "message": ask},
        {"type": "user", "uuid": "u1", "parentUuid": "a0", "message": {"role": "user", "content": [result]},
         "toolUseResult": {"filePath": "/p/y.go", "originalFile": "x" * 2_260}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": done},
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert session_to_scenario(path, keep_paths=True).draft.files["/p/y.go"] == 1_000  # 2,260 / 2.26
