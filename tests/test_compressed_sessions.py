"""Sessions kept gzip-compressed (``<id>.jsonl.gz``) are found as their uncompressed files are: by
``sessions`` (in the agents' folders and under ``--root``), ``--latest`` and ``--session``, with the
same rows; a compressed copy beside its file is listed once, as the file; ``watch`` refuses one. The
files are compressed here, from the vendored fixtures."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest
from agent_homes import FIXTURES, T0, empty_home, every_agent, newest
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.transcripts.index import INDEX_NAME

CLAUDE = FIXTURES / "claude-code"
SPOTTER = CLAUDE / "spotter-4d5611e5"  # a session with a subagent and a compaction call beside it
SPOTTER_ID = "4d5611e5-241a-462a-8d15-5122611a9569"
FASTHOOKS = CLAUDE / "fasthooks/sample_main_transcript.jsonl"
# From the sessions themselves (the summary index's tests pin them too): calls and peak context.
SPOTTER_CALLS, SPOTTER_PEAK = 139, 164_831
FASTHOOKS_CALLS, FASTHOOKS_PEAK = 12, 21_331


def compress(path: Path) -> Path:
    """``path`` replaced by ``path.gz`` (its time kept)."""
    packed = path.with_name(path.name + ".gz")
    packed.write_bytes(gzip.compress(path.read_bytes(), mtime=0))
    stat = path.stat()
    os.utime(packed, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    path.unlink()
    return packed


def _sessions(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["sessions", "--json", "--no-cache", *args])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, object]] = json.loads(result.stdout)
    return rows


def _same_but_file(row: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in row.items() if key not in ("file", "bytes")}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return empty_home(tmp_path, monkeypatch)


def _claude_project(home: Path) -> Path:
    """Claude Code's layout: the spotter session with its subagents folder, and the fasthooks session."""
    project = home / ".claude" / "projects" / "-home-marco-projects-spotter"
    project.mkdir(parents=True)
    shutil.copy(SPOTTER / f"{SPOTTER_ID}.jsonl", project)
    shutil.copytree(SPOTTER / "subagents", project / SPOTTER_ID / "subagents")
    shutil.copy(FASTHOOKS, project / "c45af7b1.jsonl")
    return project


def test_claude_code_sessions_compressed_whole_are_found_with_their_subagents(home: Path) -> None:
    project = _claude_project(home)
    plain = {row["session"]: row for row in _sessions()}
    for file in sorted(project.rglob("*.jsonl")):
        compress(file)
    packed = {row["session"]: row for row in _sessions()}
    assert packed.keys() == plain.keys()
    spotter = next(row for session, row in packed.items() if str(session).startswith("4d5611e5"))
    assert (spotter["calls"], spotter["peak"]) == (SPOTTER_CALLS, SPOTTER_PEAK)
    assert spotter["file"] == str(project / f"{SPOTTER_ID}.jsonl.gz")
    assert spotter["subagents"] == 1  # agent-a2898e3 (the other file there is the compaction call's own)
    assert {key: _same_but_file(row) for key, row in packed.items()} == {
        key: _same_but_file(row) for key, row in plain.items()
    }


def test_a_compressed_copy_beside_its_file_is_listed_once_as_the_file(home: Path) -> None:
    project = _claude_project(home)
    live = project / "c45af7b1.jsonl"
    (project / "c45af7b1.jsonl.gz").write_bytes(gzip.compress(live.read_bytes()))  # a copy kept aside
    rows = _sessions()
    assert [row["file"] for row in rows].count(str(live)) == 1
    assert not any(str(row["file"]).endswith(".gz") for row in rows)
    assert len(rows) == 2
    under_root = _sessions("--root", str(project), "--agent", "claude-code")
    assert sorted(row["file"] for row in under_root) == sorted(row["file"] for row in rows)


def test_every_agent_s_compressed_session_gives_the_same_row(home: Path) -> None:
    """Each agent's session file compressed where the agent keeps it (opencode's session file, grok-build's
    log): the same rows, in the agents' folders and under --root."""
    files = every_agent(home)
    plain = sorted(map(_same_but_file, _sessions()), key=lambda row: str(row["agent"]))
    for path in files.values():
        compress(path)
    packed = _sessions()
    assert sorted(map(_same_but_file, packed), key=lambda row: str(row["agent"])) == plain
    assert all(str(row["file"]).endswith(".gz") for row in packed)
    assert len(packed) == len(files) == 6
    under_root = _sessions("--root", str(home))
    assert sorted(map(_same_but_file, under_root), key=lambda row: str(row["agent"])) == plain


def test_latest_and_session_find_a_compressed_session(home: Path) -> None:
    files = every_agent(home)
    packed = compress(files["codex"])
    newest(packed)
    result = CliRunner().invoke(main, ["context", "--latest", "--json", "--at", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["file"], data["used"]) == (str(packed), 16_341)  # the rollout's one call, as recorded
    pi = compress(files["pi"])
    by_id = CliRunner().invoke(main, ["context", "--session", "2026-08-03_a", "--json"])
    assert by_id.exit_code == 0, by_id.output
    assert json.loads(by_id.stdout)["file"] == str(pi)


def test_a_compressed_claude_code_session_by_its_id(home: Path) -> None:
    project = _claude_project(home)
    packed = compress(project / f"{SPOTTER_ID}.jsonl")
    result = CliRunner().invoke(main, ["context", "--session", SPOTTER_ID[:8], "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["file"] == str(packed)
    project_wide = CliRunner().invoke(main, ["context", "--session", SPOTTER_ID[:8], "-p", "spotter", "--json"])
    assert json.loads(project_wide.stdout)["file"] == str(packed)


def test_watch_refuses_a_compressed_session_in_one_line(home: Path) -> None:
    packed = compress(every_agent(home)["claude-code"])
    result = CliRunner().invoke(main, ["watch", str(packed)])
    assert result.exit_code == 1
    assert result.output == (
        f"{packed}: compressed, so no agent writes to it any more: `ctxviz play {packed}` shows it\n"
    )


def test_watch_follows_the_newest_uncompressed_session(home: Path) -> None:
    from ctxviz.transcripts.find import newest_to_follow

    files = every_agent(home)
    newest(compress(files["codex"]), 100)  # archived last: the newest file, but no agent writes to it
    newest(files["pi"])
    followed = newest_to_follow(os.environ, home, None, os.getcwd())
    assert followed is not None and followed.path == files["pi"]


def test_the_index_keys_a_compressed_file_by_its_own_size_and_time(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_homes import count_summaries

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = _claude_project(home)
    packed = compress(project / "c45af7b1.jsonl")

    def rows() -> dict[str, tuple[object, object]]:
        result = CliRunner().invoke(main, ["sessions", "--json"])
        assert result.exit_code == 0, result.output
        return {str(row["session"])[:8]: (row["calls"], row["peak"]) for row in json.loads(result.stdout)}

    first = rows()
    assert first["c45af7b1"] == (FASTHOOKS_CALLS, FASTHOOKS_PEAK)
    index = tmp_path / "cache" / "ctxviz" / INDEX_NAME
    assert str(packed) in json.loads(index.read_bytes())["rows"]
    read = count_summaries(monkeypatch)
    assert rows() == first and read == {}  # nothing changed: nothing read
    lines = FASTHOOKS.read_bytes().splitlines(keepends=True)
    packed.write_bytes(gzip.compress(b"".join(lines[: len(lines) // 2])))  # fewer calls, same name
    os.utime(packed, (T0, T0))
    assert rows()["c45af7b1"][0] < FASTHOOKS_CALLS  # type: ignore[operator]


def test_a_corrupt_entry_of_a_compressed_session_is_rebuilt(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    packed = compress(_claude_project(home) / "c45af7b1.jsonl")
    assert CliRunner().invoke(main, ["sessions", "--json"]).exit_code == 0
    index = tmp_path / "cache" / "ctxviz" / INDEX_NAME
    data = json.loads(index.read_bytes())
    data["rows"][str(packed)]["row"]["peak"] = "huge"  # its key still matches: the row itself is checked
    index.write_text(json.dumps(data), encoding="utf-8")
    rows = json.loads(CliRunner().invoke(main, ["sessions", "--json"]).stdout)
    assert next(row["peak"] for row in rows if row["file"] == str(packed)) == FASTHOOKS_PEAK


@pytest.mark.parametrize(
    "fixture",
    [
        "other-agents/gemini-cli/agent-sessions_large.json",  # an older chat: one JSON document
        "other-agents/gemini-cli/agent-sessions_jsonl_v040.jsonl",
        "other-agents/codex/agent-sessions_stage0_small.jsonl",
        "other-agents/pi/synthetic-branch-compaction.jsonl",
    ],
)
def test_a_compressed_file_reads_as_the_file(fixture: str, tmp_path: Path) -> None:
    plain = tmp_path / Path(fixture).name
    shutil.copy(FIXTURES / fixture, plain)
    packed = tmp_path / "packed" / (plain.name + ".gz")
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    from_plain = CliRunner().invoke(main, ["context", "--json", str(plain)])
    from_packed = CliRunner().invoke(main, ["context", "--json", str(packed)])
    assert from_packed.exit_code == from_plain.exit_code == 0, from_packed.output
    assert from_packed.stdout.replace(str(packed), str(plain)) == from_plain.stdout


def test_a_pretty_printed_compressed_rollout_reads_as_the_rollout(tmp_path: Path) -> None:
    rollout = FIXTURES / "other-agents/codex/agent-sessions_stage0_small.jsonl"
    objects = [json.loads(line) for line in rollout.read_text(encoding="utf-8").splitlines() if line.strip()]
    pretty = "".join(json.dumps(value, indent=2) + "\n" for value in objects).encode()
    packed = tmp_path / "rollout.jsonl.gz"
    packed.write_bytes(gzip.compress(pretty))
    result = CliRunner().invoke(main, ["context", "--json", "--at", "1", str(packed)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["used"] == 16_341  # the rollout's one call, as recorded


def test_a_damaged_compressed_session_is_counted_with_why(home: Path) -> None:
    project = _claude_project(home)
    packed = compress(project / "c45af7b1.jsonl")
    packed.write_bytes(packed.read_bytes()[:300])  # the gzip stream ends before its end marker
    result = CliRunner().invoke(main, ["sessions", "--json-object", "--no-cache"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["session"] for row in data["sessions"]] == [SPOTTER_ID]
    assert [why.split(": ")[:2] for why in data["gave_no_session"]] == [[str(packed), "cannot read"]]
