"""Import never crashes on a damaged session: it gives a scenario that validates and runs, or a clear
``InputError`` naming the file — never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviz.engine import simulate
from ctxviz.errors import InputError
from ctxviz.importer import fidelity, session_to_scenario

SOURCE = Path(__file__).parent / "fixtures" / "claude-code" / "spotter-misc" / "subagent.jsonl"
LINES = SOURCE.read_bytes().splitlines(keepends=True)

# what a damaged file may hold instead of a line: cut JSON, other types, wrong field types, junk bytes
JUNK = [
    b"{", b"[]\n", b"null\n", b'{"type": 3}\n', b'{"message": "x"}\n', b"\xff\xfe\n",
    b'{"type":"assistant","message":{"id":"m","usage":{"input_tokens":"many"}}}\n',
    b'{"type":"assistant","message":{"id":"m9","content":[{"type":"tool_use","id":7}],'
    b'"usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}\n',
    b'{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"nowhere","content":[1,2]}]}}\n',
    b'{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":-5}}\n',
    b'{"type":"user","isCompactSummary":true,"message":{"content":"summary"}}\n',
]  # fmt: skip


def _check(path: Path) -> None:
    try:
        result = session_to_scenario(path)
    except InputError as error:
        assert str(path) in error.message
        return
    simulate(result.scenario)
    report = fidelity(path)
    assert len(report.calls) >= 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    keep=st.lists(st.booleans(), min_size=len(LINES), max_size=len(LINES)),
    cut=st.integers(min_value=0, max_value=len(LINES) - 1),
    at=st.integers(min_value=0, max_value=400),
    junk=st.lists(st.tuples(st.integers(0, len(LINES)), st.sampled_from(JUNK)), max_size=4),
)
def test_damaged_sessions_import_or_fail_clearly(tmp_path: Path, keep, cut, at, junk) -> None:  # noqa: ANN001
    lines = [line for line, kept in zip(LINES, keep, strict=True) if kept]
    if lines:
        n = cut % len(lines)
        lines[n] = lines[n][:at]  # one line cut short
    for where, bad in junk:
        lines.insert(min(where, len(lines)), bad)
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(b"".join(lines))
    _check(path)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_random_bytes_fail_clearly(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "noise.jsonl"
    path.write_bytes(data)
    _check(path)


def test_usage_that_shrinks_without_a_compaction(tmp_path: Path) -> None:
    """Calls whose size falls (earlier thinking dropped): sizes there are estimates; nothing breaks."""
    records = []
    for n, used in enumerate((30_000, 29_000, 31_000)):
        records.append({"type": "user", "uuid": f"u{n}", "parentUuid": f"a{n - 1}" if n else None,
                        "message": {"role": "user", "content": f"prompt {n}"}})  # fmt: skip
        usage = {"input_tokens": used, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message = {"id": f"m{n}", "model": "claude-sonnet-4-6", "role": "assistant",
                   "content": [{"type": "text", "text": "ok"}], "usage": usage}  # fmt: skip
        records.append({"type": "assistant", "uuid": f"a{n}", "parentUuid": f"u{n}", "message": message})
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = fidelity(path)
    assert [c.measured for c in report.calls] == [30_000, 29_000, 31_000]
    assert report.calls[0].simulated == 30_000
    assert report.calls[2].simulated - report.calls[1].simulated == 2_000


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prompt=st.text(min_size=1, max_size=120), command=st.text(max_size=80))
def test_any_text_survives_the_yaml(tmp_path: Path, prompt: str, command: str) -> None:
    """Prompts and commands are written into the YAML as text: whatever they hold, the scenario loads."""
    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}
    usage = {"input_tokens": 1_000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": prompt}},
        {"type": "assistant", "uuid": "a0", "parentUuid": "u0",
         "message": {"id": "m0", "model": "claude-sonnet-4-6", "role": "assistant", "content": [use], "usage": usage}},
        {"type": "user", "uuid": "u1", "parentUuid": "a0",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}},
    ]  # fmt: skip
    path = tmp_path / "text.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = session_to_scenario(path)
    (bash,) = [e.bash for e in result.scenario.events if hasattr(e, "bash")]
    assert bash.command == " ".join(command.strip().split("\n", 1)[0].split())[:80] or bash.command.endswith("…")


def test_a_subagent_type_of_the_users_own_is_declared_as_a_custom_agent(tmp_path: Path) -> None:
    """Real sessions call subagents their users defined ('reviewer', 'plugin:review:security'); the
    scenario declares them under setup.agents instead of refusing them."""
    text = SOURCE.read_text().replace('"subagent_type":"Plan"', '"subagent_type":"plugin:review:security"')
    path = tmp_path / "custom.jsonl"
    path.write_text(text)
    result = session_to_scenario(path)
    assert [a.name for a in result.scenario.setup.agents] == ["plugin:review:security"]
    assert "plugin:review:security" in result.yaml


def test_an_event_the_format_refuses_is_kept_as_hidden_input_of_its_size(tmp_path: Path) -> None:
    from ctxviz.importer.draft import draft_session
    from ctxviz.importer.load import load_session
    from ctxviz.importer.paths import PathStyle
    from ctxviz.importer.represent import make_representable
    from ctxviz.kinds import EventKind

    session = load_session(SOURCE).session
    draft = draft_session(session, PathStyle(session.cwd))
    index = next(n for n, e in enumerate(draft.events) if e.kind == EventKind.READ)
    draft.events[index].fields["path"] = "not/among/the/files.py"  # a reference the scenario cannot resolve
    target = draft.events[index].target
    notes = make_representable(draft, "x")
    assert len(notes) == 1 and notes[0].startswith(f"event {index} (read): unknown file")
    stand_in = draft.events[index]
    assert (stand_in.kind, stand_in.fields["visibility"], stand_in.target) == (EventKind.PROMPT, "hidden", target)


def test_a_session_that_opens_with_a_summary_continues_another_and_is_not_a_compaction(tmp_path: Path) -> None:
    summary = (
        b'{"type":"user","isCompactSummary":true,"uuid":"s0","parentUuid":null,'
        b'"message":{"role":"user","content":"This session is being continued from a previous conversation."}}\n'
    )
    rest = b"".join(LINES).replace(b'"parentUuid":null', b'"parentUuid":"s0"', 1)  # the first record follows it
    path = tmp_path / "continued.jsonl"
    path.write_bytes(summary + rest)
    report = fidelity(path)
    assert report.compactions == ()
    assert report.predicted.calls == 0  # nothing to predict: no compaction in this session
