"""Bad scenario input: located errors, all at once, never a traceback; hostile YAML refused fast."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ctxviz.errors import InputError
from ctxviz.scenario.sizes import Measure
from ctxviz.scenario.yaml_source import YamlLimits
from ctxviz.scenario_file import load_scenario, parse_scenario
from ctxviz.tokens import CharsPerToken

COUNTER = CharsPerToken()


def errors_of(text: str, **kwargs: object) -> list[str]:
    with pytest.raises(InputError) as caught:
        parse_scenario(text, "s.yaml", counter=COUNTER, **kwargs)  # type: ignore[arg-type]
    return caught.value.message.splitlines()


def test_every_error_is_located_and_reported_at_once() -> None:
    lines = errors_of("name: t\nevents:\n  - reply: -5\n  - bash: {command: ls, bogus: 1}\n  - flop: 3\n")
    assert lines == [
        "s.yaml:3:5: events[0].reply: a size cannot be negative (got -5)",
        "s.yaml:4:25: events[1].bash.bogus: unknown key 'bogus'; allowed here: command, output, background, "
        "finishes_after, digest",
        "s.yaml:5:5: events[2]: no event kind among the keys 'flop'; an event is a mapping with one of: prompt, "
        "reply, read, edit, write, grep, glob, bash, tool, subagent, skill, plan, compact, clear, parallel, note",
        "3 errors in s.yaml",
    ]


def test_unknown_files_skills_and_agents_are_named_with_what_exists() -> None:
    lines = errors_of(
        "name: t\n"
        "setup: {skills: [{name: pdf}]}\n"
        "files: {a.py: 100}\n"
        "events:\n"
        "  - read: b.py\n"
        "  - skill: pdf2\n"
        "  - subagent: {type: reviewer, reads: [c.py]}\n"
    )
    assert lines[0] == "s.yaml:5:5: events[0].read: unknown file 'b.py'; expected one listed under files (a.py)"
    assert lines[1] == "s.yaml:6:5: events[1].skill: unknown skill 'pdf2'; expected one listed under setup.skills (pdf)"
    assert lines[2].startswith("s.yaml:7:16: events[2].subagent.type: unknown subagent type 'reviewer'")
    assert lines[3].startswith("s.yaml:7:40: events[2].subagent.reads[0]: unknown file 'c.py'")
    assert lines[-1] == "4 errors in s.yaml"


def test_schema_and_reference_errors_come_together() -> None:
    lines = errors_of(
        "name: t\n"
        "files: {a.py: 100}\n"
        "events:\n"
        "  - read: b.py\n"
        "  - reply: lots\n"
        "  - parallel: [{read: a.py}, {reply: 5}]\n"
    )
    assert lines == [
        "s.yaml:4:5: events[0].read: unknown file 'b.py'; expected one listed under files (a.py)",
        "s.yaml:5:5: events[1].reply: expected a size such as 1800, 4.2k or {tokens: N}, got 'lots'",
        "s.yaml:6:30: events[2].parallel[1]: only tool calls can run in parallel (read, edit, write, grep, glob, "
        "bash, tool, subagent, skill), not reply",
        "3 errors in s.yaml",
    ]


def test_profile_overrides_are_checked() -> None:
    lines = errors_of("name: t\nprofile: {read_max_lines: many, no_such_rule: 3}\n")
    assert lines == [
        "s.yaml:2:11: profile.read_max_lines: Input should be a valid integer, unable to parse string as an integer",
        "s.yaml:2:33: profile.no_such_rule: unknown profile parameter 'no_such_rule'; see `ctxviz schema`",
        "2 errors in s.yaml",
    ]


def test_syntax_error_has_line_and_column() -> None:
    lines = errors_of("name: t\nevents:\n  - read: [unclosed\n")
    # at the bracket left open, in plain words, the line shown with a caret under the column
    assert lines == [
        "s.yaml:3:11: a list in brackets [ ] is not closed, or lacks a ','",
        "    3 |   - read: [unclosed",
        "                  ^",
        "1 error in s.yaml (the rest of the file was checked without line 3)",
    ]


def test_a_syntax_error_leaves_the_files_other_problems_listed() -> None:
    lines = errors_of("name: t\nevents:\n  - prompt: hi\n   - reply: 100\n  - read: nothere.py\n")
    assert lines[0] == "s.yaml:4:4: this line is indented differently from the list items above it"
    assert "s.yaml:5:5: events[1].read: unknown file 'nothere.py'; expected one listed under files" in lines
    assert lines[-1] == "2 errors in s.yaml (the rest of the file was checked without line 4)"
    assert not any("did not find expected" in line for line in lines)


@pytest.mark.parametrize("anchor", ["", "&a "])  # the quick walk (no anchors) and the full one
def test_a_value_its_tag_cannot_hold_is_located_not_a_traceback(anchor: str) -> None:
    assert errors_of(f"name: t\nsummary: {anchor}2001-13-45\nevents: []\n") == [
        "s.yaml:2:10: not a valid timestamp: '2001-13-45' (month must be in 1..12)"
    ]
    [line] = errors_of(f"name: t\nwindow: {anchor}!!int 12x\nevents: []\n")
    assert line.startswith("s.yaml:2:9: not a valid int: '12x'")


def test_top_level_must_be_a_mapping() -> None:
    assert errors_of("- just\n- a list\n") == ["s.yaml:1:1: expected a mapping with at least `name:` and `events:`"]


def test_alias_bomb_is_refused_in_well_under_a_second() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for n in range(1, 12):
        previous = chr(ord("a") + n - 1)
        name = chr(ord("a") + n)
        bomb += f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]\n"
    bomb += "name: t\n"
    started = time.perf_counter()
    [line] = errors_of(bomb)
    assert time.perf_counter() - started < 0.5
    assert "more than 10,000 values repeated through aliases; refused" in line


def test_deep_nesting_is_refused() -> None:
    [line] = errors_of("name: t\nx: " + "[" * 100 + "]" * 100 + "\n")
    assert "nested deeper than 64 levels" in line


def test_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    assert YamlLimits().max_bytes == 16_000_000
    big = tmp_path / "big.yaml"
    big.write_text("name: t\n" + "# padding\n" * 300)
    with pytest.raises(InputError, match="3,008 bytes is larger than the 1,000 a scenario may be"):
        load_scenario(big, counter=COUNTER, limits=YamlLimits(max_bytes=1_000))


def test_file_sizes_stay_inside_the_scenario_folder(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    (tmp_path / "secret.txt").write_text("x" * 400)
    (tmp_path / "inside" / "notes.md").write_text("y" * 80)
    scenario = tmp_path / "inside" / "s.yaml"
    scenario.write_text("name: t\nfiles:\n  a: {file: notes.md}\n  b: {file: ../secret.txt}\n")
    with pytest.raises(InputError) as caught:
        load_scenario(scenario, counter=COUNTER)
    assert "files.b: '../secret.txt' is outside the scenario's folder" in caught.value.message
    assert "pass --allow-outside" in caught.value.message
    loaded = load_scenario(scenario, counter=COUNTER, allow_outside=True)
    assert loaded.files["a"].size.tokens == 80 // 4
    assert loaded.files["b"].size.tokens == 400 // 4


def test_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read the scenario: No such file"):
        load_scenario(tmp_path / "nope.yaml", counter=COUNTER)
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"name: \xff\xfe\x00")
    with pytest.raises(InputError, match="not UTF-8 text"):
        load_scenario(binary, counter=COUNTER)


@pytest.mark.parametrize(
    ("written", "tokens", "chars", "lines"),
    [
        ("1800", 1_800, 7_200, 180),
        ("4.2k", 4_200, 16_800, 420),
        ("'1,800'", 1_800, 7_200, 180),
        ("1m", 1_000_000, 4_000_000, 100_000),
        ("{tokens: 380}", 380, 1_520, 38),
        ("{chars: 61000}", 15_250, 61_000, 1_525),
        ("{lines: 300}", 3_000, 12_000, 300),
        ("{text: 'abcdefgh'}", 2, 8, 1),
        ("{tokens: 27000, lines: 900}", 27_000, 108_000, 900),
    ],
)
def test_size_forms(written: str, tokens: int, chars: int, lines: int) -> None:
    scenario = parse_scenario(f"name: t\nfiles:\n  a: {written}\n", "s.yaml", counter=COUNTER)
    size: Measure = scenario.files["a"].size
    assert (size.tokens, size.chars, size.lines) == (tokens, chars, lines)


def test_memory_html_block_comments_are_stripped() -> None:
    text = "keep this\\n<!-- maintainers only:\\n a long note -->\\nand this\\n"
    scenario = parse_scenario(
        f'name: t\nsetup:\n  memory:\n    CLAUDE.md: {{text: "{text}"}}\n', "s.yaml", counter=COUNTER
    )
    memory = scenario.setup.memory["CLAUDE.md"]
    assert memory.memory_size.tokens == len("keep this\nand this\n") // 4 + 1
    assert memory.size.tokens > memory.memory_size.tokens  # a Read of the file would still see the comment


@pytest.mark.parametrize(
    "text",
    [
        "n: [1, 0, 007, 1_000, -3, 0x1F, 1.5, .inf, ~, 'q', yes, No, 2001-12-14, !!str 3, !!binary aGVsbG8=]\n",
        "2: a\ntrue: b\n~: c\n2001-12-14: d\n!!str 5: e\n",
        "a: {b: [{c: [[], {}]}, x]}\nd: {e: 1}\nf: !!str g\n",
        "b: {<<: {x: 1}, y: 2}\n",
        "a: &a {x: 1, y: 2}\nb: &b {y: 3, z: 4}\nc: {<<: [*a, *b], w: 5}\nd: {<<: *b, z: 6}\ne: [*a, *a]\n",
        "- a\n- ! 1\n- !!int '7'\n- '='\n",
    ],
)
def test_the_data_is_what_pyyaml_reads(text: str) -> None:
    """Built from the parser's events in one pass, the data is what PyYAML's safe loader reads."""
    import yaml

    from ctxviz.scenario.yaml_source import parse_yaml

    def keys_as_text(data: object) -> object:  # as a scenario reads them: every key a string
        if isinstance(data, dict):
            return {str(key): keys_as_text(value) for key, value in data.items()}
        return [keys_as_text(item) for item in data] if isinstance(data, list) else data

    assert repr(parse_yaml(text).data) == repr(keys_as_text(yaml.safe_load(text)))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("name: t\nb: {x: 1, x: 2}\n", "s.yaml:2:11: duplicate key 'x' (first given on line 2)"),
        ("name: t\nb: {<<: 5}\n", "s.yaml:2:9: a merge key (<<) takes a mapping or a list of mappings"),
        ("name: t\na: !!python/name:os.system x\n", "s.yaml:2:4: unsupported YAML tag"),
        ("name: t\n? [a]\n: 1\n", "s.yaml:2:3: a key must be a scalar"),
        ("name: t\na: &a [*a]\n", "s.yaml:2:8: an alias (*a) inside the value it names; refused"),
    ],
)
def test_what_the_data_cannot_be_is_located(text: str, said: str) -> None:
    assert any(line.startswith(said) for line in errors_of(text)), errors_of(text)


def test_a_merge_key_may_be_overridden_without_a_duplicate() -> None:
    """``<<: *base`` then a key of the base again is YAML's way to override one value, not a duplicate."""
    text = "name: t\nfiles:\n  base: &b {tokens: 100}\n  a: {<<: *b, tokens: 200}\nevents: []\n"
    assert parse_scenario(text, "s.yaml", counter=COUNTER).files["a"].size.tokens == 200
