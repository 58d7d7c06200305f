"""Scenario errors a newcomer can act on: a suggestion for a misspelt key or event, plain words instead of
the schema's class names, tabs and duplicate keys named as such, a window too small for the reserves."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.errors import InputError
from ctxviz.scenario_file import parse_scenario
from ctxviz.tokens import CharsPerToken

COUNTER = CharsPerToken()


def errors_of(text: str) -> list[str]:
    with pytest.raises(InputError) as caught:
        parse_scenario(text, "s.yaml", counter=COUNTER)
    return caught.value.message.splitlines()


def the_one_error(text: str) -> str:
    """The single error ``text`` has, checked to be counted as one."""
    *errors, count = errors_of(text)
    assert (len(errors), count) == (1, "1 error in s.yaml")
    return errors[0]


def test_a_misspelt_event_gets_the_kind_it_is_closest_to() -> None:
    assert (
        the_one_error("name: t\nfiles: {a.py: 100}\nevents:\n  - raed: a.py\n")
        == "s.yaml:4:5: events[0]: unknown event 'raed'; did you mean `read`?"
    )


def test_a_misspelt_key_gets_the_key_allowed_there() -> None:
    assert the_one_error("name: t\nevnts: []\n") == "s.yaml:2:1: evnts: unknown key 'evnts'; did you mean `events`?"
    lines = errors_of("name: t\nfiles: {a.py: 100}\nevents:\n  - edit: {pth: a.py}\n")
    assert "s.yaml:4:12: events[0].edit.pth: unknown key 'pth'; did you mean `path`?" in lines


def test_type_errors_name_no_schema_classes() -> None:
    lines = errors_of(
        "name: t\nfiles: {a.py: 100}\nsetup:\n  skills: [pdf]\nevents:\n  - edit: [a.py]\n  - prompt: 5\n"
    )
    assert lines == [
        "s.yaml:4:12: setup.skills[0]: expected a mapping with the keys name, description, body, "
        "disable_model_invocation, uses, got 'pdf'",
        "s.yaml:6:5: events[0].edit: expected text or a mapping with the keys path, change, result, file_after, "
        'got ["a.py"]',
        "s.yaml:7:5: events[1].prompt: expected text or a mapping with the keys text, size, visibility, got 5",
        "3 errors in s.yaml",
    ]
    assert not any("instance of" in line or "Spec" in line for line in lines)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("name: t\nevents:\n\t- prompt: hi\n", "s.yaml:3:1"),
        ("name: t\nevents:\n  - prompt: hi\n\t- prompt: x\n", "s.yaml:4:1"),
    ],
)
def test_a_tab_is_named_as_a_tab(text: str, where: str) -> None:
    found = errors_of(text)
    assert f"{where}: a tab character: YAML indents with spaces only; replace it with spaces" in found
    assert (
        "\t- prompt:"
        in found[found.index(f"{where}: a tab character: YAML indents with spaces only; replace it with spaces") + 1]
    )


def test_autocompact_lists_on_and_off_too() -> None:
    assert (
        the_one_error("name: t\nautocompact: maybe\n")
        == "s.yaml:2:1: autocompact: expected on, off, or a size such as 500k, got 'maybe'"
    )


def test_a_duplicate_key_is_an_error_with_both_lines() -> None:
    assert (
        the_one_error("name: t\nfiles:\n  a.py: 100\n  b.py: 5\n  a.py: 200\nevents: []\n")
        == "s.yaml:5:3: duplicate key 'a.py' (first given on line 3)"
    )


def test_a_key_repeated_through_an_alias_is_not_a_duplicate() -> None:
    text = "name: t\nfiles:\n  a.py: &size {tokens: 100}\n  b.py: *size\nevents: [{read: a.py}, {read: b.py}]\n"
    scenario = parse_scenario(text, "s.yaml", counter=COUNTER)
    assert [entry.size.tokens for entry in scenario.files.values()] == [100, 100]


def test_a_window_smaller_than_the_reserves_names_the_minimum() -> None:
    # claude-code on a 200k model: 20,000 summary reserve + 13,000 autocompact buffer = 33,000
    assert the_one_error("name: t\nwindow: 1k\n") == (
        "s.yaml:2:1: window: a 1,000-token window is smaller than the 33,000 tokens claude-code keeps in "
        "reserve; the smallest window it can run is 33,001"
    )
    # with auto-compaction off only the 20,000 reserve and the 3,000 blocking buffer remain
    assert errors_of("name: t\nautocompact: off\nwindow: 10k\n")[0].endswith(
        "smaller than the 23,000 tokens claude-code keeps in reserve; the smallest window it can run is 23,001"
    )
    assert the_one_error("name: t\nautocompact: 10k\n") == (
        "s.yaml:2:1: autocompact: 10,000 is too small: claude-code keeps 33,000 tokens in reserve below it, "
        "so auto-compaction would start at -23,000; the smallest is 33,001"
    )
    assert parse_scenario("name: t\nwindow: 33001\n", "s.yaml", counter=COUNTER).window == 33_001


def test_validate_warns_about_an_unknown_model(tmp_path: Path) -> None:
    unknown, foreign = tmp_path / "unknown.yaml", tmp_path / "foreign.yaml"
    unknown.write_text("name: t\nmodel: claude-foo-9\nevents:\n  - prompt: hi\n", encoding="utf-8")
    foreign.write_text("name: t\nmodel: gpt-9\nevents:\n  - prompt: hi\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["--tokenizer", "chars4", "validate", str(unknown), str(foreign)])
    assert result.exit_code == 0
    assert f"{unknown}: warning: unknown model 'claude-foo-9': assumed a 200,000-token window" in result.stderr
    assert f"{foreign}: warning: claude-code does not run gpt-9: its default model claude-sonnet-4-6 is used" in (
        result.stderr
    )
    assert f"{unknown}: ok — " in result.stdout
