"""The sessions summary index: reused only when nothing changed, rebuilt when corrupt, ignored when it
cannot be written, bypassed by --no-cache, never beside the transcripts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.transcripts.index import INDEX_FORMAT, INDEX_NAME, cache_folder

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "claude-code"
SPOTTER = SAMPLES / "spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
FASTHOOKS = SAMPLES / "fasthooks/sample_main_transcript.jsonl"


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two sessions in a config folder, a private cache folder, and the index's path."""
    project = tmp_path / "config" / "projects" / "-home-USER-app"
    project.mkdir(parents=True)
    shutil.copy(SPOTTER, project / SPOTTER.name)
    shutil.copy(FASTHOOKS, project / "c45af7b1.jsonl")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "ctxviz" / INDEX_NAME


def _sessions(*extra: str) -> list[tuple[str, int, int]]:
    result = CliRunner().invoke(main, ["sessions", "--json", *extra])
    assert result.exit_code == 0, result.output
    return [(r["session"][:8], r["calls"], r["peak"]) for r in json.loads(result.stdout)]


EXPECTED = [("c45af7b1", 12, 21_331), ("4d5611e5", 139, 164_831)]


def test_a_second_run_is_served_from_the_index(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _sessions() == EXPECTED
    assert corpus.is_file()
    import ctxviz.transcripts.claude_code.summary as summary

    def no_reading(*_: object) -> None:
        raise AssertionError("a transcript was read although nothing changed")

    monkeypatch.setattr(summary, "summarize", no_reading)
    assert _sessions() == EXPECTED


def test_a_changed_file_is_read_again(corpus: Path) -> None:
    assert _sessions() == EXPECTED
    path = corpus.parents[2] / "config" / "projects" / "-home-USER-app" / "c45af7b1.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")  # same name, fewer calls
    rows = _sessions()
    assert rows[1] == EXPECTED[1]
    assert rows[0][1] < 12


@pytest.mark.parametrize(
    "damage",
    [b"", b"\x00\xff garbage", b'{"format": "ctxviz.sessions-index/1"}', b"[1, 2, 3]", b'{"format": 1, "rows": 2}'],
)
def test_a_corrupt_index_is_rebuilt_not_trusted(corpus: Path, damage: bytes) -> None:
    assert _sessions() == EXPECTED
    corpus.write_bytes(damage)
    assert _sessions() == EXPECTED
    assert json.loads(corpus.read_bytes())["format"] == INDEX_FORMAT


def test_a_row_of_the_wrong_shape_is_not_used(corpus: Path) -> None:
    assert _sessions() == EXPECTED
    index = json.loads(corpus.read_bytes())
    for row in index["rows"].values():
        row["row"]["calls"] = "many"  # the key still matches: the row itself is checked
    corpus.write_text(json.dumps(index), encoding="utf-8")
    assert _sessions() == EXPECTED


def test_an_unwritable_cache_is_ignored(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviz.transcripts import index

    def refused(*_: object, **__: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(index, "write_atomically", refused)  # as a read-only folder answers, even to root
    assert _sessions() == EXPECTED
    assert not corpus.exists()


def test_a_cache_path_that_is_a_file_is_ignored(corpus: Path) -> None:
    corpus.parent.parent.mkdir(parents=True)
    corpus.parent.write_text("not a folder")  # ~/.cache/ctxviz is a file: nothing can be written
    assert _sessions() == EXPECTED
    assert _sessions() == EXPECTED


def test_no_cache_neither_reads_nor_writes(corpus: Path) -> None:
    assert _sessions("--no-cache") == EXPECTED
    assert not corpus.exists()


def test_the_index_is_never_under_a_transcripts_folder(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = corpus.parents[2] / "config"
    monkeypatch.setenv("XDG_CACHE_HOME", str(config / "projects"))
    assert cache_folder([config.resolve()]) is None
    assert _sessions() == EXPECTED
    assert not (config / "projects" / "ctxviz").exists()


@pytest.mark.parametrize("xdg", ["", "   ", "/tmp/somewhere/cache"])
def test_the_cache_folder_is_platformdirs_own(monkeypatch: pytest.MonkeyPatch, xdg: str) -> None:
    import platformdirs

    from ctxviz.transcripts.index import user_cache_folder

    monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert user_cache_folder() == Path(platformdirs.user_cache_dir("ctxviz", appauthor=False))


def test_another_agent_s_row_is_kept_while_what_it_read_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from agent_homes import count_summaries, empty_home, every_agent

    files = every_agent(empty_home(tmp_path, monkeypatch))

    def rows() -> list[tuple[str, str, int, int]]:
        result = CliRunner().invoke(main, ["sessions", "--json"])
        assert result.exit_code == 0, result.output
        return [(r["agent"], r["session"], r["calls"], r["peak"]) for r in json.loads(result.stdout)]

    first = rows()
    assert len(first) == 6
    read = count_summaries(monkeypatch)
    assert rows() == first
    assert read == {}  # every agent's row kept: nothing its reader read changed
    codex = files["codex"]
    codex.write_bytes(codex.read_bytes() + b"{not json\n")  # written since: read again, damage reported
    os.utime(codex, (2_000_000_000, 2_000_000_000))
    assert rows() == first
    assert read["codex"] == 1 and read["pi"] == 0


def test_a_subagent_file_added_to_the_sessions_folder_is_counted(corpus: Path) -> None:
    # Claude Code writes a subagent's transcript into <session>/subagents/: a file added there changes
    # the subagents folder's time, not the session folder's.
    project = corpus.parents[2] / "config" / "projects" / "-home-USER-app"
    subagents = project / SPOTTER.stem / "subagents"
    subagents.mkdir(parents=True)
    first = SPOTTER.parent / "subagents" / "agent-a2898e3.jsonl"
    shutil.copy(first, subagents / first.name)

    def spotter_subagents() -> int:
        rows = json.loads(CliRunner().invoke(main, ["sessions", "--json"]).stdout)
        return next(r["subagents"] for r in rows if r["session"].startswith("4d5611e5"))

    assert spotter_subagents() == 1
    folder_time = (project / SPOTTER.stem).stat().st_mtime_ns
    shutil.copy(first, subagents / "agent-b0000001.jsonl")
    assert (project / SPOTTER.stem).stat().st_mtime_ns == folder_time
    assert spotter_subagents() == 2
