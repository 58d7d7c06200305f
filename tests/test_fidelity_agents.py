"""``fidelity`` on Codex rollouts and pi sessions: where the agent compacts under its rules, and the size
right after, from the rules and what the log recorded before the compaction (hand arithmetic below)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.importer.replay_recorded import RecordedReport, read_recorded, replay, rules_for
from ctxviz.profiles.codex import NUMBERS as CODEX


def _fidelity(path: Path) -> dict[str, object]:
    result = CliRunner().invoke(main, ["fidelity", "--json", str(path)])
    assert result.exit_code == 0, result.output
    document: dict[str, object] = json.loads(result.stdout)
    return document


def _usage(used: int, output: int) -> dict[str, int]:
    return {"input": used, "output": output, "cacheRead": 0, "cacheWrite": 0, "totalTokens": used + output}


def _pi_session(path: Path, next_call: int) -> Path:
    def message(role: str, text: str, usage: dict[str, int] | None = None) -> dict[str, object]:
        body: dict[str, object] = {"role": role, "content": [{"type": "text", "text": text}]}
        if usage is not None:
            body |= {"model": "claude-opus-4-5", "usage": usage, "stopReason": "stop"}
        return {"type": "message", "timestamp": "2025-12-08T22:41:05.306Z", "message": body}

    entries = [
        {"type": "session", "id": "pi-1", "timestamp": "2025-12-08T22:41:00.000Z", "cwd": "/tmp/demo"},
        message("user", "a" * 400),  # 1: 100 tokens at pi's 4 chars a token
        message("assistant", "b" * 200, _usage(3_000, 50)),  # 2
        message("user", "c" * 4_000),  # 3
        message("assistant", "d" * 400, _usage(150_000, 100)),  # 4
        message("user", "e" * 800),  # 5: the first entry kept
        message("assistant", "f" * 400, _usage(183_600, 100)),  # 6: 183,700 > 200,000 - 16,384
        {
            "type": "compaction",
            "timestamp": "2025-12-08T22:45:00.000Z",
            "summary": "s" * 2_000,
            "firstKeptEntryIndex": 5,
            "tokensBefore": 183_700,
        },  # fmt: skip
        message("user", "g" * 40),  # 10 tokens
        message("assistant", "h", _usage(next_call, 10)),
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def _recorded(path: Path) -> RecordedReport:
    """The recorded calls replayed under the agent's compaction rules alone (no scenario)."""
    from ctxviz.transcripts.registry import reader_for

    reader = reader_for(path)
    assert reader is not None
    agent = str(reader.name)
    return replay(read_recorded(agent, path), rules_for(agent))


def test_pi_compacts_past_window_less_reserve_and_keeps_what_it_counted(tmp_path: Path) -> None:
    path = _pi_session(tmp_path / "pi.jsonl", next_call=37_500)
    report = _fidelity(path)
    [compaction] = report["compactions"]
    # pi's count after call 3: its totalTokens, 183,600 + 100 = 183,700 > 200,000 - 16,384 = 183,616
    assert (compaction["measured_after_call"], compaction["simulated_after_call"]) == (3, 3)
    assert compaction["pre_tokens"] == 183_700
    predicted = report["predicted"]
    assert isinstance(predicted, dict) and predicted["calls"] == 1 and predicted["same_call"] == 1
    # the recorded calls under pi's rules alone: overhead 3,000 - 100 (the first prompt) = 2,900; kept: pi's
    # count at the compaction (183,600 + 100) less its count where entry 5 starts (150,000 + 100) = 33,600;
    # summary 2,000 chars = 500; then the new prompt, 10: 2,900 + 33,600 + 500 + 10
    [rules_only] = _recorded(path).compactions
    assert rules_only.simulated_after == 37_010
    assert report["recorded_calls"]["predicted"]["same_call"] == 1


def test_the_prediction_never_reads_the_call_after_the_compaction(tmp_path: Path) -> None:
    low = _fidelity(_pi_session(tmp_path / "low.jsonl", next_call=20_000))
    high = _fidelity(_pi_session(tmp_path / "high.jsonl", next_call=60_000))
    assert low["compactions"][0]["simulated_next"] == high["compactions"][0]["simulated_next"]


def _codex_rollout(path: Path, first_reasoning: int = 5_000) -> Path:
    def usage(used: int, output: int, reasoning: int = 0) -> dict[str, object]:
        last = {"input_tokens": used, "output_tokens": output, "total_tokens": used + output,
                "reasoning_output_tokens": reasoning}  # fmt: skip
        return {"type": "token_count", "info": {"last_token_usage": last, "total_token_usage": {"n": used + 1},
                                                "model_context_window": 258_400}}  # fmt: skip

    def user(text: str) -> dict[str, object]:
        content = [{"type": "input_text", "text": text}]
        return {"type": "response_item", "payload": {"type": "message", "role": "user", "content": content}}

    def tool(call_id: str, output: str) -> list[dict[str, object]]:
        return [
            {
                "type": "response_item",
                "payload": {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": call_id},
            },  # fmt: skip
            {
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": call_id, "output": output},
            },  # fmt: skip
        ]

    records = [
        {"type": "session_meta", "payload": {"id": "codex-1", "cli_version": "0.142.0", "cwd": "/tmp/demo"}},
        user("first turn"),
        {"type": "event_msg", "payload": usage(20_000, first_reasoning + 100, first_reasoning)},
        # {"type":"message","role":"user","content":[{"type":"input_text","text":"second turn"}]}: 87 bytes,
        # 22 tokens as Codex counts an item it keeps (its serialised bytes / 4, rounded up)
        user("second turn"),
        {"type": "event_msg", "payload": usage(200_000, 100)},
        # made by the third call's answer: {"type":"function_call_output","call_id":"c1","output":"yy…"} is
        # 4,058 bytes, 1,015 tokens as Codex counts (bytes / 4, rounded up)
        *tool("c1", "y" * 4_000),
        # Codex's count: 238,000 + 500 + 1,015 = 239,515, plus the first turn's reasoning (which the API
        # dropped) as Codex estimates it: 5,000 x 127% = 6,350 -> 245,865 >= 244,800 (90% of 258,400 / 95%)
        {"type": "event_msg", "payload": usage(238_000, 500)},
        {"type": "compacted", "payload": {"message": "", "replacement_history": []}},
        {"type": "event_msg", "payload": usage(0, 0) | {"info": {"last_token_usage": {
            "input_tokens": 0, "output_tokens": 0, "total_tokens": 15_000}, "total_token_usage": {"n": 231_000}}}},
        {"type": "event_msg", "payload": usage(18_500, 100)},
    ]  # fmt: skip
    path.write_text("".join(json.dumps({"timestamp": "2026-06-18T07:55:31.403Z", **r}) + "\n" for r in records))
    return path


def test_codex_compacts_on_its_own_count_and_starts_again_from_its_own_figure(tmp_path: Path) -> None:
    path = _codex_rollout(tmp_path / "rollout.jsonl")
    report = _fidelity(path)
    [compaction] = report["compactions"]
    assert (compaction["measured_after_call"], compaction["simulated_after_call"]) == (3, 3)
    assert compaction["trigger"] == "auto"  # the compaction came inside a turn, not as a turn of its own
    assert report["version"] == "0.142.0" and report["agent"] == "codex"
    # the engine's new context: the start-up (the first call's 20,000 less "first turn", 10 chars = 3 tokens)
    # and the newest user messages up to 20,000 tokens (the second turn's, which took the 180,000 its call
    # grew by, cut to that); the summary would be what Codex's own figure (15,000 + 3,197) leaves beyond
    # them, which is nothing here
    assert compaction["simulated_next"] == 19_997 + CODEX.kept_user_tokens == 39_997
    # the recorded calls under Codex's rules alone: its own figure written with the compaction (15,000) plus
    # what that figure leaves out
    [rules_only] = _recorded(path).compactions
    assert rules_only.simulated_after == 15_000 + CODEX.after_beyond_own_count


def test_codex_counts_the_reasoning_of_earlier_turns_that_the_api_dropped(tmp_path: Path) -> None:
    # 1,000 reasoning tokens: 239,515 + 1,270 = 240,785 < 244,800, so Codex would not have compacted there
    report = _fidelity(_codex_rollout(tmp_path / "rollout.jsonl", first_reasoning=1_000))
    assert report["compactions"][0]["simulated_after_call"] is None
    assert CODEX.reasoning_estimate_percent == 127


def test_fidelity_names_the_agent_it_refuses() -> None:
    gemini = Path(__file__).parent / "fixtures" / "other-agents" / "gemini-cli" / "agent-sessions_jsonl_v040.jsonl"
    result = CliRunner().invoke(main, ["fidelity", str(gemini)])
    assert result.exit_code == 1 and "a gemini-cli session; `ctxviz fidelity` replays" in result.output


def test_a_damaged_line_in_a_rollout_is_a_located_warning(tmp_path: Path) -> None:
    path = _codex_rollout(tmp_path / "rollout.jsonl")
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines[:2], "not json", *lines[2:]]) + "\n")
    result = CliRunner().invoke(main, ["fidelity", str(path)])
    assert result.exit_code == 0, result.output
    assert f"warning: {path}:3: not JSON" in result.stderr


def test_a_pi_compaction_under_the_line_was_typed_and_is_replayed_where_it_was(tmp_path: Path) -> None:
    path = _pi_session(tmp_path / "pi.jsonl", next_call=37_500)
    lines = path.read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    # 150,000 + 100 is the call before the compaction now: 150,100 is not over 200,000 - 16,384 = 183,616,
    # so pi's automatic rule could not have fired; the person typed /compact
    entries[6]["message"]["usage"] = _usage(150_000, 100)
    entries[7]["tokensBefore"] = 150_100
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    report = _fidelity(path)
    [compaction] = report["compactions"]
    assert compaction["trigger"] == "manual"
    assert (compaction["measured_after_call"], compaction["simulated_after_call"]) == (3, 3)
    predicted = report["predicted"]
    assert isinstance(predicted, dict) and predicted["automatic_compactions"] == 0


def test_codex_counts_a_message_it_keeps_as_its_serialised_bytes(tmp_path: Path) -> None:
    from ctxviz.transcripts.codex.recorded import read_recorded

    session = read_recorded(_codex_rollout(tmp_path / "rollout.jsonl"))
    # after the first call: the second turn's message, 87 bytes serialised -> 22 tokens (not its 11 chars / 4)
    assert session.calls[0].added == 22
