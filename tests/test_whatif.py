"""``--set`` what-ifs: every key parsed, scoped and applied, and every bad input named clearly."""

from __future__ import annotations

import pytest

from ctxviz.engine import simulate
from ctxviz.errors import InputError
from ctxviz.profiles import get_profile
from ctxviz.scenario.event_model import NoteEvent
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.model import Scenario
from ctxviz.timeline import Timeline
from ctxviz.whatif import SCENARIO_KEYS, Settings, apply, parse_settings, profile_numbers

CLAUDE = get_profile("claude-code").numbers


def tiny() -> Scenario:
    return Scenario.model_validate(
        {
            "name": "Tiny",
            "files": {"a.py": 1000},
            "events": [
                {"prompt": {"text": "fix the bug", "size": 3}},
                {"read": "a.py"},
                {"bash": {"command": "pytest", "output": {"chars": 61_000}}},
                {"parallel": [{"tool": {"name": "WebFetch", "output": 9000}}, {"read": "a.py"}]},
                {"reply": 500},
            ],
        }
    )


def one(text: str) -> Settings:
    return parse_settings([text])


def run(settings: Settings, agent: str = "claude-code", label: str | None = None) -> Timeline:
    scenario, profile = apply(settings, tiny(), agent, label)
    return simulate(scenario, profile=profile)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("window=1m", "window", 1_000_000),
        ("window=200,000", "window", 200_000),
        ("model=claude-sonnet-5", "model", "claude-sonnet-5"),
        ("autocompact=off", "autocompact", False),
        ("autocompact=on", "autocompact", True),
        ("autocompact=500k", "autocompact", 500_000),
        ("autocompact_pct=60", "autocompact_pct", 60.0),
        ("autocompact_pct=72.5%", "autocompact_pct", 72.5),
        ("drop=12", "drop", (12,)),
        ("drop=3,12", "drop", (3, 12)),
        ("output_cap=10k", "output_cap", 10_000),
        ("dedup=sha256", "dedup", True),
        ("dedup=off", "dedup", False),
        ("tool_search=off", "tool_search", False),
        ("tool_search=on", "tool_search", True),
        ("warning_buffer=10k", "warning_buffer", 10_000),
        ("skill_listing_budget_fraction=0.02", "skill_listing_budget_fraction", 0.02),
    ],
)
def test_every_key_parses(text: str, key: str, value: object) -> None:
    (setting,) = one(text).items
    assert (setting.scope, setting.key, setting.value, setting.text) == (None, key, value, text)


def test_the_scenario_keys_are_all_tested() -> None:
    assert set(SCENARIO_KEYS) == {
        "model",
        "window",
        "autocompact",
        "autocompact_pct",
        "drop",
        "output_cap",
        "tool_search",
        "dedup",
    }


def test_dedup_takes_sha256_or_off() -> None:
    with pytest.raises(InputError, match="expected sha256 or off"):
        one("dedup=md5")


def test_a_scope_is_the_part_before_the_first_dot() -> None:
    (setting,) = one("claude-code.autocompact=500k").items
    assert (setting.scope, setting.key, setting.value) == ("claude-code", "autocompact", 500_000)
    (setting,) = one("big.warning_buffer=1k").items
    assert (setting.scope, setting.key, setting.value) == ("big", "warning_buffer", 1_000)


def test_every_profile_number_is_a_key_and_nothing_else_is() -> None:
    numbers = profile_numbers(get_profile("claude-code"))
    assert numbers["tool_call"] is int and numbers["skill_listing_budget_fraction"] is float
    assert "name" not in numbers and "models" not in numbers and "rule_triggers" not in numbers
    for name in numbers:
        assert one(f"{name}=7").items[0].key == name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "windw=1m",
            "unknown setting 'windw'; valid keys: model, window, autocompact, autocompact_pct, drop, output_cap",
        ),
        ("claude-code.windw=1m", "unknown setting 'claude-code.windw'"),
        ("window", "expected KEY=VALUE, got 'window'"),
        ("=3", "expected KEY=VALUE, got '=3'"),
        ("window=big", "bad value in 'window=big': expected a size such as 1800, 4.2k"),
        ("autocompact=sometimes", "bad value in 'autocompact=sometimes': expected on, off or a size"),
        ("autocompact_pct=0", "expected a percentage above 0 and at most 100, got '0'"),
        ("autocompact_pct=101", "expected a percentage above 0 and at most 100, got '101'"),
        ("drop=x", "expected event numbers such as 12 or 3,12 (counted from 0), got 'x'"),
        ("drop=-1", "event numbers count from 0, got '-1'"),
        ("model=", "expected a model name"),
        ("tool_call=lots", "bad value in 'tool_call=lots'"),
        ("skill_listing_budget_fraction=much", "expected a number, got 'much'"),
    ],
)
def test_bad_settings_say_what_is_wrong(text: str, expected: str) -> None:
    with pytest.raises(InputError) as caught:
        one(text)
    assert expected in caught.value.message


def test_window_and_autocompact_reach_the_thresholds() -> None:
    # claude-code: reserve = min(32,000 max output, 20,000) = 20,000; buffer 13,000
    limits = run(one("window=1m")).thresholds
    assert (limits.autocompact, limits.blocking) == (1_000_000 - 20_000 - 13_000, 1_000_000 - 20_000 - 3_000)
    assert run(parse_settings(["window=1m", "autocompact=500k"])).thresholds.autocompact == 500_000 - 20_000 - 13_000
    assert run(one("autocompact=off")).thresholds.autocompact is None
    assert run(one("autocompact_pct=60")).thresholds.autocompact == (200_000 - 20_000) * 60 // 100


def test_model_sets_the_window() -> None:
    assert run(one("model=claude-sonnet-5")).window == 1_000_000


def test_a_profile_number_reaches_the_profile_and_the_run() -> None:
    scenario, profile = apply(one("tool_call=100"), tiny(), "claude-code")
    assert profile.numbers.tool_call == 100 and CLAUDE.tool_call == 60
    timeline = simulate(scenario, profile=profile)
    read = next(s for s in timeline.steps if s.kind == "read")
    assert sum(timeline.block(b).tokens for b in read.added) == 1000 + 100


def test_drop_keeps_the_event_numbers() -> None:
    scenario, _ = apply(one("drop=1"), tiny(), "claude-code")
    assert len(scenario.events) == 5
    assert scenario.events[1] == NoteEvent(note="event 1 (read) left out by the what-if drop=1")


def test_drop_out_of_range_is_bad_input() -> None:
    with pytest.raises(InputError) as caught:
        apply(one("drop=5"), tiny(), "claude-code")
    assert caught.value.message == "drop=5: the scenario has events 0–4, not 5"


def test_output_cap_caps_bash_and_tool_outputs_inside_parallel_too() -> None:
    scenario, _ = apply(one("output_cap=2k"), tiny(), "claude-code")
    assert scenario.events[2].bash.output == Measure.of_tokens(2000)  # type: ignore[union-attr]
    inner = scenario.events[3].parallel  # type: ignore[union-attr]
    assert inner[0].tool.output == Measure.of_tokens(2000)
    assert tiny().events[2].bash.output.chars == 61_000  # type: ignore[union-attr]  # the original is untouched


def test_scoped_settings_apply_to_their_agent_or_label_and_the_most_specific_wins() -> None:
    settings = parse_settings(["window=300k", "claude-code.window=400k", "big.window=1m"])
    assert run(settings).window == 400_000
    assert run(settings, "claude-code", "big").window == 1_000_000
    assert settings.as_json("claude-code", "big") == {"window": 1_000_000}
    assert parse_settings(["drop=1", "drop=3,1"]).as_json("claude-code") == {"drop": [1, 3]}


def test_unknown_agent_is_named() -> None:
    with pytest.raises(InputError) as caught:
        apply(Settings(), tiny(), "nobody")
    assert caught.value.message.startswith("unknown agent 'nobody'; expected one of claude-code")


def test_a_misspelt_setting_or_agent_gets_a_did_you_mean() -> None:
    from click.testing import CliRunner

    from ctxviz.cli import main

    result = CliRunner().invoke(main, ["compare", "mention-myth", "--set", "windw=1m", "--table"])
    assert result.exit_code == 2 and result.output.rstrip().endswith("did you mean `window`?")
    result = CliRunner().invoke(main, ["compare", "mention-myth", "--set", "pi.keep_recnt=1k", "--table"])
    assert result.output.rstrip().endswith("did you mean `keep_recent`?")
    result = CliRunner().invoke(main, ["compare", "mention-myth", "--agents", "claud-code,pi", "--table"])
    assert result.exit_code != 0 and result.output.rstrip().endswith("did you mean `claude-code`?")
