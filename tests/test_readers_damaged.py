"""Damaged copies of the other agents' samples: every bad record is located, reported and skipped,
nothing else is lost, and nothing but a clear ``InputError`` ever escapes."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from ctxviz.errors import InputError
from ctxviz.timeline import Timeline
from ctxviz.transcripts.protocol import Reading, Reads, ref_for
from ctxviz.transcripts.registry import reader_for, reader_named

FIXTURES = Path(__file__).parent / "fixtures" / "other-agents"
GROK_SESSION = "grok-build/synthetic/sessions/%2Ftmp%2Fdemo/019f7000-aaaa-7bbb-8ccc-000000000001"
# line-based samples: (path under FIXTURES, agent)
SAMPLES = [
    ("codex/agent-sessions_stage0_small.jsonl", "codex"),
    ("codex/agent-sessions_codex_053_rate_limit.jsonl", "codex"),
    ("codex/ccusage-session-alpha.jsonl", "codex"),
    ("gemini-cli/agent-sessions_jsonl_v040.jsonl", "gemini-cli"),
    ("pi/agent-sessions_small.jsonl", "pi"),
    ("pi/synthetic-branch-compaction.jsonl", "pi"),
    (f"{GROK_SESSION}/updates.jsonl", "grok-build"),
    ("grok-build/agent-sessions/019f6851-7ec4-7ef0-97d3-03f3eee38755/chat_history.jsonl", "grok-build"),
]
_IDS = [Path(p).name for p, _ in SAMPLES]


def _copy(relative: str, tmp_path: Path) -> Path:
    """The sample in its own folder (grok-build reads the files beside its log)."""
    source = FIXTURES / relative
    folder = tmp_path / "copy"
    shutil.copytree(source.parent, folder)
    return folder / source.name


def _read(path: Path, agent: str) -> Reading:
    return reader_named(agent).read(ref_for(agent, path))


def _sizes(timeline: Timeline) -> list[tuple[str, int]]:
    return [(s.kind, s.used) for s in timeline.steps]


@pytest.mark.parametrize(("relative", "agent"), SAMPLES, ids=_IDS)
def test_garbage_and_unknown_records_are_reported_and_skipped(relative: str, agent: str, tmp_path: Path) -> None:
    original = _read(FIXTURES / relative, agent)
    path = _copy(relative, tmp_path)
    lines = path.read_text().splitlines()
    middle = len(lines) // 2
    lines[middle:middle] = ["{this is not json", '["a", "list"]', '{"type": "from-the-future", "x": 1}']
    path.write_text("\n".join(lines) + "\n")
    reader = reader_for(path)
    assert reader is not None and reader.name == agent  # detection survives the damage
    damaged = _read(path, agent)
    assert _sizes(damaged.timeline) == _sizes(original.timeline)  # nothing else lost
    assert len(damaged.problems) == len(original.problems) + 3
    new = [p for p in damaged.problems if p not in original.problems]
    assert [p.split(": ", 1)[0] for p in new] == [f"{path}:{middle + n}" for n in (1, 2, 3)]
    assert "not JSON" in new[0] and "not a record" in new[1]
    assert f"{len(damaged.problems)} damaged or unknown records skipped" in damaged.timeline.notices


@pytest.mark.parametrize(("relative", "agent"), SAMPLES, ids=_IDS)
def test_a_cut_last_line_is_reported(relative: str, agent: str, tmp_path: Path) -> None:
    path = _copy(relative, tmp_path)
    data = path.read_bytes().rstrip(b"\n")
    last = data.rfind(b"\n") + 1
    path.write_bytes(data[: last + (len(data) - last) // 2])
    try:
        reading = _read(path, agent)
    except InputError as error:  # the cut record was the only usable one
        assert str(path) in error.message
        return
    line = data.count(b"\n") + 1
    assert reading.problems[-1] == f"{path}:{line}: incomplete last line, skipped"


@pytest.mark.parametrize(("relative", "agent"), SAMPLES, ids=_IDS)
def test_a_byte_order_mark_loses_nothing(relative: str, agent: str, tmp_path: Path) -> None:
    original = _read(FIXTURES / relative, agent)
    path = _copy(relative, tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert reader_for(path) is not None
    reading = _read(path, agent)
    assert _sizes(reading.timeline) == _sizes(original.timeline) and reading.problems == original.problems


@pytest.mark.parametrize(("relative", "agent"), SAMPLES, ids=_IDS)
def test_utf16_is_named(relative: str, agent: str, tmp_path: Path) -> None:
    path = _copy(relative, tmp_path)
    path.write_bytes(path.read_text().encode("utf-16"))
    with pytest.raises(InputError, match="UTF-16"):
        _read(path, agent)


def test_a_damaged_opencode_tree(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(FIXTURES / "opencode" / "agent-sessions_storage_v2", storage)
    (storage / "part" / "m_assistant_large_1" / "009.json").write_text('{"id": "p_cut", "type": "te')
    (storage / "part" / "m_user_large_1" / "002.json").write_text('{"id": "p_new", "type": "hologram"}')
    (storage / "message" / "s_stage0_large" / "msg_0005.json").write_text("[1, 2]")
    session = storage / "session" / "proj_test" / "ses_s_stage0_large.json"
    reading = _read(session, "opencode")
    assert [s.used for s in reading.timeline.steps if s.kind == "api-call"] == [120]
    assert len(reading.problems) == 3
    assert any("009.json: not valid JSON" in p for p in reading.problems)
    assert any("part type 'hologram' not known" in p for p in reading.problems)
    assert any("msg_0005.json: a JSON list, not a session object" in p for p in reading.problems)


def test_a_cut_gemini_json_chat_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    data = (FIXTURES / "gemini-cli" / "agent-sessions_large.json").read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="not valid JSON"):
        _read(path, "gemini-cli")


def test_a_grok_build_folder_without_its_log(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text('{"contextTokensUsed": 5}')
    assert reader_for(path) is reader_named("grok-build")
    with pytest.raises(InputError, match="neither updates.jsonl nor chat_history.jsonl"):
        _read(path, "grok-build")


@pytest.mark.parametrize(("relative", "agent"), SAMPLES, ids=_IDS)
def test_random_damage_never_escapes_as_a_traceback(relative: str, agent: str, tmp_path: Path) -> None:
    data = (FIXTURES / relative).read_bytes()
    path = _copy(relative, tmp_path)
    chance = random.Random(relative)
    for _ in range(25):
        damaged = bytearray(data)
        for _ in range(chance.randint(1, 8)):
            at = chance.randrange(len(damaged))
            damaged[at : at + chance.randint(0, 40)] = bytes(chance.randrange(256) for _ in range(chance.randint(0, 3)))
        path.write_bytes(bytes(damaged))
        try:
            reader = reader_for(path) or reader_named(agent)
            reader.read(ref_for(reader.name, path))
            reader.summarise(ref_for(reader.name, path), Reads())
        except InputError:
            pass
