"""``context --json`` of a Claude Code session from one streaming pass (``Reader.call_window``): the same
document as the whole timeline gives, with numbers checked by hand on a generated session, and the
whole-file read taken whenever the chain needs it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmarks.big_session import _claude_lines
from ctxviz.cli import main
from ctxviz.errors import InputError
from ctxviz.report.audit import carried_so_far
from ctxviz.report.context_data import api_call_indices, call_window_dict, carried_rows, context_dict
from ctxviz.transcripts.claude_code.one_call import call_window
from ctxviz.transcripts.claude_code.one_call_cache import cache_file, cached_call_window
from ctxviz.transcripts.registry import read_target

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
PLAIN = sorted(FIXTURES.glob("*/*.jsonl"))


def _whole(path: Path, at_call: int | None, top: int) -> dict[str, object]:
    timeline = read_target(path).timeline
    index = api_call_indices(timeline)[at_call - 1] if at_call is not None else timeline.last
    document = context_dict(timeline, index, top_items=top)
    document["carried"] = carried_rows(carried_so_far(timeline, index).items, top)
    return document


def _session(folder: Path, calls: int, every: int) -> Path:
    path = folder / "b16b16b1-0000-4000-8000-000000000000.jsonl"
    path.write_text("\n".join(_claude_lines(calls, every, 100)) + "\n")  # type: ignore[arg-type]
    return path


@pytest.mark.parametrize("path", PLAIN, ids=lambda p: f"{p.parent.name}/{p.name[:20]}")
def test_every_fixture_gives_the_whole_reads_document(path: Path) -> None:
    try:
        timeline = read_target(path).timeline
    except InputError:  # the whole read's located error is the answer: nothing is read from one call
        assert call_window(path, None, 10) is None
        return
    calls = len(api_call_indices(timeline))
    for at_call in (None, 1, calls // 2 or 1, calls):
        window = call_window(path, at_call, 10)
        if window is not None:
            assert call_window_dict(window, top_items=10) == _whole(path, at_call, 10), at_call


def test_a_generated_session_by_hand(tmp_path: Path) -> None:
    # 7 calls, a compaction after calls 3 and 6. Call n measures 20,000 + 520 (n - 1) until a compaction,
    # then 24,000 at the call after it, growing by 520 again. The first call's 20,000 tokens less the
    # prompt's 6 (ceil(21 chars / 4)) are the unrecorded start-up, sent by every one of the 7 calls.
    path = _session(tmp_path, 7, 3)
    window = call_window(path, None, 3)
    assert window is not None
    document = call_window_dict(window, top_items=3)
    assert (document["calls"], document["at_call"], document["used"]) == (7, 7, 24_000)
    # steps: calls 1-3, compaction, calls 4-6, compaction, call 7 = 9 steps, the last at index 8
    assert document["step"] == 8
    compactions = document["compactions"]
    assert [(c["at_call"], c["step"], c["pre_tokens"], c["next_call_used"]) for c in compactions] == [
        (3, 3, 20_000 + 3 * 520, 24_000),  # type: ignore[index]
        (6, 7, 24_000 + 3 * 520, 24_000),  # type: ignore[index]
    ]
    first = document["carried"][0]  # type: ignore[index]
    assert (first["kind"], first["tokens"], first["calls"], first["carried"]) == (
        "startup-overhead", 19_994, 7, 19_994 * 7,
    )  # fmt: skip
    assert document == _whole(path, None, 3)


def test_call_n_before_the_last_compaction(tmp_path: Path) -> None:
    path = _session(tmp_path, 7, 3)
    window = call_window(path, 2, 5)
    assert window is not None
    document = call_window_dict(window, top_items=5)
    # call 2 is at step 1 and measures 20,520; no compaction yet; the start-up was sent twice
    assert (document["at_call"], document["step"], document["used"], document["compactions"]) == (2, 1, 20_520, [])
    assert document["calls"] == 7
    assert document["carried"][0]["carried"] == 19_994 * 2  # type: ignore[index]
    assert document == _whole(path, 2, 5)


def test_a_rewind_is_left_to_the_whole_read() -> None:
    path = FIXTURES / "claude-code-log-fixtures" / "dag_compact_after_rewind.jsonl"
    assert call_window(path, None, 10) is None
    result = CliRunner().invoke(main, ["context", str(path), "--json"])
    assert result.exit_code == 0
    assert json.loads(result.output) == _whole(path, None, 10)


def test_a_record_written_twice_is_left_to_the_whole_read(tmp_path: Path) -> None:
    path = _session(tmp_path, 4, 10)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines, lines[-1]]))
    assert call_window(path, None, 10) is None


def test_the_command_reads_one_call_without_the_whole_timeline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _session(tmp_path, 7, 3)
    expected = _whole(path, 4, 10)

    def no_whole_read(target: object) -> object:
        raise AssertionError("the whole file was read")

    monkeypatch.setattr("ctxviz.transcripts.registry.read_target", no_whole_read)
    result = CliRunner().invoke(main, ["context", str(path), "--at", "4", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == expected


def _grown(path: Path, lines: list[str], cuts: list[int]) -> Iterator[int]:
    """``path`` grown by appending ``lines`` up to each cut in turn (the same file: its identity is kept)."""
    done = 0
    for cut in cuts:
        with path.open("a") as out:
            out.write("".join(f"{line}\n" for line in lines[done:cut]))
        done = cut
        yield cut


def test_the_cache_takes_up_an_appended_file_where_it_stopped(tmp_path: Path) -> None:
    lines = list(_claude_lines(40, 10, 50))  # type: ignore[call-overload]
    boundary = next(n for n, line in enumerate(lines) if "compact_boundary" in line)
    path = tmp_path / "grown.jsonl"
    # cut inside a call, just after a boundary (its summary not written yet), after the summary, at the end
    for cut in _grown(path, lines, [7, boundary + 1, boundary + 2, 30, len(lines)]):
        window = cached_call_window(path, 10)
        assert window is not None
        assert call_window_dict(window, top_items=10) == _whole(path, None, 10), cut
    assert cache_file(path.absolute()).is_file()


def test_an_unchanged_file_is_answered_from_the_cache_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _session(tmp_path, 7, 3)
    expected = call_window_dict(cached_call_window(path, 5), top_items=5)  # type: ignore[arg-type]

    def unread(*args: object) -> object:
        raise AssertionError("the file was read again")

    monkeypatch.setattr("ctxviz.transcripts.lines.numbered_lines", unread)
    monkeypatch.setattr("ctxviz.transcripts.claude_code.one_call_cache.lines_after", unread)
    again = cached_call_window(path, 5)
    assert again is not None
    assert call_window_dict(again, top_items=5) == expected == _whole(path, None, 5)
    # more items than the cache keeps: the file is read again (and still gives the whole read's answer)
    monkeypatch.undo()
    assert call_window_dict(cached_call_window(path, 12), top_items=12) == _whole(path, None, 12)  # type: ignore[arg-type]


def test_a_rewritten_or_damaged_cache_is_not_trusted(tmp_path: Path) -> None:
    path = _session(tmp_path, 7, 3)
    cached_call_window(path, 10)
    # the same size, a byte changed before where the cache stopped: read again from the start
    data = bytearray(path.read_bytes())
    at = data.rindex(b'"input_tokens":3')
    data[at + len(b'"input_tokens":')] = ord("9")
    path.write_bytes(bytes(data))
    assert call_window_dict(cached_call_window(path, 10), top_items=10) == _whole(path, None, 10)  # type: ignore[arg-type]
    cache = cache_file(path.absolute())
    cache.write_bytes(cache.read_bytes()[:-10] + b"x" * 10)
    assert call_window_dict(cached_call_window(path, 10), top_items=10) == _whole(path, None, 10)  # type: ignore[arg-type]


def test_no_cache_is_written_among_an_agents_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "projects" / "-home-me-app"
    folder.mkdir(parents=True)
    path = _session(folder, 7, 3)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-inside"))
    assert cached_call_window(path, 10) is not None
    assert not (tmp_path / "cache-inside").exists()


def test_a_relative_path_is_named_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _session(tmp_path, 7, 3)
    with path.open("a") as out:
        out.write("{not json\n")
    monkeypatch.chdir(tmp_path)
    whole = _whole(Path(path.name), None, 10)
    assert whole["file"] == path.name
    for spelling in (path.name, path.name, str(path), path.name):  # cold, from the cache, another spelling
        result = CliRunner().invoke(main, ["context", spelling, "--json", "-v"])
        assert result.exit_code == 0
        document = json.loads(result.stdout)
        assert document == {**whole, "file": spelling}
        # 19 lines before it: the prompt, 7 calls of 2 lines, 2 compactions of 2 (boundary and summary)
        assert result.stderr.splitlines() == [
            f"{spelling}:20: JSON is malformed: object keys must be strings (byte 1), skipped",
            "ctxviz: 1 damaged or unknown lines skipped",
        ]
