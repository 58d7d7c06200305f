"""What-ifs: ``--set KEY=VALUE`` settings that change a scenario or an agent's profile before a run.

``parse_settings`` turns the command line's strings into ``Settings`` (checking every key and value up
front, so nothing runs on a typo); ``apply`` makes the scenario and the profile one run uses. A setting
may be scoped to one agent or one run label (``claude-code.autocompact=500k``, ``big.window=1m``); the
more specific wins. Pure: no I/O.

Dropping an event replaces it with a narration note rather than deleting it, so every run of a
comparison keeps the same event numbers and still lines up event by event.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ctxviz.engine import resolve_profile
from ctxviz.errors import InputError, did_you_mean
from ctxviz.profiles import AGENT_NAMES, Profile, UnknownAgent, get_profile
from ctxviz.profiles.policies.dedup import deduplicated
from ctxviz.scenario.event_model import BashEvent, Note, NoteEvent, ParallelEvent, ToolEvent, event_kind
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.model import Scenario
from ctxviz.scenario.sizes import parse_tokens


@dataclass(frozen=True, slots=True)
class Setting:
    scope: str | None  # an agent name or a run label; None applies to every run
    key: str
    value: Any  # parsed: an int, a float, a bool, a string, or a tuple of event indices for drop
    text: str  # as the user wrote it, for messages


def _size(value: str) -> int:
    return parse_tokens(value)


def _autocompact(value: str) -> bool | int:
    lowered = value.strip().lower()
    if lowered in ("on", "true", "yes"):
        return True
    if lowered in ("off", "false", "no"):
        return False
    try:
        return parse_tokens(value)
    except ValueError:
        raise ValueError(f"expected on, off or a size such as 500k, got {value!r}") from None


def _percent(value: str) -> float:
    try:
        number = float(value.strip().removesuffix("%"))
    except ValueError:
        raise ValueError(f"expected a percentage above 0 and at most 100, got {value!r}") from None
    if not 0 < number <= 100:
        raise ValueError(f"expected a percentage above 0 and at most 100, got {value!r}")
    return number


def _model(value: str) -> str:
    if not value.strip():
        raise ValueError("expected a model name such as claude-sonnet-4-6")
    return value.strip()


def _events(value: str) -> tuple[int, ...]:
    try:
        indices = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise ValueError(f"expected event numbers such as 12 or 3,12 (counted from 0), got {value!r}") from None
    if any(index < 0 for index in indices):
        raise ValueError(f"event numbers count from 0, got {value!r}")
    return indices


def _on_off(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("on", "off"):
        return lowered == "on"
    raise ValueError(f"expected on or off, got {value!r}")


def _stale_reads(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("drop", "keep"):
        return lowered == "drop"
    raise ValueError(f"expected drop or keep, got {value!r}")


def _dedup(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("sha256", "on"):
        return True
    if lowered == "off":
        return False
    raise ValueError(f"expected sha256 or off, got {value!r}")


# The keys that change the scenario (agent-neutral); any profile number is a key too (see profile_numbers).
SCENARIO_KEYS: dict[str, tuple[Callable[[str], Any], str]] = {
    "model": (_model, "the model (sets the window and the output reserve)"),
    "window": (_size, "the window in tokens, e.g. 1m"),
    "autocompact": (_autocompact, "on, off, or a size capping the window the threshold uses, e.g. 500k"),
    "autocompact_pct": (_percent, "compact at this % of the usable window (can only lower the threshold)"),
    "drop": (_events, "leave out events by number (from 0), e.g. 12 or 3,12"),
    "output_cap": (_size, "cap every bash and tool output at this many tokens, e.g. 10k"),
    "tool_search": (_on_off, "on: every MCP server's tool schemas deferred to tool search; off: loaded up front"),
    "stale_reads": (
        _stale_reads,
        "drop: editing or writing a file takes its earlier reads out of the window; or keep",
    ),
    "dedup": (_dedup, "sha256: a re-read unchanged file, or a tool output, still in the window is not resent; or off"),
}


def profile_numbers(profile: Profile) -> dict[str, type]:
    """Every number of a profile by name, with its type: each one is a ``--set`` key."""
    found: dict[str, type] = {}
    for field in dataclasses.fields(profile.numbers):
        value = getattr(profile.numbers, field.name)
        if isinstance(value, int | float | str) and not isinstance(value, bool):
            found[field.name] = type(value)
    return found


def _all_profile_numbers() -> dict[str, type]:
    found: dict[str, type] = {}
    for name in AGENT_NAMES:
        found.update(profile_numbers(get_profile(name)))
    return found


def valid_keys() -> str:
    """The keys for an error message: the scenario keys, then where the profile numbers are listed."""
    return ", ".join(SCENARIO_KEYS) + ", or any profile number by name (e.g. autocompact_buffer)"


def _parse_profile_number(kind: type, value: str) -> int | float | str:
    if kind is str:  # a version such as 2.1.7
        if not value.strip():
            raise ValueError("expected a value")
        return value.strip()
    if kind is int:
        return parse_tokens(value)
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"expected a number, got {value!r}") from None


def _split_key(key: str, numbers: dict[str, type]) -> tuple[str | None, str]:
    """``window`` → (None, window); ``claude-code.window`` → (claude-code, window)."""
    if key in SCENARIO_KEYS or key in numbers:
        return None, key
    scope, dot, rest = key.partition(".")
    if dot and scope and (rest in SCENARIO_KEYS or rest in numbers):
        return scope, rest
    hint = did_you_mean(rest if dot and scope else key, [*SCENARIO_KEYS, *numbers])
    raise InputError(f"unknown setting {key!r}; valid keys: {valid_keys()} (scope one with AGENT. or LABEL.){hint}")


def parse_setting(text: str, numbers: dict[str, type] | None = None) -> Setting:
    numbers = _all_profile_numbers() if numbers is None else numbers
    key, equals, raw = text.partition("=")
    key = key.strip()
    if not equals or not key:
        raise InputError(f"expected KEY=VALUE, got {text!r}; valid keys: {valid_keys()}")
    scope, name = _split_key(key, numbers)
    parse: Callable[[str], Any]
    if name in SCENARIO_KEYS:
        parse = SCENARIO_KEYS[name][0]
    else:
        kind = numbers[name]

        def parse(value: str) -> int | float | str:
            return _parse_profile_number(kind, value)

    try:
        value = parse(raw)
    except ValueError as error:
        raise InputError(f"bad value in {text!r}: {error}") from None
    return Setting(scope, name, value, text)


@dataclass(frozen=True, slots=True)
class Settings:
    items: tuple[Setting, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.items)

    @property
    def scopes(self) -> frozenset[str]:
        return frozenset(s.scope for s in self.items if s.scope is not None)

    def for_run(self, agent: str, label: str | None = None) -> tuple[Setting, ...]:
        """The settings one run uses, least specific first (so a later one wins): unscoped, the
        agent's, then the label's."""
        unscoped = [s for s in self.items if s.scope is None]
        by_agent = [s for s in self.items if s.scope == agent and s.scope != label]
        by_label = [s for s in self.items if label is not None and s.scope == label]
        return (*unscoped, *by_agent, *by_label)

    def as_json(self, agent: str, label: str | None = None) -> dict[str, Any]:
        """What a run used, by key, with parsed values (``drop`` gathers every event dropped)."""
        result: dict[str, Any] = {}
        for setting in self.for_run(agent, label):
            if setting.key == "drop":
                result["drop"] = sorted({*result.get("drop", ()), *setting.value})
            else:
                result[setting.key] = setting.value
        return result


def parse_settings(texts: Iterable[str]) -> Settings:
    """``["window=1m", "claude-code.autocompact=500k"]`` → Settings. Raises InputError on the first bad one."""
    numbers = _all_profile_numbers()
    return Settings(tuple(parse_setting(text, numbers) for text in texts))


def _capped(event: Any, cap: int) -> Any:
    if isinstance(event, BashEvent) and event.bash.output.tokens > cap:
        return event.model_copy(update={"bash": event.bash.model_copy(update={"output": Measure.of_tokens(cap)})})
    if isinstance(event, ToolEvent) and event.tool.output.tokens > cap:
        return event.model_copy(update={"tool": event.tool.model_copy(update={"output": Measure.of_tokens(cap)})})
    if isinstance(event, ParallelEvent):
        return event.model_copy(update={"parallel": tuple(_capped(inner, cap) for inner in event.parallel)})
    return event


def _dropped(event: Any, index: int, text: str) -> NoteEvent:
    kind = event_kind(event) or "event"
    return NoteEvent(note=Note(text=f"event {index} ({kind}) left out by the what-if {text}"))


def apply(settings: Settings, scenario: Scenario, agent: str, label: str | None = None) -> tuple[Scenario, Profile]:
    """The scenario and profile of one run of ``agent`` under ``settings``. Raises InputError when a
    setting does not fit this scenario or agent (an event number out of range, a number the agent's
    profile does not have)."""
    try:
        numbers = profile_numbers(get_profile(agent))
    except UnknownAgent as error:
        raise InputError(error.message) from None
    overrides: dict[str, Any] = {}
    update: dict[str, Any] = {}
    events = list(scenario.events)
    dedup = stale_reads = False
    for setting in settings.for_run(agent, label):
        if setting.key == "drop":
            for index in setting.value:
                if index >= len(events):
                    raise InputError(
                        f"{setting.text}: the scenario has events 0–{len(events) - 1}, not {index}"
                        if events
                        else f"{setting.text}: the scenario has no events"
                    )
                events[index] = _dropped(events[index], index, setting.text)
        elif setting.key == "output_cap":
            events = [_capped(event, setting.value) for event in events]
        elif setting.key == "dedup":
            dedup = setting.value
        elif setting.key == "stale_reads":
            stale_reads = setting.value
        elif setting.key == "tool_search":
            servers = tuple(server.model_copy(update={"deferred": setting.value}) for server in scenario.setup.mcp)
            update["setup"] = scenario.setup.model_copy(update={"mcp": servers})
        elif setting.key in SCENARIO_KEYS:
            update[setting.key] = setting.value
        elif setting.key in numbers:
            overrides[setting.key] = numbers[setting.key](setting.value)
        else:
            raise InputError(
                f"{setting.text}: the {agent} profile has no number {setting.key!r} (`ctxviz agents {agent}` "
                f"lists its numbers); scope it to the agents that have one: AGENT.{setting.key}=…"
            )
    changed = scenario.model_copy(update={**update, "events": tuple(events)})
    # the scenario's own profile: overrides first, then the what-ifs over them
    profile = resolve_profile(changed, agent).with_overrides(overrides)
    if stale_reads:
        profile = dataclasses.replace(profile, drops_stale_reads=True)
    return changed, deduplicated(profile) if dedup else profile
