"""What of the agent's rules the importer must know before it replays anything: a tool call's envelope,
the chars over which a tool's output spills to a file and the subagent types it ships with. Everything else it learns by
replaying the scenario. One place, so a change to the profile's shape touches only this module."""

from __future__ import annotations

from typing import Any

from ctxviz.engine import resolve_profile
from ctxviz.profiles import Profile, get_profile
from ctxviz.profiles.versions import at_least
from ctxviz.scenario.model import Scenario

UNLIMITED = 10**12


def profile_of(scenario: Scenario) -> Profile:
    return resolve_profile(scenario)


def tool_call_tokens(profile: Profile) -> int:
    """What the engine adds for a tool call besides its arguments (a read's or a skill's, here)."""
    return profile.tool_call


def spill_limit_chars(profile: Profile, tool: str) -> int | None:
    """Over this many chars, the engine saves ``tool``'s output to a file (None: it never does)."""
    return profile.output.limit(tool)


def builtin_subagent_types(agent: str) -> tuple[str, ...]:
    """The subagent types the agent ships with; any other type a session used was defined by its user."""
    return get_profile(agent).subagents.types


def continuation_rule(agent: str, version: str | None = None) -> tuple[int, int, int | None] | None:
    """(first call over which a session opened as another's continuation, the start-up such a session
    has besides the earlier conversation, what a start-up holds past the prefix read from the prompt
    cache at ``version``), where the agent's profile measured them."""
    numbers = get_profile(agent).numbers
    over = getattr(numbers, "continuation_first_call", None)
    startup = getattr(numbers, "continuation_startup", None)
    uncached = getattr(numbers, "continuation_uncached", None)
    since = getattr(numbers, "continuation_uncached_later_since", None)
    if version and since and at_least(version, since):
        uncached = getattr(numbers, "continuation_uncached_later", uncached)
    return (over, startup, uncached) if over is not None and startup is not None else None


def unchecked(document: dict[str, Any]) -> dict[str, Any]:
    """The document replayed with nothing decided on its size: no automatic compaction, and no request
    refused as too long (what each event adds is all calibration wants to see)."""
    profile = {**document.get("profile", {}), "blocking_buffer": -UNLIMITED}
    return {**document, "autocompact": False, "profile": profile}


def read_tokens_of_file(agent: str, chars: int) -> int | None:
    """What a Read of a whole file of ``chars`` characters sends, by the profile's measured density
    (None: the profile does not say)."""
    density = getattr(get_profile(agent).numbers, "file_chars_per_read_token", None)
    return round(chars / density) if density else None


def read_line_number_tokens(agent: str) -> int:
    """What a Read adds per line (its line numbers), where the profile measured it (0: it did not)."""
    return int(getattr(get_profile(agent).numbers, "read_line_number_tokens", 0))


def media_estimate_tokens(agent: str) -> int:
    """What the agent's own count takes an image or a document for (0: the profile does not say)."""
    return int(getattr(get_profile(agent).numbers, "media_estimate_tokens", 0))
