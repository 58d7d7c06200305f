"""The other agents' readers on their samples: calls, the context at each call, compactions, window."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxviz.errors import InputError
from ctxviz.timeline import Category, Timeline
from ctxviz.transcripts.protocol import NoUsage, Reader, Reads, SessionSummary, ref_for
from ctxviz.transcripts.registry import READERS, reader_for, reader_named

FIXTURES = Path(__file__).parent / "fixtures" / "other-agents"
CODEX = FIXTURES / "codex"
GEMINI = FIXTURES / "gemini-cli"
OPENCODE = FIXTURES / "opencode" / "agent-sessions_storage_v2"
PI = FIXTURES / "pi"
GROK = FIXTURES / "grok-build"
GROK_SESSION = GROK / "synthetic" / "sessions" / "%2Ftmp%2Fdemo" / "019f7000-aaaa-7bbb-8ccc-000000000001"
GROK_HISTORY = GROK / "agent-sessions" / "019f6851-7ec4-7ef0-97d3-03f3eee38755"


def _open(path: Path) -> tuple[Reader, Timeline]:
    reader = reader_for(path)
    assert reader is not None, path
    return reader, reader.timeline(ref_for(reader.name, path))


def _summary(path: Path) -> SessionSummary:
    reader = reader_for(path)
    assert reader is not None
    return reader.summarise(ref_for(reader.name, path), Reads())


def _calls(timeline: Timeline) -> list[int]:
    return [s.used for s in timeline.steps if s.kind == "api-call"]


def _blocks_sum_to_used(timeline: Timeline) -> None:
    for step in timeline.steps:
        if step.kind == "api-call":
            assert sum(b.tokens for b in timeline.state_at(step.index)) == step.used


# --- Codex ------------------------------------------------------------------------------------------


def test_codex_rollout_calls_window_compactions_subagents() -> None:
    path = CODEX / "agent-sessions_stage0_small.jsonl"
    reader, timeline = _open(path)
    assert reader.name == "codex" and timeline.agent == "codex"
    assert _calls(timeline) == [16_341]  # last_token_usage.input_tokens of the one real token_count
    assert timeline.window == 258_400  # the recorded model_context_window
    assert timeline.thresholds.autocompact == 244_800  # 90% of 272,000, the window behind 95%
    assert len(timeline.compaction_indices()) == 7  # 6 compacted items + 1 lone context_compacted event
    assert "1 token_count event with all-zero usage ignored" in timeline.notices
    row = _summary(path)
    assert (row.agent, row.calls, row.peak, row.subagents) == ("codex", 1, 16_341, 1)
    assert row.session == "019fc8be-3658-7ca3-9e29-000000000000" and row.project == "/tmp/repo"
    assert row.as_json()["agent"] == "codex"
    _blocks_sum_to_used(timeline)


def test_codex_items_sized_from_the_rollout() -> None:
    _, timeline = _open(CODEX / "agent-sessions_stage0_small.jsonl")
    first_call = next(s for s in timeline.steps if s.kind == "api-call")
    kinds = {b.kind for b in timeline.blocks_of(first_call.added)}
    assert {"overhead", "tool-output"} <= kinds
    overhead = next(b for b in timeline.blocks_of(first_call.added) if b.kind == "overhead")
    assert overhead.category is Category.SYSTEM_PROMPT and overhead.tokens == 16_335


def test_codex_null_info_is_not_a_call_and_repeats_count_once(tmp_path: Path) -> None:
    source = (CODEX / "agent-sessions_codex_053_rate_limit.jsonl").read_text().splitlines()
    _, timeline = _open(CODEX / "agent-sessions_codex_053_rate_limit.jsonl")
    assert _calls(timeline) == [12_091] and timeline.window == 258_400
    repeated = tmp_path / "repeated.jsonl"
    repeated.write_text("\n".join([*source[:2], source[1], source[1], *source[2:]]) + "\n")
    _, again = _open(repeated)
    assert _calls(again) == [12_091]
    assert "2 repeated token_count events (same totals) counted once" in again.notices


def test_codex_without_a_window_guesses_and_says_so() -> None:
    path = CODEX / "ccusage-session-alpha.jsonl"
    _, timeline = _open(path)
    assert _calls(timeline) == [1_000, 2_500]
    assert timeline.model == "gpt-5.3-codex" and timeline.window == 258_400
    assert any("no model_context_window" in n and "guess" in n for n in timeline.notices)
    assert _summary(path).models == ("gpt-5.2-codex", "gpt-5.3-codex")


def test_codex_turn_usage_alone_is_no_context() -> None:
    path = CODEX / "agent-sessions_codex_051_usage.jsonl"
    with pytest.raises(NoUsage, match=r"no token_count events with usage \(its turn.completed usage is summed"):
        _open(path)


# --- gemini-cli -------------------------------------------------------------------------------------


def test_gemini_jsonl_chat() -> None:
    path = GEMINI / "agent-sessions_jsonl_v040.jsonl"
    reader, timeline = _open(path)
    assert reader.name == "gemini-cli" and timeline.agent == "gemini-cli"
    assert timeline.source.name == "gemini_stage0_jsonl"
    assert _calls(timeline) == [11_855, 12_069]  # tokens.input of each gemini message
    assert timeline.model == "gemini-3-flash-preview"
    assert timeline.window == 1_048_576 and timeline.thresholds.autocompact == 524_288
    row = _summary(path)
    assert (row.session, row.calls, row.peak, row.last) == ("gemini_stage0_jsonl", 2, 12_069, 12_069)
    assert row.started == "2026-04-29T21:39:22.319Z"
    _blocks_sum_to_used(timeline)


def test_gemini_json_chat_reports_replies_without_tokens() -> None:
    _, timeline = _open(GEMINI / "agent-sessions_large.json")
    assert _calls(timeline) == [100]
    assert "1 gemini replies without token counts (not counted as calls)" in timeline.notices


def test_gemini_rewrites_rewinds_and_compressions(tmp_path: Path) -> None:
    lines = (GEMINI / "agent-sessions_jsonl_v040.jsonl").read_text().splitlines()
    rewritten = lines[4].replace('"input":12069', '"input":12100')
    rewound = '{"$rewindTo":"g-assistant-2"}'
    compressed = '{"$set":{"messages":[{"id":"s1","type":"user","content":"<state_snapshot>done</state_snapshot>"}]}}'
    after = '{"id":"g-3","type":"gemini","content":"ok","tokens":{"input":3100,"output":5},"model":"gemini-2.5-pro"}'
    cases = {
        "rewrite": ([*lines, rewritten], [11_855, 12_100], 0),
        "rewind": ([*lines, rewound], [11_855], 0),
        "compression": ([*lines, compressed, after], [11_855, 12_069, 3_100], 1),
    }
    for name, (content, calls, compactions) in cases.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(content) + "\n")
        _, timeline = _open(path)
        assert _calls(timeline) == calls, name
        assert len(timeline.compaction_indices()) == compactions, name


# --- opencode ---------------------------------------------------------------------------------------


def test_opencode_storage() -> None:
    reader = reader_named("opencode")
    refs = reader.discover([OPENCODE])
    assert [r.path.name for r in refs] == ["ses_s_stage0_large.json", "ses_s_stage0_small.json"]
    session = refs[0].path
    assert reader_for(session) is reader
    _, timeline = _open(session)
    assert timeline.agent == "opencode" and _calls(timeline) == [120]  # the step-finish part's tokens.input
    assert timeline.model == "gpt-4o-mini" and timeline.window == 200_000  # not in the opencode profile
    assert (
        "the session does not record the window: 200,000 for 'gpt-4o-mini' is a guess (the opencode profile "
        "does not list the model)" in timeline.notices
    )
    assert [timeline.steps[i].kind for i in timeline.compaction_indices()] == ["auto-compact"]
    assert "1 assistant message without tokens (not counted as calls)" in timeline.notices
    row = _summary(session)
    assert (row.project, row.calls, row.started) == ("/tmp/large", 1, "2024-10-27T03:35:00.000Z")


def test_opencode_session_without_tokens_says_so() -> None:
    with pytest.raises(NoUsage, match="none of its 2 messages carries tokens"):
        _open(OPENCODE / "session" / "proj_test" / "ses_s_stage0_small.json")


# --- pi ---------------------------------------------------------------------------------------------


def test_pi_sample() -> None:
    path = PI / "agent-sessions_small.jsonl"
    reader, timeline = _open(path)
    assert reader.name == "pi" and _calls(timeline) == [12, 12]
    row = _summary(path)
    assert [(c.pre_tokens, c.at_call) for c in row.compactions] == [(19, 1), (19, 2)]  # tokensBefore


def test_pi_branches_cache_and_a_compaction_that_keeps_a_tail() -> None:
    path = PI / "synthetic-branch-compaction.jsonl"
    _, timeline = _open(path)
    assert _calls(timeline) == [2_953, 4_505, 4_596, 4_634, 3_222]  # input + cacheRead + cacheWrite
    assert "2 entries on other branches of the session tree not shown" in timeline.notices
    compaction = timeline.steps[timeline.compaction_indices()[0]]
    kept = [b.label for b in timeline.state_at(compaction.index) if b.category is Category.MESSAGES]
    assert kept[:2] == ["Now count the lines.", "bash wc -l main.py"]  # from firstKeptEntryId on
    assert "Summarise what main.py does." not in kept
    assert kept[-1] == "compaction summary"
    assert _summary(path).compactions[0].pre_tokens == 4_654
    _blocks_sum_to_used(timeline)


# --- grok-build -------------------------------------------------------------------------------------


def test_grok_build_shows_estimates_and_its_own_figures() -> None:
    path = GROK_SESSION / "updates.jsonl"
    reader, timeline = _open(path)
    assert reader.name == "grok-build" and timeline.agent == "grok-build"
    assert [s.kind for s in timeline.steps] == ["prompt", "prompt", "auto-compact", "prompt"]
    assert not any(s.measured for s in timeline.steps)
    assert [s.used for s in timeline.steps] == [2_330, 5_464, 9_800, 9_813]
    assert timeline.window == 256_000 and timeline.thresholds.autocompact == 217_600
    assert "grok-build's latest recorded context size (signals.json): 14,210 tokens" in timeline.notices
    assert any("no per-call usage" in n for n in timeline.notices)
    row = _summary(path)
    assert (row.calls, row.measured, row.project) == (5, False, "/tmp/demo")  # modelCalls summed
    assert [c.pre_tokens for c in row.compactions] == [218_500]
    assert row.as_json()["measured"] is False


def test_grok_build_chat_history_is_the_context_now() -> None:
    path = GROK_HISTORY / "chat_history.jsonl"
    _, timeline = _open(path)
    assert len(timeline.steps) == 1 and timeline.steps[0].used == 242 and not timeline.steps[0].measured
    assert timeline.model == "grok-4.5" and timeline.source.summary == "/tmp/as-agent-lab/grok/project"


# --- Cursor and the registry ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["agent-sessions_small.jsonl", "agent-sessions_large.jsonl"])
def test_cursor_gets_one_clear_sentence(name: str) -> None:
    path = FIXTURES / "cursor" / name
    reader = reader_for(path)
    assert reader is not None and reader.name == "cursor"
    with pytest.raises(NoUsage, match="Cursor records no token usage"):
        reader.timeline(ref_for("cursor", path))


def test_every_sample_goes_to_its_own_reader() -> None:
    expected = {"codex": CODEX, "gemini-cli": GEMINI, "pi": PI, "cursor": FIXTURES / "cursor"}
    for agent, folder in expected.items():
        for path in folder.iterdir():
            found = reader_for(path)
            assert found is not None and found.name == agent, path
    assert [r.name for r in READERS if r.detect(GROK_SESSION / "updates.jsonl")] == ["grok-build"]


def test_a_claude_code_transcript_goes_to_the_wrapped_reader(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","message":{"role":"user","content":"hi"}}\n'
        '{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","message":{"id":"m1","role":"assistant",'
        '"model":"claude-sonnet-4-6","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":3,'
        '"cache_creation_input_tokens":5000,"cache_read_input_tokens":0,"output_tokens":9}}}\n'
    )
    reader, timeline = _open(path)
    assert reader.name == "claude-code" and timeline.agent == "claude-code"
    assert _calls(timeline) == [5_003]
    row = _summary(path)
    assert (row.agent, row.calls, row.as_json()["agent"]) == ("claude-code", 1, "claude-code")


def test_gemini_subagent_chats_belong_to_their_session(tmp_path: Path) -> None:
    chats = tmp_path / ".gemini" / "tmp" / "demo" / "chats"
    (chats / "gemini_stage0_jsonl").mkdir(parents=True)
    shutil.copy(GEMINI / "agent-sessions_jsonl_v040.jsonl", chats / "session-2026-04-29T21-39-gemini.jsonl")
    shutil.copy(GEMINI / "agent-sessions_jsonl_v040.jsonl", chats / "gemini_stage0_jsonl" / "sub-1.jsonl")
    reader = reader_named("gemini-cli")
    refs = reader.discover(reader.roots({"GEMINI_CLI_HOME": str(tmp_path)}, Path("/nonexistent")))
    assert [r.path.name for r in refs] == ["session-2026-04-29T21-39-gemini.jsonl"]
    assert reader.summarise(refs[0], Reads()).subagents == 1


OPENCODE_DB = FIXTURES / "opencode" / "synthetic-db" / "opencode.db"


def test_opencode_database() -> None:
    reader = reader_named("opencode")
    assert reader_for(OPENCODE_DB) is reader  # told by content: a SQLite file with opencode's tables
    refs = reader.discover([OPENCODE_DB.parent])
    assert [r.session for r in refs] == ["s_stage0_small", "s_stage0_large"]  # the child is a subagent
    large = reader.summarise(refs[1], Reads())
    assert (large.calls, large.peak, large.subagents, large.project) == (1, 120, 1, "/tmp/large")
    child = reader.timeline(ref_for("opencode", OPENCODE_DB, "s_child"))
    assert _calls(child) == [2_358]  # input 310 + cache.read 2,048
    latest = reader.timeline(ref_for("opencode", OPENCODE_DB))  # the file itself: its latest session
    assert latest.source.name == "s_stage0_large"
    assert f"{OPENCODE_DB} holds 3 sessions; this is the latest, s_stage0_large" in latest.notices
    assert sorted(p.name for p in OPENCODE_DB.parent.iterdir()) == ["opencode.db"]  # nothing written beside it


def test_a_damaged_opencode_database(tmp_path: Path) -> None:
    import sqlite3

    copy = tmp_path / "opencode.db"
    shutil.copy(OPENCODE_DB, copy)
    with sqlite3.connect(copy) as connection:
        connection.execute(
            "INSERT INTO part VALUES ('m_user_large_1_009', 'm_user_large_1', 's_stage0_large', 0, 0, '{cut')"
        )
        connection.execute("INSERT INTO message VALUES ('m_x', 's_stage0_large', 1730000101500, 0, '[1]')")
    reader = reader_named("opencode")
    reading = reader.read(ref_for("opencode", copy, "s_stage0_large"))
    assert _calls(reading.timeline) == [120]
    assert reading.problems == (
        f"{copy}: message m_x: its data is not an object, skipped",
        f"{copy}: part m_user_large_1_009: its data is not JSON, skipped",
    )
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    assert reader_for(garbage) is None
    with pytest.raises(InputError, match="cannot read opencode's database"):
        reader.read(ref_for("opencode", garbage))


def test_codex_compaction_summary_counted_once(tmp_path: Path) -> None:
    summary = "Another language model started this task. " * 20  # 840 chars: 210 tokens
    history = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix the login bug"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary}]},
    ]
    usage = {"input_tokens": 9_000, "cached_input_tokens": 0, "output_tokens": 10, "total_tokens": 9_010}
    lines = [
        {"type": "session_meta", "payload": {"id": "s", "cwd": "/w"}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": {
            "total_token_usage": usage, "last_token_usage": usage, "model_context_window": 258_400}}},
        {"type": "compacted", "payload": {"message": summary, "replacement_history": history}},
        {"type": "event_msg", "payload": {"type": "context_compacted"}},
    ]  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _, timeline = _open(path)
    assert len(timeline.compaction_indices()) == 1  # the item and its event are one compaction
    after = timeline.state_at(timeline.compaction_indices()[0])
    assert [(b.kind, b.label, b.tokens) for b in after if b.category is Category.MESSAGES] == [
        ("prompt", "Fix the login bug", 5),
        ("summary", "compaction summary", 210),
    ]


def test_pi_and_opencode_take_the_window_from_their_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from ctxviz.profiles import PROFILES
    from ctxviz.profiles.base import ModelSpec

    _, timeline = _open(PI / "synthetic-branch-compaction.jsonl")
    assert (timeline.model, timeline.window) == ("claude-sonnet-4-5", 200_000)
    assert "the session does not record the window: 200,000 for 'claude-sonnet-4-5', as the pi profile lists it" \
        in timeline.notices  # fmt: skip
    assert not any("guess" in n for n in timeline.notices)  # a listed model: the header shows no "?"
    bigger = {"claude-sonnet-4-5": ModelSpec(1_000_000, 64_000), "gpt-4o-mini": ModelSpec(128_000, 16_384)}
    for agent in ("pi", "opencode"):  # the profile's table is the one the reader reads
        monkeypatch.setitem(PROFILES, agent, replace(PROFILES[agent], models={**PROFILES[agent].models, **bigger}))
    assert _open(PI / "synthetic-branch-compaction.jsonl")[1].window == 1_000_000
    assert _open(OPENCODE / "session" / "proj_test" / "ses_s_stage0_large.json")[1].window == 128_000


def test_codex_row_is_counted_without_the_timeline_and_matches_it(tmp_path: Path) -> None:
    # sessions counts a rollout's calls and compactions without sizing what entered: same row as the
    # timeline's steps give, and the figures written below
    def usage(total: int, last: int) -> dict[str, object]:
        counts = {"input_tokens": last, "cached_input_tokens": 0, "output_tokens": 10, "total_tokens": last + 10}
        return {"total_token_usage": {**counts, "input_tokens": total}, "last_token_usage": counts}

    lines = [
        {"type": "session_meta", "payload": {"id": "s", "cwd": "/w"}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "spawn_agent", "call_id": "c1",
                                              "arguments": "{}"}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1",
                                              "output": '{"agent_id": "a1"}'}},
        {"type": "response_item", "payload": {"type": "hologram"}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": usage(9_000, 9_000)}},
        {"type": "compacted", "payload": {"message": "summary"}},
        {"type": "event_msg", "payload": {"type": "context_compacted"}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": usage(13_000, 4_000)}},
    ]  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for sample in [path, *sorted(CODEX.glob("*.jsonl"))]:
        reader, ref = reader_named("codex"), ref_for("codex", sample)
        try:
            row = reader.summarise(ref, Reads())
        except NoUsage:
            with pytest.raises(NoUsage):
                reader.timeline(ref)
            continue
        timeline = reader.timeline(ref)
        assert row.calls == len(_calls(timeline)) and row.last == _calls(timeline)[-1], sample
        steps = timeline.steps
        assert [c.at_call for c in row.compactions] == [
            sum(1 for s in steps[:i] if s.kind == "api-call") for i in timeline.compaction_indices()
        ], sample
    row = reader_named("codex").summarise(ref_for("codex", path), Reads())
    assert (row.calls, row.first, row.peak, row.last, row.subagents) == (2, 9_000, 9_000, 4_000, 1)
    assert [tuple(c) for c in row.compactions] == [("unknown", None, 1)]
    assert row.problems == (f"{path}:4: response item 'hologram' not known to ctxviz, skipped",)
