"""The tailer and the incremental follower: a file read as it grows gives what a whole-file read of the
same bytes gives, on the real sessions in tests/fixtures/claude-code."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ctxviz.errors import InputError
from ctxviz.live.session import LiveSession
from ctxviz.live.tail import Change, Read, Tail
from ctxviz.timeline import Timeline
from ctxviz.transcripts.claude_code.follow import NOT_ITEMS
from ctxviz.transcripts.claude_code.load import read_transcript
from ctxviz.transcripts.lines import numbered_lines

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
BIG = FIXTURES / "spotter-4d5611e5" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
SAMPLES = sorted(p for p in FIXTURES.rglob("*.jsonl") if "/subagents/" not in str(p) and p.stat().st_size > 0)


# --- the tailer ---------------------------------------------------------------------------------------


def test_tail_hands_out_only_complete_new_lines(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    file.write_bytes(b'{"a":1}\n{"b":')
    tail = Tail(file)
    first = tail.read()
    assert first.change is Change.GREW and first.lines == [(1, b'{"a":1}', True)]
    assert tail.read().change is Change.SAME
    with file.open("ab") as out:
        out.write(b'2}\r\n\n   \n{"c":3}\n')
    second = tail.read()
    assert second.lines == [(2, b'{"b":2}', True), (5, b'{"c":3}', True)]
    assert tail.offset == file.stat().st_size


def test_tail_numbers_lines_as_a_whole_file_read_does(tmp_path: Path) -> None:
    data = BIG.read_bytes()[:200_000]
    file = tmp_path / "s.jsonl"
    file.write_bytes(b"")
    tail = Tail(file)
    got = []
    for start in range(0, len(data), 7_001):
        with file.open("ab") as out:
            out.write(data[start : start + 7_001])
        got += tail.read().lines
    whole = [line for line in numbered_lines(file, []) if line[2]]
    assert got == whole


def test_a_first_read_is_parsed_chunk_by_chunk_and_equals_the_whole_file(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the first read hands its lines over a chunk at a time (never all of a big file's lines at once)
    from ctxviz.live import tail as tail_module

    monkeypatch.setattr(tail_module, "READ_BYTES", 64 * 1024)
    batches: list[int] = []
    real_read = Tail.read

    def read(self: Tail, take=None) -> Read:  # type: ignore[no-untyped-def]
        counted = None if take is None else (lambda lines: (batches.append(len(lines)), take(lines)))
        return real_read(self, counted)

    monkeypatch.setattr(Tail, "read", read)
    live = LiveSession(BIG)
    live.poll()
    timeline, whole = live.timeline(), read_transcript(BIG).timeline
    assert timeline is not None
    assert len(batches) == -(-BIG.stat().st_size // (64 * 1024))  # one hand-over per chunk read
    assert [(s.used, s.kind, s.label) for s in timeline.steps] == [(s.used, s.kind, s.label) for s in whole.steps]
    assert [(b.label, b.tokens) for b in timeline.blocks] == [(b.label, b.tokens) for b in whole.blocks]


def test_tail_survives_truncation_replacement_and_deletion(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    file.write_bytes(b'{"a":1}\n{"b":2}\n')
    tail = Tail(file)
    tail.read()
    file.write_bytes(b'{"c":3}\n')  # shorter: truncated and rewritten
    truncated = tail.read()
    assert truncated.change is Change.RESTARTED and "truncated" in truncated.reason
    assert truncated.lines == [(1, b'{"c":3}', True)]
    other = tmp_path / "new.jsonl"
    other.write_bytes(b'{"d":4}\n{"e":5}\n')
    os.replace(other, file)  # another inode at the same path
    replaced = tail.read()
    assert replaced.change is Change.RESTARTED and "replaced" in replaced.reason
    assert [n for n, _, _ in replaced.lines] == [1, 2]
    file.unlink()
    gone = tail.read()
    assert gone.change is Change.GONE and "gone" in gone.reason and gone.lines == []


# --- the follower against whole-file reads ----------------------------------------------------------


def _expected(prefix: Path) -> tuple[int, tuple[str, int] | None, list[tuple[int, str, str]]] | None:
    try:
        timeline = read_transcript(prefix).timeline
    except InputError:
        return None
    items = [b for b in timeline.state_at(timeline.last) if b.kind not in NOT_ITEMS]
    top = min(items, key=lambda b: (-b.tokens, b.entered, b.id), default=None)
    steps = [(s.used, s.kind, s.label) for s in timeline.steps]
    return timeline.steps[-1].used, (top.label, top.tokens) if top else None, steps


def _grow(source: Path, tmp_path: Path, pieces: int) -> list[tuple[int, int]]:
    """Append ``source`` to a new file in ``pieces`` parts (cut anywhere, mid-line included) and after
    each compare both followers (lean and full) with a whole-file read of the complete lines so far.
    Returns (complete bytes, used) at each check."""
    data = source.read_bytes()
    live_file, prefix = tmp_path / source.name, tmp_path / "prefix.jsonl"
    live_file.write_bytes(b"")
    lean, full = LiveSession(live_file, lean=True), LiveSession(live_file)
    cuts = sorted({len(data) * k // pieces + (k * 7919) % 97 for k in range(1, pieces)} | {len(data)})
    checked = []
    start = 0
    for cut in cuts:
        with live_file.open("ab") as out:
            out.write(data[start:cut])
        start = cut
        lean.poll(), full.poll()
        complete = data[: data.rfind(b"\n", 0, cut) + 1]
        prefix.write_bytes(complete)
        expected = _expected(prefix)
        figures, timeline = lean.figures(), full.timeline()
        if expected is None:
            assert figures is None and timeline is None
            continue
        used, biggest, steps = expected
        assert figures is not None and timeline is not None
        assert (figures.used, figures.biggest) == (used, biggest), f"after {len(complete)} bytes"
        assert [(s.used, s.kind, s.label) for s in timeline.steps] == steps
        checked.append((len(complete), used))
    return checked


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_following_a_growing_session_equals_reading_it_whole(sample: Path, tmp_path: Path) -> None:
    checked = _grow(sample, tmp_path, pieces=12)
    try:
        timeline = read_transcript(sample).timeline
    except InputError:
        assert checked == []  # no API call in the file: nothing expected at any point
        return
    data = sample.read_bytes()
    assert checked[-1] == (data.rfind(b"\n") + 1, timeline.steps[-1].used)


def test_the_3mb_session_followed_in_40_parts_ends_at_context_figure(tmp_path: Path) -> None:
    checked = _grow(BIG, tmp_path, pieces=40)
    assert checked[-1] == (BIG.stat().st_size, 106_060)
    assert len(checked) == 40


def test_new_records_below_the_last_call_need_no_rebuild(tmp_path: Path) -> None:
    lines = BIG.read_bytes().splitlines(keepends=True)
    file = tmp_path / BIG.name
    file.write_bytes(b"".join(lines[:400]))
    live = LiveSession(file, lean=True)
    assert live.poll().rebuilt  # the first read
    rebuilt = 0
    for line in lines[400:900]:
        with file.open("ab") as out:
            out.write(line)
        rebuilt += live.poll().rebuilt
    # of these 500 records, two hang off an earlier record of a response (parallel tool results) and
    # one is a compaction boundary whose logical parent is not in the file: the chain may change at
    # those three, and only those reread the file
    assert rebuilt == 3
    assert live.tail.offset == file.stat().st_size


def test_a_rewind_that_abandons_calls_is_followed_exactly(tmp_path: Path) -> None:
    sample = FIXTURES / "claude-code-log-fixtures" / "dag_compact_after_rewind.jsonl"
    checked = _grow(sample, tmp_path, pieces=len(sample.read_bytes().splitlines()))
    assert checked[-1][1] == read_transcript(sample).timeline.steps[-1].used


def _rewritten(lines: list[bytes], change) -> bytes:  # type: ignore[no-untyped-def]
    records = [json.loads(line) for line in lines]
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in change(records))


def _without_usage_every_third_call(records: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    ids: list[str] = []
    for record in records:
        message = record.get("message")
        if record.get("type") == "assistant" and isinstance(message, dict) and "usage" in message:
            ids += [message["id"]] if message["id"] not in ids else []
            if ids.index(message["id"]) % 3 == 0:
                del message["usage"]
    return records


def _rewound_to_the_first_prompt(records: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    first = next(r for r in records if r.get("type") == "user" and not r.get("isMeta"))
    return [*records, {**first, "uuid": "00000000-rewound", "timestamp": "2026-02-12T22:00:00.000Z"}]


@pytest.mark.parametrize(
    "damage",
    [
        lambda lines: b"".join(line for line in lines for _ in (1, 2)),
        lambda lines: b"".join(lines[::-1]),
        lambda lines: _rewritten(lines, _without_usage_every_third_call),
        lambda lines: _rewritten(lines, _rewound_to_the_first_prompt),
        lambda lines: b"\xef\xbb\xbf" + b"".join(lines),
    ],
    ids=["each-line-twice", "reversed", "calls-without-usage", "rewound-to-first-prompt", "utf8-bom"],
)
def test_damaged_sessions_followed_equal_them_read_whole(damage, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "source" / BIG.name
    source.parent.mkdir()
    source.write_bytes(damage(BIG.read_bytes().splitlines(keepends=True)))
    checked = _grow(source, tmp_path, pieces=10)
    assert checked[-1][1] == read_transcript(source).timeline.steps[-1].used


def test_a_followed_session_opens_its_subagents_and_compactions(tmp_path: Path) -> None:
    shutil.copytree(BIG.parent / "subagents", tmp_path / "subagents")
    followed, whole = _followed_in_pieces(BIG, tmp_path, 100), read_transcript(BIG).timeline

    def shown(timeline: Timeline) -> list[tuple[int, str, tuple[str, ...], str | None]]:
        return [(s.used, s.label, s.notes, s.child.source.name if s.child else None) for s in timeline.steps]

    assert shown(followed) == shown(whole)
    children = [(s.index, s.child.source.name) for s in followed.steps if s.child is not None]
    assert children == [(4, "agent-a2898e3"), (61, "agent-acompact-e1f845")]


def _followed_in_pieces(source: Path, tmp_path: Path, lines_a_piece: int) -> Timeline:
    """``source`` written again in ``tmp_path``, ``lines_a_piece`` lines at a time, and followed as it
    grows: the timeline followed at the end."""
    file = tmp_path / source.name
    lines = source.read_bytes().splitlines(keepends=True)
    file.write_bytes(b"")
    live = LiveSession(file)
    for start in range(0, len(lines), lines_a_piece):
        with file.open("ab") as out:
            out.write(b"".join(lines[start : start + lines_a_piece]))
        live.poll()
    followed = live.timeline()
    assert followed is not None
    return followed


def test_a_session_deleted_keeps_its_last_figures(tmp_path: Path) -> None:
    file = tmp_path / BIG.name
    file.write_bytes(BIG.read_bytes())
    live = LiveSession(file)
    live.poll()
    before = live.timeline()
    file.unlink()
    update = live.poll()
    assert update.change is Change.GONE and live.gone
    after = live.timeline()
    assert before is not None and after is not None and after.steps[-1].used == before.steps[-1].used == 106_060


def test_tail_notices_a_file_rewritten_in_place_longer(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    file.write_bytes(b'{"a":1}\n{"b":2}\n')
    tail = Tail(file)
    tail.read()
    inode = file.stat().st_ino
    with file.open("r+b") as out:  # the same inode, other bytes before the old end, and longer
        out.write(b'{"x":9}\n{"y":8}\n{"z":7}\n')
    assert file.stat().st_ino == inode
    rewritten = tail.read()
    assert rewritten.change is Change.RESTARTED and "rewritten in place" in rewritten.reason
    assert rewritten.lines == [(1, b'{"x":9}', True), (2, b'{"y":8}', True), (3, b'{"z":7}', True)]
    with file.open("ab") as out:  # a plain append after it is still only the new line
        out.write(b'{"w":6}\n')
    assert tail.read() == Read(Change.GREW, [(4, b'{"w":6}', True)])


def test_a_statusline_cache_notices_the_rewrite_too(tmp_path: Path) -> None:
    """The boundary is part of the cached tail: a rewrite between two statusline runs is seen."""
    from ctxviz.live import cache

    file = tmp_path / "s.jsonl"
    file.write_bytes(b'{"a":1}\n')
    live = LiveSession(file, lean=True)
    live.poll()
    cache_file = tmp_path / "cache" / "s.cache"
    cache.save(cache_file, live, cache.figures_header(live, file, None))
    with file.open("r+b") as out:
        out.write(b'{"q":1}\n{"r":2}\n')
    loaded = cache.load(cache_file, file)
    assert loaded is not None
    assert loaded[0].tail.read().change is Change.RESTARTED


def test_sidechains_inside_the_session_file_open_as_in_a_whole_read(tmp_path: Path) -> None:
    """The older layout: subagents' records in the main file (five parallel Task calls, two measured)."""
    source = FIXTURES / "claude-code-viewer" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    followed, whole = _followed_in_pieces(source, tmp_path, 7), read_transcript(source).timeline

    def shown(timeline: Timeline) -> list[tuple[int, str, tuple[str, ...], int | None]]:
        return [(s.used, s.label, s.notes, s.child.peak if s.child else None) for s in timeline.steps]

    assert shown(followed) == shown(whole)
    children = [s.child for s in followed.steps if s.child is not None]
    assert [(c.source.name[:10], c.peak) for c in children] == [("sidechain ", 14_654), ("sidechain ", 26_483)]


def test_lines_of_another_session_appended_to_a_followed_file_are_warned_of(tmp_path: Path) -> None:
    from ctxviz.live.watch import Watch

    first = FIXTURES / "spotter-4d5611e5" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    other = FIXTURES / "fasthooks" / "sample_main_transcript.jsonl"
    followed = tmp_path / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    followed.write_bytes(first.read_bytes())
    watch = Watch(followed)
    seen = watch.poll()
    assert seen is not None and not any("another session" in n for n in seen.timeline.notices)  # type: ignore[union-attr]
    with followed.open("ab") as out:
        out.write(other.read_bytes())
    seen = watch.poll()
    assert seen is not None and seen.status.startswith("lines of another session (")
    assert seen.timeline is not None and any("mix two sessions" in n for n in seen.timeline.notices)
    assert watch.poll() is None  # said once
