"""Damaged input: every bad line is located, skipped, and the rest is read exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviz.errors import InputError
from ctxviz.transcripts import lines as lines_module
from ctxviz.transcripts.claude_code import summary as summary_module
from ctxviz.transcripts.claude_code.load import read_transcript
from ctxviz.transcripts.claude_code.summary import summarize
from ctxviz.transcripts.lines import numbered_lines


def _record(n: int, used: int, parent: str | None) -> dict[str, object]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "assistant",
        "uuid": f"a{n}",
        "sessionId": "s1",
        "cwd": "/work/app",
        "timestamp": f"2026-01-01T10:00:0{n}.000Z",
        "message": {
            "id": f"msg_{n}",
            "model": "claude-sonnet-4-6",
            "role": "assistant",
            "content": [{"type": "text", "text": "x" * 40}],
            "usage": {"input_tokens": 2, "cache_creation_input_tokens": used - 2, "cache_read_input_tokens": 0},
        },
    }


def _prompt(n: int, parent: str | None) -> dict[str, object]:
    return {"parentUuid": parent, "isSidechain": False, "type": "user", "uuid": f"u{n}", "sessionId": "s1",
            "cwd": "/work/app", "message": {"role": "user", "content": f"prompt {n}"}}  # fmt: skip


def _session(tmp_path: Path, lines: list[bytes], name: str = "s1.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join(lines))
    return path


def _line(record: dict[str, object], end: bytes = b"\n") -> bytes:
    return json.dumps(record, separators=(",", ":")).encode() + end


def _good() -> list[bytes]:
    return [
        _line(_prompt(1, None)),
        _line(_record(1, 20_000, "u1")),
        _line(_prompt(2, "a1")),
        _line(_record(2, 21_000, "u2")),
        _line(_prompt(3, "a2")),
        _line(_record(3, 23_000, "u3")),
    ]


def _used(path: Path) -> list[int]:
    return [s.used for s in read_transcript(path).timeline.steps if s.kind == "api-call"]


def test_malformed_binary_unknown_and_truncated_lines_are_located_and_skipped(tmp_path: Path) -> None:
    good = _good()
    lines = [
        good[0],
        b"{not json\n",
        good[1],
        b"\x00\xff\xfe binary junk \x89PNG\n",
        good[2],
        b'{"type":"brand-new-record","uuid":"z"}\n',
        good[3],
        good[4],
        good[5],
        b'{"parentUuid":"a3","type":"user","message":{"role":"us',  # being written
    ]
    path = _session(tmp_path, lines)
    reading = read_transcript(path)
    assert _used(path) == [20_000, 21_000, 23_000]
    assert reading.problems == (
        f"{path}:2: JSON is malformed: object keys must be strings (byte 1), skipped",
        f"{path}:4: not a JSON object, skipped",
        f"{path}:6: record type 'brand-new-record' not known to ctxviz, skipped",
        f"{path}:10: last line is incomplete (a session still being written?)",
    )
    assert "4 damaged or unknown lines skipped" in reading.timeline.notices
    row = summarize(path)
    assert (row.calls, row.peak, row.last, len(row.problems)) == (3, 23_000, 23_000, 4)


def test_crlf_line_ends_read_the_same(tmp_path: Path) -> None:
    crlf = [line.replace(b"\n", b"\r\n") for line in _good()]
    path = _session(tmp_path, crlf)
    assert _used(path) == [20_000, 21_000, 23_000]
    assert read_transcript(path).problems == ()
    assert summarize(path).calls == 3


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    path = _session(tmp_path, [])
    with pytest.raises(InputError, match=r"s1.jsonl: empty file"):
        read_transcript(path)


def test_unreadable_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing.jsonl: cannot read"):
        read_transcript(tmp_path / "missing.jsonl")


def test_only_junk_is_an_error(tmp_path: Path) -> None:
    path = _session(tmp_path, [b"\x00\x01\x02\n", b"garbage\n"])
    with pytest.raises(InputError, match="no readable Claude Code records in 2 lines"):
        read_transcript(path)


def test_big_file_is_streamed_in_chunks_with_exact_line_numbers(tmp_path: Path, monkeypatch) -> None:
    # A tiny chunk size stands in for a 1 GB file: lines straddle chunk edges, numbers stay exact.
    monkeypatch.setattr(lines_module, "CHUNK_BYTES", 7)
    path = _session(tmp_path, _good() + [b"{bad\n"] + _good())
    problems: list[str] = []
    numbers = [n for n, _, _ in numbered_lines(path, problems)]
    assert numbers == list(range(1, 14))
    reading = read_transcript(path)
    assert [p.split(": ")[0] for p in reading.problems] == [f"{path}:7"]


def test_overlong_line_is_skipped_not_buffered(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(lines_module, "CHUNK_BYTES", 64)
    monkeypatch.setattr(lines_module, "MAX_LINE_BYTES", 1000)
    huge = b'{"type":"user","message":{"content":"' + b"y" * 5000 + b'"}}\n'
    path = _session(tmp_path, [*_good()[:2], huge, *_good()[2:]])
    reading = read_transcript(path)
    assert reading.problems == (f"{path}:3: line longer than 0 MB, skipped",)
    assert _used(path) == [20_000, 21_000, 23_000]


def test_usage_drop_without_compaction_is_noted_and_sums_hold(tmp_path: Path) -> None:
    lines = [_line(_prompt(1, None)), _line(_record(1, 30_000, "u1")), _line(_prompt(2, "a1")),
             _line(_record(2, 50_000, "u2")), _line(_prompt(3, "a2")), _line(_record(3, 41_000, "u3"))]  # fmt: skip
    timeline = read_transcript(_session(tmp_path, lines)).timeline
    last = timeline.steps[-1]
    assert any("usage fell by 9,000 tokens" in note for note in last.notes)
    for step in timeline.steps:
        assert sum(b.tokens for b in timeline.state_at(step.index)) == step.used


def test_a_1m_window_is_inferred_from_a_large_call(tmp_path: Path) -> None:
    lines = [_line(_prompt(1, None)), _line(_record(1, 250_000, "u1"))]
    timeline = read_transcript(_session(tmp_path, lines)).timeline
    assert timeline.window == 1_000_000
    assert timeline.thresholds.autocompact == 967_000
    assert any("250,000" in n for n in timeline.notices)


@pytest.mark.parametrize("chunk", [7, 64, 1000, 8 * 1024 * 1024])
def test_the_summary_reads_any_chunking_as_line_by_line(tmp_path: Path, monkeypatch, chunk: int) -> None:
    # Whole chunks are decoded at once; a chunk with a damaged or blank line, a line longer than a chunk
    # and a last line without its end go line by line: figures and located problems are the same.
    from ctxviz.transcripts.claude_code.summary import summarize_lines

    monkeypatch.setattr(lines_module, "MAX_LINE_BYTES", 1000)
    huge = b'{"type":"user","message":{"content":"' + b"y" * 5000 + b'"}}\n'
    lines = [*_good()[:2], b"\n", b"{bad\n", huge, b"  \r\n", *_good()[2:], b'{"type":"user","mess']
    path = _session(tmp_path, lines)
    monkeypatch.setattr(lines_module, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(summary_module, "DECODED_CHUNK_BYTES", chunk)
    row = summarize(path)
    problems: list[str] = []
    careful = summarize_lines(numbered_lines(path, problems), str(path))
    assert (row.calls, row.first, row.peak, row.last) == (3, 20_000, 23_000, 23_000)
    assert sorted(row.problems) == sorted(problems + list(careful.problems))
    assert [p.split(": ", 1)[0] for p in row.problems][-1] == f"{path}:11"  # the unfinished last line, last
    assert row.problems[0].startswith(f"{path}:4: JSON is malformed")
