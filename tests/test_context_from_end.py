"""``context`` at the last call of a big session, read from its last compaction on: the window is the whole
read's, what counts from the session's start is null ("not read" in plain text) with a notice, and
``--history`` reads the whole file. "Big" is a threshold in bytes; the tests pass a small one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from from_end_helpers import generated_session, last_boundary

from ctxviz.cli import main
from ctxviz.errors import InputError
from ctxviz.report.audit import carried_so_far
from ctxviz.report.context_data import api_call_indices, call_window_dict, carried_rows, context_dict
from ctxviz.transcripts.claude_code.one_call_cache import cache_file, cached_call_window
from ctxviz.transcripts.claude_code.one_call_from_end import window_from_end
from ctxviz.transcripts.registry import read_target

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
# what counts from the session's start: null when only the part after the last compaction was read
HISTORY = ("at_call", "calls", "step", "compactions", "carried")
NOTICE = "read from the last compaction on"


@pytest.fixture(autouse=True)
def cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("cache-home")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def _whole(path: Path, top: int = 10) -> dict[str, object]:
    timeline = read_target(path).timeline
    document = context_dict(timeline, timeline.last, top_items=top)
    document["carried"] = carried_rows(carried_so_far(timeline, timeline.last).items, top)
    return document


def _same_window(document: dict[str, object], whole: dict[str, object]) -> None:
    """Every figure of the window now is the whole read's; what needs the history is null."""
    for key, value in whole.items():
        if key in HISTORY:
            assert document[key] is None, key
        elif key == "notices":
            assert [n for n in document[key] if NOTICE not in n] == value  # type: ignore[attr-defined]
        else:
            assert document[key] == value, key


def test_a_big_session_is_read_from_its_last_compaction(tmp_path: Path) -> None:
    # 25 calls, compactions after calls 10 and 20: the last call is the 5th after the second, measured
    # 24,000 + 4 x 520 = 26,080 tokens (the generator's figures, as the log records them)
    path = generated_session(tmp_path)
    offset = last_boundary(path)
    assert window_from_end(path, 10, from_end_bytes=offset + 1) is None  # less than that before it: whole read
    window = window_from_end(path, 10, from_end_bytes=offset)
    assert window is not None
    document = call_window_dict(window, top_items=10)
    assert document["used"] == 26_080
    assert document["read_from"] == offset
    _same_window(document, _whole(path))
    notice = next(n for n in document["notices"] if NOTICE in n)  # type: ignore[attr-defined]
    assert f"byte {offset:,} of {path.stat().st_size:,}" in notice and "--history" in notice


def test_every_fixture_read_from_its_end_has_the_whole_reads_window() -> None:
    read = 0
    for path in sorted(FIXTURES.glob("*/*.jsonl")):
        window = window_from_end(path, 10, from_end_bytes=0)
        if window is None:
            continue  # no compaction, or only the whole read can tell
        read += 1
        try:
            whole = _whole(path)
        except InputError:
            pytest.fail(f"{path}: read from the end, but the whole read refuses it")
        _same_window(call_window_dict(window, top_items=10), whole)
    assert read > 0


def test_a_rewind_after_the_boundary_is_left_to_the_whole_read(tmp_path: Path) -> None:
    path = generated_session(tmp_path)
    lines = path.read_text().splitlines()
    # the last call's result written again under a new uuid, hanging from the call before: a branch
    last = json.loads(lines[-1])
    last["uuid"], last["parentUuid"] = "f" * 8 + "-0000-4000-8000-000000000000", json.loads(lines[-4])["uuid"]
    path.write_text("\n".join([*lines, json.dumps(last)]) + "\n")
    assert window_from_end(path, 10, from_end_bytes=0) is None


def test_damaged_lines_after_the_boundary_are_located_by_their_line_in_the_file(tmp_path: Path) -> None:
    path = generated_session(tmp_path)
    lines = path.read_text().splitlines()
    lines.insert(len(lines) - 2, "{not json")
    path.write_text("\n".join(lines) + "\n")
    window = window_from_end(path, 10, from_end_bytes=0)
    assert window is not None
    assert len(window.problems) == 1
    assert f":{len(lines) - 2}:" in window.problems[0]


def test_the_command_says_not_read_and_history_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = generated_session(tmp_path)
    whole = _whole(path)
    monkeypatch.setattr("ctxviz.transcripts.claude_code.one_call_from_end.FROM_END_BYTES", last_boundary(path))
    runner = CliRunner()
    result = runner.invoke(main, ["context", str(path), "--json"])
    assert result.exit_code == 0, result.output
    _same_window(json.loads(result.output), whole)
    assert not cache_file(path.absolute()).exists()  # read from the end: nothing kept

    text = runner.invoke(main, ["context", str(path)])
    assert text.exit_code == 0, text.output
    assert "calls: not read" in text.output and "Compactions so far: not read" in text.output
    assert NOTICE in " ".join(text.output.split())

    result = runner.invoke(main, ["context", str(path), "--json", "--history"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == whole
    # the history read filled the cache: later runs give the whole document without --history
    assert cache_file(path.absolute()).is_file()
    again = runner.invoke(main, ["context", str(path), "--json"])
    assert json.loads(again.output) == whole


def test_a_damaged_answer_in_the_cache_is_rebuilt(tmp_path: Path) -> None:
    path = generated_session(tmp_path)
    cached_call_window(path, 10, history=True)
    cache = cache_file(path.absolute())
    data = bytearray(cache.read_bytes())
    start = data.index(b"\n") + 1  # the answer's first bytes, after the header
    data[start + 20] ^= 0xFF
    cache.write_bytes(bytes(data))
    window = cached_call_window(path, 10)
    assert window is not None
    assert call_window_dict(window, top_items=10) == _whole(path)
    assert cache.read_bytes() != bytes(data)  # written anew


def test_small_sessions_keep_their_whole_document(tmp_path: Path) -> None:
    path = generated_session(tmp_path)
    result = CliRunner().invoke(main, ["context", str(path), "--json"])
    assert json.loads(result.output) == _whole(path)
    assert "read_from" not in json.loads(result.output)
    assert api_call_indices(read_target(path).timeline)  # a session with calls, not an empty document
