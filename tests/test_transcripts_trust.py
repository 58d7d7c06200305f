"""What a careful user found to distrust, each checked on a damaged copy of a real session (made here,
from the vendored fixtures): no traceback, nothing unsafe printed, nothing estimated shown as measured,
nothing lost in silence, sessions found by what ``sessions`` shows."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from ctxviz.cli import main
from ctxviz.errors import InputError
from ctxviz.report.context import context_renderable
from ctxviz.report.context_data import api_call_indices, context_dict, shown_breakdown
from ctxviz.report.sessions import project_labels
from ctxviz.transcripts import open_transcript
from ctxviz.transcripts.claude_code.build import SUMMARISED_LABEL
from ctxviz.transcripts.claude_code.chain import REORDERED_NOTE, REWOUND_NOTE
from ctxviz.transcripts.claude_code.load import read_transcript
from ctxviz.transcripts.claude_code.summary import summarize

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "claude-code"
SPOTTER = SAMPLES / "spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
COMPACTION_CALL = SAMPLES / "spotter-4d5611e5/subagents/agent-acompact-e1f845.jsonl"
SHORT = SAMPLES / "spotter-misc/short.jsonl"
SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
SPOTTER_CALLS = (139, 26_450, 164_831, 106_060)  # count, first, peak, last (test_claude_code_reader.py)


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), encoding="utf-8")
    return path


def _damaged(tmp_path: Path, source: Path, damage: Callable[[list[str]], list[str]], name: str = "") -> Path:
    lines = source.read_text(encoding="utf-8").splitlines()
    path = tmp_path / (name or source.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(damage(lines)) + "\n", encoding="utf-8")
    return path


def _calls(timeline) -> tuple[int, int, int, int]:  # type: ignore[no-untyped-def]
    used = [s.used for s in timeline.steps if s.kind == "api-call"]
    return len(used), used[0], max(used), used[-1]


def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: str = "-home-USER-app") -> Path:
    folder = tmp_path / "config" / "projects" / project
    folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return folder


# --- no tracebacks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["projects folder", "project folder", "config dir"])
def test_a_symlink_loop_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    folder = _config(tmp_path, monkeypatch)
    shutil.copy(SHORT, folder / "short.jsonl")
    if where == "projects folder":
        (folder.parent / "loop").symlink_to("loop")
    elif where == "project folder":
        (folder / "a.jsonl").symlink_to("b.jsonl")
        (folder / "b.jsonl").symlink_to("a.jsonl")
        (folder / "short" / "subagents").mkdir(parents=True)
        (folder / "short" / "subagents" / "agent-x.jsonl").symlink_to("agent-x.jsonl")
    else:
        (tmp_path / "cfgloop").symlink_to("cfgloop")
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{tmp_path / 'cfgloop'},{tmp_path / 'config'}")
    result = CliRunner().invoke(main, ["sessions", "--json"])
    assert result.exit_code == 0, result.output
    assert [(r["session"], r["calls"]) for r in json.loads(result.stdout)] == [
        ("55604662-cf2a-4331-851a-ec234028f8ca", 1)
    ]
    latest = CliRunner().invoke(main, ["context", "--latest", "--json"])
    assert latest.exit_code == 0, latest.output
    assert json.loads(latest.stdout)["used"] == 25_353


def test_a_rewind_to_the_first_prompt_before_any_reply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records(SPOTTER)
    first = next(r for r in records if r.get("type") == "user" and not r.get("isMeta"))
    again = {**first, "uuid": "00000000-rewound-to-the-first-prompt", "timestamp": "2026-02-12T22:00:00.000Z"}
    path = _write(_config(tmp_path, monkeypatch) / f"{SESSION}.jsonl", [*records, again])
    timeline = open_transcript(path)
    assert _calls(timeline) == SPOTTER_CALLS
    assert REWOUND_NOTE in timeline.notices
    row = summarize(path)
    assert (row.calls, row.first, row.peak, row.last) == SPOTTER_CALLS
    import ctxviz.tui.app

    monkeypatch.setattr(ctxviz.tui.app, "run_app", lambda timeline: None)
    monkeypatch.setattr("ctxviz.cli.tui_commands.has_terminal", lambda: True)
    for args in (["context", "--latest", "--json"], ["sessions", "--json"], ["play", "--latest"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert "Traceback" not in result.output
    assert [r["calls"] for r in json.loads(CliRunner().invoke(main, ["sessions", "--json"]).stdout)] == [139]


def test_a_file_with_its_lines_reversed_reads_the_same(tmp_path: Path) -> None:
    path = _damaged(tmp_path, SPOTTER, lambda lines: lines[::-1])
    timeline = open_transcript(path)
    assert _calls(timeline) == SPOTTER_CALLS
    assert REORDERED_NOTE in timeline.notices
    assert len(timeline.compaction_indices()) == 1
    row = summarize(path)
    assert (row.calls, row.first, row.peak, row.last) == SPOTTER_CALLS
    assert [(c.trigger, c.pre_tokens, c.at_call) for c in row.compactions] == [("auto", 170_251, 61)]
    # started and ended by time, not by file order
    assert (row.started, row.ended) == ("2026-02-12T16:02:23.545Z", "2026-02-12T21:03:34.206Z")


# --- nothing unsafe printed --------------------------------------------------------------------------

_HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m[/][bold red]boom\u202e"


def test_terminal_escapes_in_a_transcript_are_never_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records(SHORT)
    for record in records:
        message = record.get("message")
        if record.get("type") == "user" and isinstance(message, dict) and isinstance(message.get("content"), str):
            message["content"] = _HOSTILE + " " + message["content"]
        if isinstance(message, dict) and "model" in message:
            message["model"] = "claude-opus-4-6" + _HOSTILE
        if "cwd" in record:
            record["cwd"] = "/home/USER/app" + _HOSTILE
    path = _write(_config(tmp_path, monkeypatch) / "short.jsonl", records)
    outputs = [
        CliRunner().invoke(main, ["context", str(path)]),
        CliRunner().invoke(main, ["context", str(path), "--json"]),
        CliRunner().invoke(main, ["sessions"]),
        CliRunner().invoke(main, ["sessions", "--json"]),
    ]
    for result in outputs:
        assert result.exit_code == 0, result.output
        for unsafe in ("\x1b", "\x07", "\x9b", "\u202e"):
            assert unsafe not in result.output
    assert "\ufffd]0;pwned\ufffd\ufffd[2J\ufffd31m[/][bold red]boom" in outputs[0].output  # shown, inert
    console = Console(width=200, record=True, color_system="truecolor")
    console.print(context_renderable(open_transcript(path), 0))
    assert "]0;pwned" not in console.export_text(styles=True).replace("\ufffd]0;pwned", "")


# --- nothing estimated shown as measured -------------------------------------------------------------


def test_the_size_after_a_compaction_is_marked_estimated() -> None:
    timeline = open_transcript(SPOTTER)
    (index,) = timeline.compaction_indices()
    assert not timeline.steps[index].measured
    console = Console(width=120, record=True, color_system=None)
    console.print(context_renderable(timeline, index, top_items=0))
    text = console.export_text()
    assert text.splitlines()[0].startswith("claude-opus-4-6 · ~30.3k/200k tokens (15%)  estimated")
    # one "before" (the boundary's preTokens, not the last call's 164,831), the after marked, the next call's size
    assert "auto after call 61: 170,251 → ~30,349 tokens" in " ".join(text.split())
    assert "the next call measured 36,081" in " ".join(text.split())
    assert "164,831 →" not in text
    (compaction,) = context_dict(timeline, timeline.last)["compactions"]  # type: ignore[misc]
    assert compaction["pre_tokens"] == compaction["before"] == 170_251
    assert (compaction["after"], compaction["after_measured"], compaction["next_call_used"]) == (30_349, False, 36_081)


def test_unrecorded_overhead_is_not_shown_as_measured_zeros() -> None:
    timeline = open_transcript(SPOTTER)
    console = Console(width=120, record=True, color_system=None)
    console.print(context_renderable(timeline, 0, top_items=0))
    text = console.export_text()
    assert "└ with tools, memory, skills: not recorded apart" in text
    for row in ("System tools", "MCP tools", "Custom agents", "Memory files", "Skills"):
        assert row not in text  # no measured-looking zero rows
    rows = shown_breakdown(timeline, 0)
    assert (rows["System prompt"], rows["System tools"], rows["Memory files"], rows["Skills"]) == (
        26_413, None, None, None)  # fmt: skip


def test_the_breakdown_never_adds_up_to_more_than_the_window() -> None:
    timeline = open_transcript(COMPACTION_CALL)  # one call of 173,514: above the autocompact threshold
    rows = shown_breakdown(timeline, timeline.last)
    assert rows["Autocompact buffer"] == 200_000 - 173_514
    assert rows["Free space"] == 0
    assert sum(v or 0 for v in rows.values()) == 200_000
    spotter = open_transcript(SPOTTER)
    for index in api_call_indices(spotter):
        assert sum(v or 0 for v in shown_breakdown(spotter, index).values()) == 200_000


def test_a_compaction_calls_own_file_is_not_a_huge_system_prompt() -> None:
    timeline = open_transcript(COMPACTION_CALL)
    rows = shown_breakdown(timeline, timeline.last)
    assert rows["System prompt"] == 0
    assert rows["Messages"] == 173_514
    (overhead,) = [b for b in timeline.state_at(timeline.last) if b.kind == "overhead"]
    assert (overhead.label, overhead.tokens) == (SUMMARISED_LABEL, 170_364)
    assert overhead.category.value == "Messages"


# --- nothing lost in silence --------------------------------------------------------------------------


def _drop_usage(lines: list[str], every: int, null: bool = False) -> list[str]:
    """Usage removed (or written as nulls) from every ``every``-th API call (all records of its message)."""
    ids: list[str] = []
    out = []
    for line in lines:
        record = json.loads(line)
        message = record.get("message")
        if record.get("type") == "assistant" and isinstance(message, dict) and "usage" in message:
            if message["id"] not in ids:
                ids.append(message["id"])
            if ids.index(message["id"]) % every == 0:
                if null:
                    message["usage"] = {k: None for k in message["usage"]}
                else:
                    del message["usage"]
        out.append(json.dumps(record, separators=(",", ":")))
    return out


def test_calls_without_usage_are_reported_with_their_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _damaged(_config(tmp_path, monkeypatch), SPOTTER, lambda lines: _drop_usage(lines, 3))
    reading = read_transcript(path)
    notice = next(n for n in reading.timeline.notices if "carry no usage" in n)
    assert notice.startswith("47 API calls carry no usage")
    assert _calls(reading.timeline)[0] == 139 - 47
    row = summarize(path)
    assert (row.calls, row.unmeasured_calls) == (92, 47)
    result = CliRunner().invoke(main, ["sessions", "--json"])
    assert "ctxviz: 47 API calls in 1 sessions carry no usage: not counted" in result.stderr
    assert json.loads(result.stdout)[0]["unmeasured_calls"] == 47


def test_a_session_without_any_usage_is_not_lost_in_silence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _damaged(_config(tmp_path, monkeypatch), SPOTTER, lambda lines: _drop_usage(lines, 1))
    result = CliRunner().invoke(main, ["sessions", "--json"])
    assert json.loads(result.stdout) == []
    assert "ctxviz: 139 API calls in 1 sessions carry no usage: not counted" in result.stderr
    context = CliRunner().invoke(main, ["context", str(path)])
    assert (context.exit_code, context.output) == (1, f"{path}: 139 API calls, none with its usage recorded\n")


def test_a_null_usage_is_not_a_measured_zero(tmp_path: Path) -> None:
    path = _damaged(tmp_path, SPOTTER, lambda lines: _drop_usage(lines, 3, null=True))
    timeline = open_transcript(path)
    assert 0 not in [s.used for s in timeline.steps if s.kind == "api-call"]
    assert _calls(timeline)[0] == summarize(path).calls == 92


def test_duplicated_lines_make_no_phantom_compaction(tmp_path: Path) -> None:
    path = _damaged(tmp_path, SPOTTER, lambda lines: [line for line in lines for _ in (1, 2)])
    timeline = open_transcript(path)
    assert len(timeline.compaction_indices()) == 1
    assert _calls(timeline) == SPOTTER_CALLS
    assert "1497 records written twice in the file: read once" in timeline.notices
    row = summarize(path)
    assert ((row.calls, row.first, row.peak, row.last), len(row.compactions)) == (SPOTTER_CALLS, 1)


def test_a_utf8_bom_keeps_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + SPOTTER.read_bytes())
    reading = read_transcript(path)
    assert reading.problems == ()
    assert _calls(reading.timeline) == SPOTTER_CALLS
    assert summarize(path).problems == ()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_file_gets_a_hint(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "wide.jsonl"
    path.write_bytes(SHORT.read_text(encoding="utf-8").encode(encoding))
    with pytest.raises(InputError, match="the file is UTF-16 text; Claude Code writes UTF-8"):
        read_transcript(path)
    result = CliRunner().invoke(main, ["context", str(path)])
    assert (result.exit_code, "Traceback" in result.output) == (1, False)


def test_subagents_are_counted_as_started() -> None:
    # a Plan subagent runs inside the session (agent_progress records) and leaves no file of its own
    assert summarize(SAMPLES / "spotter-misc/subagent.jsonl").subagents == 1
    assert summarize(SPOTTER).subagents == 1  # one Task; the compaction call is no subagent


# --- sessions found by what `sessions` shows ---------------------------------------------------------


def test_session_by_the_id_sessions_prints_when_the_file_is_renamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _config(tmp_path, monkeypatch, "-somewhere-else")
    shutil.copy(SPOTTER, folder / "renamed-copy.jsonl")
    shown = json.loads(CliRunner().invoke(main, ["sessions", "--json"]).stdout)[0]
    assert shown["session"] == SESSION
    result = CliRunner().invoke(main, ["context", "--session", shown["session"][:8], "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["calls"] == 139
    # -p matches the project path shown (the recorded cwd), not the folder's encoded name
    assert shown["project"] == "/home/USER/projects/spotter-worktrees/spotter-dov"
    only = CliRunner().invoke(main, ["sessions", "--json", "-p", "worktrees/spotter-dov"])
    assert [r["calls"] for r in json.loads(only.stdout)] == [139]
    none = CliRunner().invoke(main, ["sessions", "--json", "-p", "somewhere-else"])
    assert json.loads(none.stdout) == []
    latest = CliRunner().invoke(main, ["context", "--latest", "-p", "spotter-worktrees", "--json"])
    assert json.loads(latest.stdout)["session"] == SESSION


def test_the_project_column_tells_worktrees_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _config(tmp_path, monkeypatch)
    names = ("spotter-dov", "spotter-6ki", "spotter-x1q")
    for n, name in enumerate(names):
        records = _records(SHORT)
        for record in records:
            if "cwd" in record:
                record["cwd"] = f"/home/USER/projects/spotter-worktrees/{name}"
            if "sessionId" in record:
                record["sessionId"] = f"{n}{record['sessionId'][1:]}"
        _write(folder / f"{n}.jsonl", records)
    wide = CliRunner().invoke(main, ["sessions"], env={"COLUMNS": "120"}).stdout
    for name in names:
        assert f"spotter-worktrees/{name}" in wide
    narrow = CliRunner().invoke(main, ["sessions"], env={"COLUMNS": "100"}).stdout
    for name in names:
        assert f" …worktrees/{name} " in narrow  # cut on the left: the end is what differs
    assert all(line.rstrip().endswith("11k") for line in narrow.splitlines()[1:])  # the size column stays
    assert project_labels(["/a/x/src", "/b/x/src", "/home/u/" + "long-name" * 4 + "/app"]) == {
        "/a/x/src": "a/x/src",
        "/b/x/src": "b/x/src",
        "/home/u/" + "long-name" * 4 + "/app": "…ng-namelong-namelong-name/app",
    }


def test_play_accepts_what_it_suggests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ctxviz.tui.app

    shutil.copy(SHORT, _config(tmp_path, monkeypatch) / "short.jsonl")
    opened: list[object] = []
    monkeypatch.setattr(ctxviz.tui.app, "run_app", opened.append)
    monkeypatch.setattr("ctxviz.cli.tui_commands.has_terminal", lambda: True)
    for args in (["play", "--latest"], ["play", "--session", "55604662"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
    assert [t.source.name for t in opened] == ["55604662-cf2a-4331-851a-ec234028f8ca"] * 2  # type: ignore[attr-defined]
    (tmp_path / "folder.jsonl").mkdir()
    folder = CliRunner().invoke(main, ["play", str(tmp_path / "folder.jsonl")])
    assert "(or use --session / --latest)" in folder.output  # the suggestion, which play now accepts
