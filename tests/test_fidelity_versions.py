"""``ctxviz fidelity`` on four real sessions of Claude Code 2.0.76, 2.1.5 and 2.1.29 (vendored shrunk in
tests/fixtures/claude-code/entireio-shrunk/). The figures pinned here are the sessions' own: each call's
measured usage, each compaction boundary's preTokens and the call after it, read straight from the file
and matching the corpus index that was measured without ctxviz."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from shrunk_sessions import recorded

from ctxviz.cli import main
from ctxviz.engine import simulate
from ctxviz.importer import fidelity, session_to_scenario
from ctxviz.importer.fidelity import FidelityReport
from ctxviz.profiles.claude_code import CLAUDE_CODE

FOLDER = Path(__file__).parent / "fixtures" / "claude-code" / "entireio-shrunk"
# name: (version, calls, first call, preTokens, the call after the compaction), as the corpus index has them
SESSIONS = {
    "a6-e4c2a0fbd1": ("2.0.76", 12, 152_294, 155_250, 49_761),
    "34-c37819391d": ("2.1.5", 86, 40_297, 155_782, 68_294),
    "76-74489fb0a9": ("2.1.29", 43, 40_685, 167_094, 43_065),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("entireio")
    unpacked = {}
    for name in SESSIONS:
        path = out / f"{name}.jsonl"
        path.write_bytes(gzip.decompress((FOLDER / f"{name}.jsonl.gz").read_bytes()))
        unpacked[name] = path
    return unpacked


@pytest.fixture(scope="module")
def reports(files: dict[str, Path]) -> dict[str, FidelityReport]:
    return {name: fidelity(path) for name, path in files.items()}


@pytest.mark.parametrize("name", SESSIONS)
def test_the_figures_the_session_records(name: str, files: dict[str, Path], reports: dict[str, FidelityReport]) -> None:
    version, count, first, pre, after = SESSIONS[name]
    calls, boundaries = recorded(files[name])
    assert (len(calls), calls[0]) == (count, first)
    ((trigger, pre_tokens, before),) = boundaries
    assert (trigger, pre_tokens, calls[before]) == ("auto", pre, after)
    report = reports[name]
    assert report.version == version
    (compaction,) = report.compactions
    assert (compaction.pre_tokens, compaction.measured_after_call, compaction.measured_next) == (pre, before, after)


@pytest.mark.parametrize(("name", "threshold"), [("a6-e4c2a0fbd1", 155_000), ("34-c37819391d", 155_000),
                                                 ("76-74489fb0a9", 167_000)])  # fmt: skip
def test_each_version_compacts_at_its_own_threshold_and_call(
    name: str, threshold: int, files: dict[str, Path], reports: dict[str, FidelityReport]
) -> None:
    """Up to 2.1.20 Claude Code reserved the whole 32,000 of max output (200,000 − 32,000 − 13,000), from
    2.1.21 at most 20,000 (200,000 − 20,000 − 13,000); its count (preTokens) crossed that line."""
    pre = SESSIONS[name][3]
    assert pre >= threshold
    assert simulate(session_to_scenario(files[name]).scenario).thresholds.autocompact == threshold
    (compaction,) = reports[name].compactions
    assert compaction.offset == 0


def test_a_call_sent_over_the_threshold_because_claude_codes_count_was_under_it(files: dict[str, Path]) -> None:
    """2.1.29: the last call before the compaction measured 167,078, over 167,000, yet went out: Claude
    Code's own count before it (the call before, its output and chars/4 of what came after) was under
    the line. Its count before the next call, 167,094 (the recorded preTokens), was over: compacted there."""
    calls, ((_, pre, before),) = recorded(files["76-74489fb0a9"])
    assert calls[before - 1] == 167_078 > 167_000 and pre == 167_094
    (compaction,) = fidelity(files["76-74489fb0a9"]).compactions
    assert compaction.measured_after_call == compaction.simulated_after_call == before


def test_a_session_that_continues_another_carries_its_history_into_the_summary(
    reports: dict[str, FidelityReport],
) -> None:
    """a6-e4c2a0fbd1 opens at 152,294: the earlier conversation it continues, not a 150k start-up. It is
    summarised at the compaction, so the call after comes back near the measured 49,761 (within 15%),
    not at the 150k+ a start-up that size would keep."""
    (compaction,) = reports["a6-e4c2a0fbd1"].compactions
    assert compaction.simulated_next is not None and compaction.simulated_next < CLAUDE_CODE.continuation_first_call
    assert compaction.next_error is not None and compaction.next_error < 15.0


def test_set_version_replays_a_session_as_another_version_would(files: dict[str, Path]) -> None:
    result = CliRunner().invoke(main, ["run", "--json", "--set", "version=2.1.29", str(files["34-c37819391d"])])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["thresholds"]["autocompact"] == 167_000


def test_between_compactions_the_replay_grows_as_the_session_measured(tmp_path: Path) -> None:
    """fc-99c919b212 (2.1.29): after its compaction (after call 112), call 114 reads two files whole
    again that were read before it. Before the compaction a re-read is Claude Code's short 'unchanged'
    answer, after it the whole file: sized against a replay with no compaction, the re-read file came in
    twice. Each call after the first one after the compaction must grow by what the session measured."""
    path = tmp_path / "fc.jsonl"
    path.write_bytes(gzip.decompress((FOLDER / "fc-99c919b212.jsonl.gz").read_bytes()))
    calls, ((trigger, pre, before),) = recorded(path)
    assert (trigger, pre, before, len(calls)) == ("auto", 167_174, 112, 134)
    report = fidelity(path)
    (compaction,) = report.compactions
    assert compaction.offset == 0
    simulated = {c.call: c.simulated for c in report.calls}
    for call in range(before + 2, len(calls) + 1):
        assert simulated[call] - simulated[call - 1] == calls[call - 1] - calls[call - 2], call
