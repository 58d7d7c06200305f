"""The audit's findings: repeated content is what the dedup what-if sends as a reference, matched by
digest for every kind of tool output; a finding whose replay sends more says so. Expected figures are
worked out by hand from the scenario's sizes (tokens × calls)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from agent_helpers import scenario

from ctxviz.engine import simulate
from ctxviz.importer import session_to_scenario
from ctxviz.kinds import FindingKind
from ctxviz.report.audit import carried_cost
from ctxviz.report.audit_findings import _Replays, findings
from ctxviz.report.audit_text import audit_renderable

# A call after each event but the compaction (call 1 after event 0, …, call 7 after event 6, call 8 after
# event 8, call 9 after event 9). Digests name the content: d1 twice, d2 twice, d4 twice.
REPEATS = """
agent: claude-code
events:
  - prompt: "find x"
  - grep: {pattern: x, output: 1000, digest: d1}
  - bash: {command: make, output: 800, digest: d2}
  - grep: {pattern: x, output: 1000, digest: d1}
  - bash: {command: make, output: 800, digest: d3}
  - subagent: {type: Explore, returns: 600, digest: d4}
  - subagent: {type: Explore, returns: 600, digest: d4}
  - compact: {focus: x, summary: 500}
  - bash: {command: make, output: 800, digest: d2}
  - prompt: "thanks"
"""


def _repeated(text: str) -> Any:
    replayed = scenario(text)
    found = {f.kind: f for f in findings(replayed, carried_cost(simulate(replayed)))}
    return found.get(FindingKind.REPEATED_CONTENT)


def test_repeated_content_is_what_dedup_sends_as_a_reference_for_every_tool() -> None:
    repeated = _repeated(REPEATS)
    # the second grep (event 3) and the second Explore answer (event 6; Explore adds no footer) are sent as
    # the 49-token reference; the bash of another digest (event 4) is new content, and the third make
    # (event 8) came after the compaction took its first copy out of the window
    assert repeated.items == ('Grep "x" (event 3)', "Explore subagent result (event 6)")
    # what they carried until the compaction: the grep by calls 4-7, the answer by call 7
    assert repeated.tokens == 1_000 * 4 + 600 * 1
    assert repeated.input_tokens_saved == (1_000 - 49) * 4 + (600 - 49) * 1
    assert repeated.what_if == ("--set", "dedup=sha256")


def test_no_finding_when_dedup_sends_nothing_as_a_reference() -> None:
    # the second grep and the second answer with digests of their own: every output is new content
    once = REPEATS.replace(
        "output: 1000, digest: d1}\n  - bash: {command: make, output: 800, digest: d3}",
        "output: 1000, digest: d9}\n  - bash: {command: make, output: 800, digest: d3}",
    )
    once = once.replace("digest: d4}\n  - compact", "digest: d5}\n  - compact")
    assert once.count("d1") == 1 and once.count("d4") == 1
    assert _repeated(once) is None


def _grep_session(path: Path, results: list[str]) -> Path:
    """A Claude Code session: a prompt, then one Grep per result, each answered by a measured call."""
    records: list[dict[str, object]] = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "p" * 400}}
    ]
    parent = "u0"
    for n, text in enumerate(results):
        usage = {"input_tokens": 10_000 + 1_000 * n, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        use = {"type": "tool_use", "id": f"t{n}", "name": "Grep", "input": {"pattern": "needle"}}
        message = {"id": f"m{n}", "model": "claude-opus-4-6", "role": "assistant", "usage": usage, "content": [use]}
        records.append({"type": "assistant", "uuid": f"a{n}", "parentUuid": parent, "message": message})
        content = [{"type": "tool_result", "tool_use_id": f"t{n}", "content": text}]
        records.append({"type": "user", "uuid": f"u{n + 1}", "parentUuid": f"a{n}",
                        "message": {"role": "user", "content": content}})  # fmt: skip
        parent = f"u{n + 1}"
    usage = {"input_tokens": 10_000 + 1_000 * len(results), "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0}  # fmt: skip
    message = {"id": "mz", "model": "claude-opus-4-6", "role": "assistant", "usage": usage, "content": []}
    records.append({"type": "assistant", "uuid": "az", "parentUuid": parent, "message": message})
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_an_imported_grep_carries_the_digest_of_its_result(tmp_path: Path) -> None:
    texts = ["a.py:1: needle\n" * 200, "a.py:1: needle\n" * 200, "b.py:2: needle\n" * 200]
    imported = session_to_scenario(_grep_session(tmp_path / "s.jsonl", texts))
    digests = [event.grep.digest for event in imported.scenario.events if hasattr(event, "grep")]
    # the importer hashes the result as the transcript holds it: each tool_result's content, a JSON string
    assert digests == [hashlib.sha256(json.dumps(text).encode()).hexdigest() for text in texts]
    assert digests[0] == digests[1] != digests[2]


def test_a_what_if_that_changes_nothing_replays_the_same_as_recorded() -> None:
    # the baseline is the same replay with nothing set: a cap over every output changes no call
    session = Path(__file__).parent / "fixtures" / "claude-code" / "entireio-shrunk" / "76-74489fb0a9.jsonl.gz"
    imported = session_to_scenario(session)
    replays = _Replays(imported.scenario, "claude-code", [call.after_event for call in imported.calls])
    assert replays.as_recorded.compactions >= 1
    assert replays.under(["output_cap=10m"]) == replays.as_recorded


def _document(saved: int, compactions: int, calls: tuple[list[int], list[int]]) -> dict[str, Any]:
    finding = {"kind": "large-output", "title": "1 tool output(s) of 5,000+ tokens carried 10+ calls",
               "items": ["Bash make"], "tokens": 50_000, "what_if": ["--set", "output_cap=2k"],
               "input_tokens_saved": saved, "compactions_saved": compactions,
               "compaction_calls": {"as_recorded": calls[0], "what_if": calls[1]}}  # fmt: skip
    return {"session": "s", "file": "s.jsonl", "agent": "claude-code", "model": "m", "measured": True,
            "calls": 200, "input_tokens": 10_000_000, "unaccounted": 0, "categories": {}, "items": [],
            "findings": [finding], "not_replayed": None,
            "cost": {"known": False, "model": "m", "prices": "p"}}  # fmt: skip


def _printed(document: dict[str, Any]) -> str:
    from rich.console import Console

    console = Console(width=400, record=True, color_system=None)
    console.print(audit_renderable(document, 10))
    return console.export_text()


def test_a_finding_whose_replay_sends_more_says_so_plainly() -> None:
    text = _printed(_document(-1_500_000, 0, ([132], [157])))
    assert "Findings, by input tokens saved" not in text  # nothing saves
    assert "Replayed, and they would not have sent fewer input tokens:" in text
    assert ("Saves no input tokens: the what-if sends 1,500,000 more (15.0%); the what-if compacts before "
            "call 157, the as-recorded replay compacts before call 132") in text  # fmt: skip
    assert "Saved: -" not in text


def test_a_finding_that_saves_nothing_and_one_that_saves() -> None:
    text = _printed(_document(0, 0, ([132], [132])))
    assert "Saves no input tokens: both replays send the same." in text
    text = _printed(_document(250_000, 1, ([132, 190], [170])))
    assert "Findings, by input tokens saved" in text and "Replayed, and they would not" not in text
    assert "Saves 250,000 input tokens (2.5%), 1 compaction(s) fewer." in text


def test_the_replay_command_a_codex_finding_names_runs() -> None:
    from click.testing import CliRunner

    from ctxviz.cli import main

    rollout = Path(__file__).parent / "fixtures" / "other-agents" / "codex" / "ccusage-session-alpha.jsonl"
    audit = json.loads(CliRunner().invoke(main, ["audit", str(rollout), "--json"]).output)
    window = next(f for f in audit["findings"] if f["kind"] == "window-choice")
    result = CliRunner().invoke(main, ["compare", str(rollout), *window["what_if"], "--json"])
    assert result.exit_code == 0, result.output
    assert [run["agent"] for run in json.loads(result.output)["runs"]] == ["codex", "codex"]
