"""``ctxviz statusline``: the same figure as ``ctxviz context`` on real sessions, a cache that is only
ever a shortcut, and a fallback line (exit 0) for anything wrong."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctxviz import cache_file
from ctxviz.live import cache as cache_module
from ctxviz.live import statusline
from ctxviz.live.session import LiveSession
from ctxviz.report.context_data import context_dict
from ctxviz.transcripts.claude_code.load import read_transcript

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
BIG = FIXTURES / "spotter-4d5611e5" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
EXACT = "{used_tokens} {window_tokens} {left} · {item} {item_tokens}"


@pytest.fixture(autouse=True)
def cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("cache-home")  # beside the transcripts' folder, never inside it
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: bytes, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = statusline.run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _payload(path: Path, **more: object) -> bytes:
    return json.dumps({"session_id": "s", "transcript_path": str(path), "model": {"id": "x"}, **more}).encode()


def test_the_example_line_on_the_3mb_session(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _run(monkeypatch, capsys, _payload(BIG), "--no-color")
    assert code == 0 and err == ""
    assert out == "▰▰▰▱▱ 106k/200k 53% · 60.9k to compact · biggest: lib/spotter_web/live/session_live.ex 9.6k\n"


@pytest.mark.parametrize(
    "sample",
    [
        BIG,
        FIXTURES / "claude-code-log-fixtures" / "dag_compact_after_rewind.jsonl",
        FIXTURES / "claude-code-log-fixtures" / "sidechain_integrated.jsonl",
        FIXTURES / "ccusage-fixtures" / "project-alpha-session-alpha-chat.jsonl",
    ],
    ids=lambda p: p.name,
)
def test_the_figure_is_the_one_context_gives(sample: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    timeline = read_transcript(sample).timeline
    expected = context_dict(timeline, timeline.last)
    items = [i for i in expected["items"] if i["kind"] not in ("overhead", "summary")]  # type: ignore[attr-defined]
    for _ in range(2):  # cold cache, then warm
        _, out, _ = _run(monkeypatch, capsys, _payload(sample), "--format", "{used_tokens} {window_tokens}")
        assert out == f"{expected['used']} {expected['window']}\n"
    _, out, _ = _run(monkeypatch, capsys, _payload(sample), "--format", "{item}")
    assert out == (f"{items[0]['label']}\n" if items else "\n")


def test_a_window_given_by_claude_code_sets_the_window_and_threshold(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    payload = _payload(BIG, context_window={"context_window_size": 1_000_000})
    _, out, _ = _run(monkeypatch, capsys, payload, "--no-color")
    # 1,000,000 - 20,000 reserved for the summary - 13,000 buffer = 967,000; 967,000 - 106,060 left
    assert out.startswith("▰▱▱▱▱ 106k/1M 11% · 861k to compact · ")


def test_colours_unless_no_color(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    _, out, _ = _run(monkeypatch, capsys, _payload(BIG))
    assert out.startswith("\x1b[32m▰▰▰▱▱\x1b[0m 106k/200k \x1b[32m53%\x1b[0m")
    monkeypatch.setenv("NO_COLOR", "1")
    _, out, _ = _run(monkeypatch, capsys, _payload(BIG))
    assert "\x1b" not in out


@pytest.mark.parametrize(
    ("stdin", "reason"),
    [
        (b"", "nothing on stdin"),
        (b"garbage{", "stdin is not JSON"),
        (b"[1, 2]", "not an object"),
        (b'{"session_id": "s"}', "no transcript_path"),
        (b'{"transcript_path": "/nowhere/at/all.jsonl"}', "no such transcript"),
    ],
)
def test_bad_input_prints_the_fallback_line_and_exits_0(stdin: bytes, reason: str, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _run(monkeypatch, capsys, stdin)
    assert (code, out, err) == (0, statusline.FALLBACK + "\n", "")
    code, out, err = _run(monkeypatch, capsys, stdin, "--debug")
    assert code == 0 and out == statusline.FALLBACK + "\n" and reason in err


def test_a_session_without_a_call_yet(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    file = tmp_path / "new.jsonl"
    file.write_bytes(BIG.read_bytes().splitlines(keepends=True)[0])
    _, out, _ = _run(monkeypatch, capsys, _payload(file))
    assert out == statusline.NO_CALL_YET + "\n"


def test_an_unknown_field_or_option_falls_back(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    _, out, err = _run(monkeypatch, capsys, _payload(BIG), "--format", "{nope}", "--debug")
    assert out == statusline.FALLBACK + "\n" and "{nope} is not a field" in err
    _, out, err = _run(monkeypatch, capsys, _payload(BIG), "--colour", "--debug")
    assert out == statusline.FALLBACK + "\n" and "unknown option '--colour'" in err


def test_a_warm_cache_answers_from_its_header(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    _run(monkeypatch, capsys, _payload(BIG))

    def no_reading(*args: object) -> None:
        raise AssertionError("the transcript was read again")

    monkeypatch.setattr(cache_module, "refresh", no_reading)
    _, out, _ = _run(monkeypatch, capsys, _payload(BIG), "--format", "{used_tokens}")
    assert out == "106060\n"


def test_appended_lines_are_read_from_the_cached_offset(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    lines = BIG.read_bytes().splitlines(keepends=True)
    file = tmp_path / BIG.name
    file.write_bytes(b"".join(lines[:1000]))
    _run(monkeypatch, capsys, _payload(file))
    size = file.stat().st_size
    with file.open("ab") as out:
        out.write(b"".join(lines[1000:1010]))
    reads: list[int] = []
    original = LiveSession.poll

    def spy(self: LiveSession):  # type: ignore[no-untyped-def]
        reads.append(self.tail.offset)
        return original(self)

    monkeypatch.setattr(LiveSession, "poll", spy)
    _, out, _ = _run(monkeypatch, capsys, _payload(file), "--format", "{used_tokens}")
    assert reads == [size]  # one poll, starting where the last run stopped
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_bytes(b"".join(lines[:1010]))
    assert out == f"{read_transcript(prefix).timeline.steps[-1].used}\n"


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"not json at all\n" + data,
        lambda data: data[: len(data) // 2],  # a truncated state
        lambda data: cache_file.pack_cache(
            {**cache_file.unpack_cache(data)[0], "version": "0.0.0"}, cache_file.unpack_cache(data)[1]
        ),  # another ctxviz
        lambda data: cache_file.pack_cache(cache_file.unpack_cache(data)[0], b"\x93\x01\x02"),  # another shape
    ],
    ids=["garbage", "truncated", "version", "shape"],
)
def test_a_damaged_cache_is_rebuilt_never_trusted(damage, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    _run(monkeypatch, capsys, _payload(BIG))
    cache = cache_file.cache_file(BIG.absolute())
    good = cache.read_bytes()
    damaged = damage(good)
    # the damage must not leave a header claiming current figures that are wrong
    cache.write_bytes(damaged.replace(b'"used": 106060', b'"used": 1'))  # and its figures wrong
    _, out, err = _run(monkeypatch, capsys, _payload(BIG), "--format", "{used_tokens}", "--debug")
    assert out == "106060\n"
    assert "cache not usable" in err and "rebuilt" in err
    assert cache.read_bytes() == good  # rewritten whole


def test_the_installed_command_takes_the_fast_path(tmp_path: Path, cache_home: Path) -> None:
    """Through click and through the entry point (which ``python -m ctxviz`` uses too): the same line, exit 0."""
    env = {"XDG_CACHE_HOME": str(cache_home), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}
    code = (
        "import atexit, sys; atexit.register(lambda: print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'click', 'rich', 'textual', 'pydantic'}), file=sys.stderr)); "
        "sys.argv = ['ctxviz', 'statusline']; from ctxviz.main import main; main()"
    )
    fast = subprocess.run([sys.executable, "-c", code], input=_payload(BIG), capture_output=True, env=env, check=False)
    through_click = "from ctxviz.cli import main; main(['statusline'])"
    slow = subprocess.run([sys.executable, "-c", through_click], input=_payload(BIG), capture_output=True, env=env,
                          check=False)  # fmt: skip
    assert fast.returncode == slow.returncode == 0
    assert fast.stdout == slow.stdout and fast.stdout.startswith("▰▰▰▱▱ 106k/200k 53%".encode())
    assert fast.stderr.strip() == b"[]"  # neither click, nor Rich, nor Textual, nor pydantic


def test_help_lists_the_fields(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = _run(monkeypatch, capsys, b"", "--help")
    assert code == 0 and out.startswith("Usage: ctxviz statusline")
    assert ", ".join(statusline.FIELDS) in " ".join(out.split())  # wrapped to fit 80 columns


def test_the_readme_picture_holds_the_line() -> None:
    from ctxviz.live.preview import statusline_svg

    svg = statusline_svg("\x1b[32m▰▰▰▱▱\x1b[0m 106k/200k 53% · 60.9k to compact")
    assert svg.startswith("<svg") and "106k/200k&#160;53%" in svg


def test_no_cache_is_written_among_the_transcripts(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    projects = tmp_path / "claude" / "projects"
    session = projects / "-home-me-app" / BIG.name
    session.parent.mkdir(parents=True)
    session.write_bytes(BIG.read_bytes())
    monkeypatch.setenv("XDG_CACHE_HOME", str(projects / "cache"))
    _, out, err = _run(monkeypatch, capsys, _payload(session), "--format", "{used_tokens}", "--debug")
    assert out == "106060\n" and "inside an agent's folder" in err
    assert not (projects / "cache").exists()
