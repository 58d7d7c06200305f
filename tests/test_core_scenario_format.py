"""The agent-neutral scenario format: @-mentions with ranges and folders, the project tree, instruction
files by name, writes that create files, path globs, and --agent on the command line."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner
from engine_helpers import STARTUP_200K, added, event_steps, scenario, timeline

from ctxviz.cli import main
from ctxviz.engine.globs import matches
from ctxviz.errors import InputError
from ctxviz.scenario.mentions import Mention, parse_mentions


def test_mentions_are_parsed_with_ranges_and_folders() -> None:
    text = "see @a.py, @b.py:10-20 and @c.ts#12-18 or @d.ts#L7 in @src/ (mail me@example.com)"
    assert parse_mentions(text) == (
        Mention("a.py"),
        Mention("b.py", 10, 20),
        Mention("c.ts", 12, 18),
        Mention("d.ts", 7),
        Mention("src/"),
    )
    assert Mention("d.ts", 7).lines == (7, 7)
    assert Mention("src/").is_directory
    assert scenario("events:\n  - prompt: 'fix @a.py:3-4'\n").events[0].prompt.mentions == (Mention("a.py", 3, 4),)


def test_mention_of_a_line_range_reads_those_lines() -> None:
    # lines 11–20 of a 100-line, 1,000-token file: a tenth of it, 100 tokens
    tl = timeline(
        "files: {a.py: {tokens: 1000, lines: 100}}\nevents:\n  - prompt: {text: 'look at @a.py:11-20', size: 6}\n"
    )
    prompt = event_steps(tl)[0]
    assert [(b.kind, b.label, b.tokens) for b in added(tl, prompt.index)] == [
        ("prompt", "look at @a.py:11-20", 6),
        ("file-read", "@a.py:11-20", 100),
    ]


def test_mention_of_a_folder_is_a_listing() -> None:
    # src/ holds a.py, b.py and the folder sub/: 3 entries; 60 for the ls call + 3 × 10
    tl = timeline(
        "files: {src/a.py: 10, src/b.py: 10, src/sub/c.py: 10, README.md: 10}\n"
        "events:\n  - prompt: {text: 'what is in @src/', size: 5}\n"
    )
    prompt = event_steps(tl)[0]
    assert [(b.kind, b.tokens) for b in added(tl, prompt.index)] == [("prompt", 5), ("tool-output", 90)]
    assert prompt.used == STARTUP_200K + 5 + 90


def test_tree_size_derived_or_given() -> None:
    derived = scenario("files: {src/a/b.py: 10, src/c.py: 10, README.md: 10}\n")
    assert derived.tree_size() == (3, 2)  # folders src and src/a
    given = scenario("files: {src/c.py: 10}\ntree: {files: 500, dirs: 40}\n")
    assert given.tree_size() == (500, 40)


def test_instruction_files_by_name() -> None:
    # Claude Code reads CLAUDE.md, not GEMINI.md; a plain file listed as memory still loads
    tl = timeline("setup: {memory: {CLAUDE.md: 100, GEMINI.md: 200, docs/team.md: 30}}\n")
    memory = [b.label for b in tl.blocks if b.kind == "memory-file"]
    assert memory == ["CLAUDE.md", "docs/team.md"]
    assert tl.breakdown_at(tl.last)["Memory files"] == 130
    assert "GEMINI.md not loaded: this agent does not read GEMINI.md" in [n for s in tl.steps for n in s.notes]


def test_write_creates_a_new_file_that_later_events_read() -> None:
    tl = timeline("events:\n  - write: {path: new.py, content: 300}\n  - read: new.py\n")
    write, read = event_steps(tl)
    assert [(b.kind, b.tokens) for b in added(tl, write.index)] == [("edit", 60 + 300), ("tool-output", 40)]
    assert write.notes == ("new.py is a new file: the write creates it",)
    assert [(b.kind, b.tokens) for b in added(tl, read.index)] == [("tool-call", 60), ("file-read", 300)]


def test_write_of_an_unknown_file_needs_content() -> None:
    with pytest.raises(InputError) as raised:
        scenario("events:\n  - write: new.py\n")
    assert "events[0].write: 'new.py' is not under files: a write that creates it needs content:" in str(raised.value)


def test_character_class_glob() -> None:
    # the old matcher escaped [ab] and matched only the literal name "src/[ab].ts"
    assert matches("src/[ab].ts", "src/a.ts")
    assert not matches("src/[ab].ts", "src/c.ts")
    assert not matches("src/[ab].ts", "src/[ab].ts")
    assert matches("src/**/*.{ts,tsx}", "src/x/y.tsx")
    assert matches("*.md", "docs/deep/a.md")
    assert matches("/src/*.ts", "src/a.ts") and not matches("src/*.ts", "src/x/a.ts")


def test_rule_with_a_character_class_loads() -> None:
    tl = timeline(
        "setup: {rules: {.claude/rules/ab.md: {tokens: 380, paths: ['src/[ab].ts']}}}\n"
        "files: {src/a.ts: 100, src/c.ts: 100}\nevents:\n  - read: src/c.ts\n  - read: src/a.ts\n"
    )
    first, second = event_steps(tl)
    assert [b.kind for b in added(tl, first.index)] == ["tool-call", "file-read"]
    assert [(b.kind, b.tokens) for b in added(tl, second.index)] == [
        ("tool-call", 60),
        ("file-read", 100),
        ("rule", 380),
    ]


def test_agent_option() -> None:
    runner = CliRunner()
    ok = runner.invoke(
        main, ["--tokenizer", "chars4", "run", "explore-context-window", "--json", "--agent", "claude-code"]
    )
    assert ok.exit_code == 0, ok.output
    assert '"agent":"claude-code"' in ok.output
    bad = runner.invoke(main, ["run", "explore-context-window", "--agent", "emacs"])
    assert bad.exit_code == 2
    assert "unknown agent 'emacs'; expected one of claude-code" in bad.output
    assert runner.invoke(main, ["play", "x.yaml", "--agent", "emacs"]).exit_code == 2


def test_tokenizer_loads_only_when_text_needs_counting(tmp_path) -> None:  # noqa: ANN001 - pytest fixture
    sized = tmp_path / "sized.yaml"
    sized.write_text("name: t\nevents:\n  - prompt: {text: hello, size: 3}\n  - reply: 10\n")
    counted = tmp_path / "counted.yaml"
    counted.write_text("name: t\nevents:\n  - prompt: hello\n")
    code = (
        "import sys\n"
        "from ctxviz.sources import open_timeline\n"
        "for path in sys.argv[1:]:\n"
        "    tl = open_timeline(path)\n"
        "    print(tl.used_at(tl.last), 'tiktoken' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(sized), str(counted)], capture_output=True, text=True, timeout=60, check=True
    )
    # 17,980 at startup; + 3 + 10 without counting anything; "hello" is one cl100k token
    assert result.stdout.split("\n")[:2] == [f"{STARTUP_200K + 13} False", f"{STARTUP_200K + 1} True"]
