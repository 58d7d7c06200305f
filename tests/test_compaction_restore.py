"""What Claude Code puts back after a compaction: the order of the files it re-reads, the plan a prompt
carries, and a written file's size as the Read a restore makes of it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from engine_helpers import STARTUP_200K, added, timeline

from ctxviz.importer import session_to_scenario
from ctxviz.importer.fidelity import fidelity_of
from ctxviz.importer.replay import replay
from ctxviz.kinds import BlockKind, EventKind, StepKind

SUMMARY = 4_000
FILES = "files: {a: 100, b: 200, c: 300, d: 400, e: 500, f: 600, g: 700}\n"
ENTIREIO = Path(__file__).parent / "fixtures" / "claude-code" / "entireio-shrunk"


def restored(tl) -> list[tuple[str, int]]:  # noqa: ANN001
    step = next(s for s in tl.steps if s.kind in (StepKind.COMPACT, StepKind.AUTO_COMPACT))
    return [(b.label.removeprefix("Restored "), b.tokens) for b in added(tl, step.index) if b.kind == "restored-file"]


def test_files_edited_in_the_session_come_back_before_files_only_read() -> None:
    """Claude Code's read-file cache stamps a file with its modification time: the file edited first of
    all is still newer than the six read after it, which are ordered by their reads (latest first)."""
    events = "  - edit: a\n" + "".join(f"  - read: {f}\n" for f in "bcdefg") + "  - compact:\n"
    tl = timeline(FILES + "events:\n" + events)
    assert restored(tl) == [("a", 100), ("g", 700), ("f", 600), ("e", 500), ("d", 400)]
    compaction = next(s for s in tl.steps if s.kind == StepKind.COMPACT)
    assert compaction.used == STARTUP_200K + SUMMARY + 100 + 700 + 600 + 500 + 400


def test_a_read_after_an_edit_does_not_make_a_file_newer() -> None:
    """a edited, then b edited, then a read: a's stamp is still its edit's, older than b's."""
    tl = timeline(FILES + "events:\n  - edit: a\n  - edit: b\n  - read: a\n  - read: c\n  - compact:\n")
    assert restored(tl) == [("b", 200), ("a", 100), ("c", 300)]


def _unpacked(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(gzip.decompress((ENTIREIO / f"{name}.jsonl.gz").read_bytes()))
    return path


def test_a_prompt_that_carries_an_accepted_plan_brings_the_plan_back_after_the_compaction(tmp_path: Path) -> None:
    """76-74489fb0a9 (2.1.29) opens with "Implement the following plan:" and records the plan
    (planContent). The prompt's measured share is split between the prompt and its plan by their
    characters as the log has them, and the compaction re-injects the plan at that size."""
    path = _unpacked(tmp_path, "76-74489fb0a9")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    (carrier,) = [r for r in records if r.get("planContent")]
    plan_chars, prompt_chars = len(carrier["planContent"]), len(carrier["message"]["content"])
    assert carrier["message"]["content"].startswith("Implement the following plan:")

    result = session_to_scenario(path)
    kinds = [e.kind for e in result.scenario.events]
    at = kinds.index(EventKind.PLAN)
    prompt, plan = result.scenario.events[at - 1], result.scenario.events[at]
    assert prompt.kind == EventKind.PROMPT
    shared = prompt.prompt.size.tokens + plan.plan.tokens
    assert abs(plan.plan.tokens - shared * plan_chars / prompt_chars) <= 1  # shared by characters

    flat = sum(len(top.flat()) for top in result.draft.events)
    (compaction,) = [s for s in replay(result.scenario, flat).timeline.steps if s.kind == StepKind.AUTO_COMPACT]
    plans = [f for f in compaction.fates if f.kind == BlockKind.PLAN and f.fate == "reinjected"]
    assert [f.tokens for f in plans] == [plan.plan.tokens]


def test_the_first_call_after_that_compaction_within_2_percent(tmp_path: Path) -> None:
    """The same session measured 43,065 at the first call after its compaction (after call 40); without
    its plan the replay came back 1,401 short (3.3%)."""
    result = session_to_scenario(_unpacked(tmp_path, "76-74489fb0a9"))
    (compaction,) = fidelity_of(result, "76-74489fb0a9").compactions
    assert compaction.measured_next == 43_065
    assert compaction.next_error is not None and compaction.next_error <= 2.0


def test_a_written_file_is_sized_as_a_whole_read_of_what_was_written(tmp_path: Path) -> None:
    """A Write records the text it wrote: the file is what a Read of it would send, 2.26 characters a
    token (the profile's measured density, as for an edited file's original), not the Write's share."""
    text = "x" * 4_520
    write_input = {"file_path": "/p/w.go", "content": text}
    usage = {"input_tokens": 20_000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    ask = {"id": "m0", "model": "claude-sonnet-4-6", "role": "assistant", "usage": usage,
           "content": [{"type": "tool_use", "id": "t1", "name": "Write", "input": write_input}]}  # fmt: skip
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "File created successfully at: /p/w.go"}
    done = {**ask, "id": "m1", "usage": {**usage, "input_tokens": 21_200}, "content": [{"type": "text", "text": ""}]}
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "uuid": "a0", "parentUuid": "u0", "message": ask},
        {"type": "user", "uuid": "u1", "parentUuid": "a0", "message": {"role": "user", "content": [result]},
         "toolUseResult": {"type": "create", "filePath": "/p/w.go", "content": text}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": done},
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert session_to_scenario(path, keep_paths=True).draft.files["/p/w.go"] == 2_000  # 4,520 / 2.26
