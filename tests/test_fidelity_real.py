"""``ctxviz fidelity`` on four more real sessions of the spotter project (Claude Code 2.1.39), vendored
shrunk: each long text keeps its length, so every size the importer reads is the original's.

What they test is compaction: before it the replay follows the measured usage exactly; at it, the engine
must fire at the same call (± 1) and come back to the measured size within 10%.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from shrink_session import shrink
from shrunk_sessions import SHRUNK, recorded, unpack

from ctxviz.cli import main
from ctxviz.engine import simulate
from ctxviz.errors import InputError
from ctxviz.importer import fidelity, session_to_scenario
from ctxviz.importer.fidelity import FidelityReport
from ctxviz.scenario_file import load_scenario
from ctxviz.tokens import CharsPerToken

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return unpack(tmp_path_factory.mktemp("spotter"))


@pytest.fixture(scope="module")
def reports(sessions: dict[str, Path]) -> dict[str, FidelityReport]:
    return {short: fidelity(path) for short, path in sessions.items()}


@pytest.mark.parametrize("short", ["258c7280", "fa812bfe", "8463c716", "ae4a77f8"])
def test_each_compaction_is_scored_where_the_session_records_it(
    short: str, sessions: dict[str, Path], reports: dict[str, FidelityReport]
) -> None:
    calls, boundaries = recorded(sessions[short])
    report = reports[short]
    assert [c.measured for c in report.calls] == calls
    assert [(c.trigger, c.pre_tokens, c.measured_after_call, c.measured_next) for c in report.compactions] == [
        (trigger, pre, before, calls[before]) for trigger, pre, before in boundaries
    ]
    assert report.fitted.calls == boundaries[0][2]
    assert report.predicted.calls == len(calls) - boundaries[0][2]


_CAME_BACK_LARGER = (
    "8463c716 measured 42,603 after its compaction, 5,687 more than the rules put back (7,356 before files "
    "were followed through their Writes and Edits)"
)


@pytest.mark.parametrize(
    "short", ["258c7280", "fa812bfe", pytest.param("8463c716", marks=pytest.mark.xfail(reason=_CAME_BACK_LARGER))]
)
def test_automatic_compactions_within_one_call_and_the_next_call_within_5_percent(
    short: str, reports: dict[str, FidelityReport]
) -> None:
    (compaction,) = reports[short].automatic
    assert compaction.offset is not None and abs(compaction.offset) <= 1, compaction
    assert compaction.next_error is not None and compaction.next_error <= 5.0, compaction


def test_shrinking_keeps_each_strings_length_in_characters_and_json_bytes() -> None:
    text = "a" * 160 + 'Read "café.ex"\n  → 42 lines\t'
    shrunk = shrink({"content": text, "file_path": "/x/" + "p" * 200, "n": 7})
    assert shrunk["content"] == "a" * 160 + 'xxxx "xxxé.xx"\n  → xx xxxxx\t'
    assert len(shrunk["content"]) == len(text)
    encoded = json.dumps(shrunk["content"], ensure_ascii=False).encode()
    assert len(encoded) == len(json.dumps(text, ensure_ascii=False).encode())
    assert shrunk["file_path"] == "/x/" + "p" * 200  # paths stay whole
    assert shrunk["n"] == 7


def test_the_shrunk_files_are_small_and_whole_json() -> None:
    packed = sorted(SHRUNK.rglob("*.jsonl.gz"))
    assert len(packed) == 13
    assert max(p.stat().st_size for p in packed) < 400_000
    for path in packed:
        for line in gzip.decompress(path.read_bytes()).decode().splitlines():
            json.loads(line)


def test_a_compaction_calls_own_file_is_not_imported_as_a_session() -> None:
    """Its one call holds the whole conversation in its cached prefix, which the file does not record:
    imported, it gave a 156,584-token system prompt and four compactions before its only call."""
    path = FIXTURES / "spotter-4d5611e5" / "subagents" / "agent-acompact-e1f845.jsonl"
    with pytest.raises(InputError) as raised:
        session_to_scenario(path)
    assert str(raised.value) == (
        f"{path}: the compaction call's own transcript (agent acompact-e1f845): its one call sends the "
        "whole conversation before the compaction, which this file does not hold; import the session "
        "4d5611e5-241a-462a-8d15-5122611a9569.jsonl instead"
    )
    result = CliRunner().invoke(main, ["fidelity", str(path)])
    assert result.exit_code != 0
    assert "the compaction call's own transcript" in result.output


def test_each_imports_validates_and_replays_through_yaml(sessions: dict[str, Path], tmp_path: Path) -> None:
    for short, path in sessions.items():
        result = session_to_scenario(path)
        out = tmp_path / f"{short}.yaml"
        out.write_text(result.yaml)
        assert CliRunner().invoke(main, ["validate", str(out)]).exit_code == 0, short
        loaded = load_scenario(out, counter=CharsPerToken())
        assert [s.used for s in simulate(loaded).steps] == [s.used for s in simulate(result.scenario).steps], short
