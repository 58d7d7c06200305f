"""What Claude Code puts back after a compaction: the plan a prompt carries when it starts work on a plan
accepted in plan mode."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from ctxviz.importer import session_to_scenario
from ctxviz.importer.fidelity import fidelity_of
from ctxviz.importer.replay import replay
from ctxviz.kinds import BlockKind, EventKind, StepKind

ENTIREIO = Path(__file__).parent / "fixtures" / "claude-code" / "entireio-shrunk"


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
