"""The statusline's first read starts at the session's last compaction: the same figures as a read of the
whole file, the calls counted only when the line shows them, and the whole file read when the tail alone
cannot be trusted."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from benchmarks.big_session import _claude_lines, _uuid
from ctxviz.live import statusline
from ctxviz.live.session import LiveSession
from ctxviz.transcripts.backwards import BLOCK_BYTES
from ctxviz.transcripts.claude_code.follow import window_thresholds
from ctxviz.transcripts.claude_code.from_end import last_boundary, last_call_before

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
SPOTTER = FIXTURES / "spotter-4d5611e5" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


@pytest.fixture(autouse=True)
def cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("cache-home")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def _session(folder: Path, calls: int, every: int, pad: int = 1_008) -> Path:
    path = folder / "session.jsonl"
    path.write_text("\n".join(_claude_lines(calls, every, pad)) + "\n")  # type: ignore[arg-type]
    return path


def _line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], path: Path, template: str) -> str:
    payload = json.dumps({"session_id": "s", "transcript_path": str(path)}).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(payload)))
    assert statusline.run(["--format", template, "--no-color"]) == 0
    return capsys.readouterr().out


def test_the_last_boundary_is_found_across_blocks(tmp_path: Path) -> None:
    # 1,300 calls of ~2.2 KB: ~2.9 MB, boundaries after calls 600 and 1,200, so the search crosses blocks
    path = _session(tmp_path, 1_300, 600)
    data = path.read_bytes()
    assert len(data) > 2 * BLOCK_BYTES
    expected = data.rfind(b"\n", 0, data.rfind(b'"compact_boundary"')) + 1
    assert last_boundary(path) == expected
    assert data[expected:].startswith(b'{"parentUuid":null,"logicalParentUuid"')


def test_a_boundary_line_cut_by_a_block_is_read_whole(tmp_path: Path) -> None:
    path = _session(tmp_path, 10, 5)
    data = path.read_bytes()
    start = data.rfind(b"\n", 0, data.rfind(b'"compact_boundary"')) + 1
    end = data.index(b"\n", start) + 1
    # a record after the boundary sized so that the last block read starts in the middle of its line
    pad = BLOCK_BYTES - (end - start) // 2 - (len(data) - end) - len(b'{"type":"progress","data":""}\n')
    filler = b'{"type":"progress","data":"' + b"y" * pad + b'"}\n'
    path.write_bytes(data[:end] + filler + data[end:])
    size = path.stat().st_size
    assert start < size - BLOCK_BYTES < end
    assert last_boundary(path) == start


def test_no_boundary_a_sidechain_one_or_an_unfinished_one_is_not_found(tmp_path: Path) -> None:
    path = _session(tmp_path, 10, 600)
    assert last_boundary(path) is None
    lines = path.read_text().splitlines()
    side = (
        lines[3]
        .replace('"isSidechain":false', '"isSidechain":true')
        .replace('"type":"user"', '"type":"system","subtype":"compact_boundary"')
    )
    path.write_text("\n".join([*lines, side]) + "\n")
    assert last_boundary(path) is None
    unfinished = '{"parentUuid":null,"type":"system","subtype":"compact_boundary","isSidechain":false'
    path.write_text("\n".join([*lines, unfinished]))
    assert last_boundary(path) is None


@pytest.mark.parametrize("calls", [1_250, 1_300])
def test_the_figures_equal_a_whole_read(tmp_path: Path, calls: int) -> None:
    path = _session(tmp_path, calls, 600)
    whole, fast = LiveSession(path, lean=True), LiveSession(path, lean=True, from_end=True)
    whole.poll()
    fast.poll()
    assert not fast.follower.calls_counted and whole.follower.calls_counted
    a, b = whole.figures(), fast.figures()
    assert a is not None and b is not None
    # by hand: each segment starts at 24,000 after a compaction and grows 520 a call; call 1,201 is the first
    assert a.used == b.used == 24_000 + 520 * (calls - 1_201)
    assert (a.measured, a.model, a.biggest) == (b.measured, b.model, b.biggest)
    assert (a.calls, b.calls) == (calls, None)
    # calls above 200k before the boundary prove a 1M window (the figures Claude Code would not pass)
    assert window_thresholds(fast.follower.models, fast.follower.peak)[1] == 1_000_000
    assert window_thresholds(fast.follower.models, fast.follower.peak) == window_thresholds(
        whole.follower.models, whole.follower.peak
    )


def test_the_last_call_before_the_boundary(tmp_path: Path) -> None:
    path = _session(tmp_path, 1_300, 600)
    boundary = last_boundary(path)
    assert boundary is not None
    # call 1,200, the last before the second compaction: 24,000 + 599 × 520
    assert last_call_before(path, boundary) == 335_480
    assert last_call_before(path, 0) is None


def test_appended_calls_follow_from_the_tail(tmp_path: Path) -> None:
    path = _session(tmp_path, 1_300, 600)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-20]) + "\n")  # ten calls fewer
    fast = LiveSession(path, lean=True, from_end=True)
    fast.poll()
    path.write_text("\n".join(lines) + "\n")
    fast.poll()
    figures = fast.figures()
    assert figures is not None and figures.used == 24_000 + 520 * 99


def test_a_rewound_tail_reads_the_whole_file(tmp_path: Path) -> None:
    path = _session(tmp_path, 1_300, 600)
    lines = path.read_text().splitlines()
    call = next(line for line in lines if f'"uuid":"{_uuid(2, 1_251)}"' in line)
    result = next(line for line in lines if f'"uuid":"{_uuid(3, 1_251)}"' in line)
    # /rewind to after call 1,250: call 1,251 again, as another message; calls 1,251-1,300 are abandoned
    again = call.replace(_uuid(2, 1_251), _uuid(7, 1)).replace(f"msg_{1_251:024d}", "msg_again")
    after = result.replace(_uuid(2, 1_251), _uuid(7, 1)).replace(_uuid(3, 1_251), _uuid(7, 2))
    path.write_text("\n".join([*lines, again, after]) + "\n")
    whole, fast = LiveSession(path, lean=True), LiveSession(path, lean=True, from_end=True)
    whole.poll()
    fast.poll()
    assert fast.follower.calls_counted  # the tail's chain does not run unbroken: the whole file is read
    figures = fast.figures()
    assert figures is not None and figures == whole.figures()
    assert figures.used == 24_000 + 520 * 50


def test_the_calls_are_counted_when_the_line_shows_them(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    path = _session(tmp_path, 1_300, 600)
    used = str(24_000 + 520 * 99)
    assert _line(monkeypatch, capsys, path, "{used_tokens}") == f"{used}\n"
    assert _line(monkeypatch, capsys, path, "{used_tokens} {calls}") == f"{used} 1300\n"
    assert _line(monkeypatch, capsys, path, "{calls:>6}") == "  1300\n"


def test_the_3mb_session_from_its_last_compaction(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    fast = LiveSession(SPOTTER, lean=True, from_end=True)
    fast.poll()
    assert not fast.follower.calls_counted
    # the figure the session records at its last call (input + cache creation + cache read)
    assert _line(monkeypatch, capsys, SPOTTER, "{used_tokens}") == "106060\n"


def test_a_rebuild_starts_again_from_the_last_compaction(tmp_path: Path) -> None:
    path = _session(tmp_path, 1_300, 600)
    fast = LiveSession(path, lean=True, from_end=True)
    fast.poll()
    lines = path.read_text().splitlines()
    # a record whose parent is before the boundary: the incremental state cannot place it
    stray = lines[-1].replace(f'"parentUuid":"{_uuid(2, 1_300)}"', f'"parentUuid":"{_uuid(2, 5)}"')
    stray = stray.replace(_uuid(3, 1_300), _uuid(6, 1))
    path.write_text("\n".join([*lines, stray]) + "\n")
    update = fast.poll()
    assert update.rebuilt and fast.follower.calls_counted  # a parent before the boundary: the whole file
    figures = fast.figures()
    whole = LiveSession(path, lean=True)
    whole.poll()
    assert figures == whole.figures()


def test_a_short_session_compacted_within_its_first_records(tmp_path: Path) -> None:
    path = _session(tmp_path, 80, 40, pad=20)  # the boundary is line 82: within the first records read
    whole, fast = LiveSession(path, lean=True), LiveSession(path, lean=True, from_end=True)
    whole.poll()
    fast.poll()
    assert not fast.follower.calls_counted
    a, b = whole.figures(), fast.figures()
    assert a is not None and b is not None
    assert b.used == 24_000 + 520 * 39  # call 80, the 40th after the compaction
    assert (a.used, a.measured, a.model, a.biggest) == (b.used, b.measured, b.model, b.biggest)
