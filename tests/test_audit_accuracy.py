"""The audit's carried tokens add up to what the calls sent, on the logs of every agent whose log records
its calls' usage. Expected figures are the usage the fixture itself records, added by hand."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.report.audit import carried_cost
from ctxviz.transcripts.registry import read_target


def _usage(tokens: int) -> dict[str, object]:
    usage = {"input_tokens": tokens, "cached_input_tokens": 0, "output_tokens": 10, "total_tokens": tokens + 10}
    return {"type": "event_msg", "payload": {"type": "token_count", "info": {
        "total_token_usage": usage, "last_token_usage": usage, "model_context_window": 258_400}}}  # fmt: skip


def _message(role: str, text: str) -> dict[str, object]:
    return {"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}


def test_a_codex_compaction_that_rebuilds_the_instructions_counts_them_once(tmp_path: Path) -> None:
    # Codex's compacted history is the whole new history: its developer message and AGENTS.md replace the
    # first copies. Left in the window, the first copies made it hold 4,000 + 2,000 tokens more than the
    # last call measured (the overhead is 9,000 - 4,000 - 2,000 - 2 = 2,998; after the compaction 2,998 +
    # 4,000 + 2,000 + 1,000 for the summary = 9,998 of the 12,000 measured)
    developer = _message("developer", "d" * 16_000)  # 4,000 tokens at chars/4
    agents = _message("user", "# AGENTS.md instructions\n" + "a" * 7_975)  # 2,000 tokens
    summary = "s" * 4_000  # 1,000 tokens
    lines = [
        {"type": "session_meta", "payload": {"id": "s", "cwd": "/w"}},
        {"type": "response_item", "payload": developer},
        {"type": "response_item", "payload": agents},
        {"type": "response_item", "payload": _message("user", "fix it")},
        _usage(9_000),
        {"type": "response_item", "payload": _message("assistant", "r" * 40_000)},
        _usage(19_000),
        {"type": "compacted", "payload": {"message": summary,
                                          "replacement_history": [developer, agents, _message("user", summary)]}},
        _usage(12_000),
    ]  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    timeline = read_target(path).timeline
    cost = carried_cost(timeline)
    assert (cost.calls, cost.input_tokens) == (3, 9_000 + 19_000 + 12_000)
    assert cost.carried == cost.input_tokens
    last = timeline.state_at(len(timeline.steps) - 1)
    assert sum(b.tokens for b in last) == 12_000
    assert [b.label for b in last].count("developer instructions") == 1
    assert [b.label for b in last].count("AGENTS.md") == 1


def test_a_compressed_rollout_is_audited_as_its_agent(tmp_path: Path) -> None:
    # two token_count records: 1,000 then 2,500 (the same rollout as tests/fixtures, gzip-compressed)
    rollout = Path(__file__).parent / "fixtures" / "other-agents" / "codex" / "ccusage-session-alpha.jsonl"
    packed = tmp_path / "rollout.jsonl.gz"
    packed.write_bytes(gzip.compress(rollout.read_bytes()))
    result = CliRunner().invoke(main, ["audit", str(packed), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert (document["agent"], document["calls"], document["input_tokens"]) == ("codex", 2, 1_000 + 2_500)
