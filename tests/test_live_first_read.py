"""The first read of a followed session feeds its entries to the follower batch by batch instead of holding
them all: what it builds equals the build from every entry at once, on every Claude Code fixture, whatever
the batches' size (small batches make the follower refuse mid-file, where the entries already fed are
parsed again and the rest held)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from ctxviz.live import tail as tail_module
from ctxviz.live.session import LiveSession
from ctxviz.transcripts.claude_code.follow import Follower

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
SAMPLES = sorted(p for p in FIXTURES.rglob("*.jsonl") if p.stat().st_size > 0)
SIMPLE = FIXTURES / "fasthooks" / "sample_main_transcript.jsonl"  # a chain the follower takes as it comes


def _whole(path: Path) -> LiveSession:
    """The session built from all its entries at once (what the first read did before)."""
    live = LiveSession(path)
    live._read_whole()
    return live


def _same(first: LiveSession, whole: LiveSession) -> None:
    assert msgspec.json.encode(first.timeline()) == msgspec.json.encode(whole.timeline())
    assert (first.problems, first.session, first.unmeasured_calls, first.tail.offset) == (
        whole.problems,
        whole.session,
        whole.unmeasured_calls,
        whole.tail.offset,
    )


@pytest.mark.parametrize("read_bytes", [4 * 1024, 64 * 1024, 8 * 1024 * 1024])
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name[:24])
def test_the_first_read_equals_the_build_from_every_entry(path: Path, read_bytes: int, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(tail_module, "READ_BYTES", read_bytes)
    first = LiveSession(path)
    first.poll()
    _same(first, _whole(path))


def test_a_plain_session_is_never_built_from_all_its_entries(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(tail_module, "READ_BYTES", 2 * 1024)
    whole = _whole(SIMPLE)

    def refused(*args: object, **kwargs: object) -> Follower:
        raise AssertionError("the entries were all held and built from at once")

    monkeypatch.setattr(Follower, "from_entries", refused)
    first = LiveSession(SIMPLE)
    first.poll()
    _same(first, whole)


def test_what_is_appended_after_the_first_read_follows_it(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(tail_module, "READ_BYTES", 4 * 1024)
    lines = SIMPLE.read_bytes().splitlines(keepends=True)
    file = tmp_path / SIMPLE.name
    file.write_bytes(b"".join(lines[: len(lines) // 2]))
    live = LiveSession(file)
    live.poll()
    with file.open("ab") as out:
        out.write(b"".join(lines[len(lines) // 2 :]))
    live.poll()
    _same(live, _whole(file))
