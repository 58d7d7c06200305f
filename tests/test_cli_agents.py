"""``ctxviz agents``: every profile with its default model, window, thresholds and each number's source and
confidence, as a table and as stable JSON."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.cli.agent_commands import FORMAT
from ctxviz.profiles import AGENT_NAMES


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.stdout + result.stderr


def document() -> dict:
    code, out = invoke("agents", "--json")
    assert code == 0
    return json.loads(out)


def test_json_lists_every_profile_with_its_window_and_trigger():
    doc = document()
    assert doc["format"] == FORMAT == "ctxviz.agents/1"
    rows = {a["name"]: a for a in doc["agents"]}
    assert tuple(rows) == AGENT_NAMES
    expected = {
        "claude-code": ("claude-sonnet-4-6", 200_000, 167_000),
        "codex": ("gpt-5.4", 272_000, 244_800),
        "gemini-cli": ("gemini-2.5-pro", 1_048_576, 524_288),
        "opencode": ("claude-sonnet-4-6", 200_000, 148_000),
        "pi": ("claude-sonnet-4-6", 200_000, 183_616),
        "grok-build": ("grok-code-fast-1", 256_000, 217_600),
        "cursor": ("claude-sonnet-4-6", 200_000, 180_000),
        "paimon": ("claude-sonnet-4-6", 200_000, 167_000),
    }
    got = {n: (a["default_model"], a["window"], a["thresholds"]["autocompact"]) for n, a in rows.items()}
    assert got == expected
    assert rows["pi"]["subagents"] == [] and rows["cursor"]["subagents"] == []


def test_every_number_says_where_it_comes_from():
    for agent in document()["agents"]:
        assert agent["numbers"], agent["name"]
        for number in agent["numbers"]:
            assert number["confidence"] in ("documented", "source", "measured", "assumed"), (agent["name"], number)
            assert number["source"].strip(), (agent["name"], number["name"])
        assert agent["assumed"] == sum(1 for n in agent["numbers"] if n["confidence"] == "assumed")


def test_known_numbers_carry_their_commit_and_guesses_say_assumed():
    rows = {a["name"]: {n["name"]: n for n in a["numbers"]} for a in document()["agents"]}
    codex = rows["codex"]["instructions_max_bytes"]
    assert (codex["value"], codex["confidence"]) == (32_768, "source")
    assert "project_doc.rs @0bd53e45" in codex["source"]
    assert rows["grok-build"]["mention_gate"]["value"] == 5_000
    assert rows["opencode"]["prune_protect"]["value"] == 40_000
    assert rows["pi"]["keep_recent"]["value"] == 20_000
    assert rows["gemini-cli"]["tree_max_items"]["value"] == 200
    # Cursor is closed source: all its numbers are assumptions except the documented example window
    cursor = rows["cursor"]
    assert {n for n, v in cursor.items() if v["confidence"] != "assumed"} == {"window"}
    assert rows["paimon"]["head_lines"]["confidence"] == "assumed"


def test_the_json_is_stable():
    assert invoke("agents", "--json") == invoke("agents", "--json")


def test_table_for_people():
    code, out = invoke("agents")
    assert code == 0
    for name in AGENT_NAMES:
        assert name in out
    assert "244,800" in out and "524,288" in out
    assert "assumed" in out and "project_doc.rs" in out
    code, short = invoke("agents", "--no-numbers")
    assert code == 0 and "project_doc.rs" not in short and "183,616" in short


def test_one_agent_by_name_and_an_unknown_one():
    code, out = invoke("agents", "pi", "--json")
    assert code == 0
    assert [a["name"] for a in json.loads(out)["agents"]] == ["pi"]
    code, out = invoke("agents", "aider")
    assert code == 2  # a usage error, as an unknown --agent is everywhere
    assert "unknown agent 'aider'" in out and "grok-build" in out
