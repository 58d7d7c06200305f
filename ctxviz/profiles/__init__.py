"""Agent profiles by name: ``get_profile("codex")``. Adding an agent is one module, its name in ``kinds.AgentName``
and one line here."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from importlib import import_module

from ctxviz.errors import did_you_mean
from ctxviz.kinds import DEFAULT_AGENT as DEFAULT_AGENT  # the agent a scenario runs under when it names none
from ctxviz.kinds import AgentName
from ctxviz.profiles.base import ModelSpec, Profile
from ctxviz.profiles.teaching import Teaching

# name → the module (under ctxviz.profiles) whose PROFILE it is, in the order agents are listed
_MODULES: dict[str, str] = {
    AgentName.CLAUDE_CODE: "claude_code",
    AgentName.CODEX: "codex",
    AgentName.GEMINI_CLI: "gemini_cli",
    AgentName.OPENCODE: "opencode",
    AgentName.PI: "pi",
    AgentName.GROK_BUILD: "grok_build",
    AgentName.CURSOR: "cursor",
    AgentName.PAIMON: "paimon",
}


class _Profiles(MutableMapping[str, Profile]):
    """A dict of profiles whose modules are imported on first access: a run needs one profile, and
    importing all eight cost about 30 ms of every command (half the time `ctxviz run` spent importing
    profiles). Iterating the names imports nothing; ``values()`` imports them all."""

    def __init__(self, modules: dict[str, str]) -> None:
        self._entries: dict[str, Profile | str] = dict(modules)  # a str: the module, not imported yet

    def __getitem__(self, name: str) -> Profile:
        entry = self._entries[name]
        if not isinstance(entry, str):
            return entry
        profile: Profile = import_module(f"{__name__}.{entry}").PROFILE
        if profile.name != name:
            raise ValueError(f"ctxviz.profiles.{entry} defines {profile.name!r}, listed as {name!r}")
        self._entries[name] = profile
        return profile

    def __setitem__(self, name: str, profile: Profile) -> None:
        self._entries[name] = profile

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"PROFILES({', '.join(self._entries)})"


PROFILES: MutableMapping[str, Profile] = _Profiles(_MODULES)
AGENT_NAMES: tuple[str, ...] = tuple(PROFILES)


class UnknownAgent(ValueError):
    """An agent name no profile has; the message lists the valid names."""

    def __init__(self, name: str) -> None:
        hint = did_you_mean(name, AGENT_NAMES)
        super().__init__(f"unknown agent {name!r}; expected one of {', '.join(AGENT_NAMES)}{hint}")
        self.name = name
        self.message = str(self)


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownAgent(name) from None


def recorded_rules_of(agent: str) -> object | None:
    """The rules ``fidelity`` replays the agent's recorded calls under: its profile module's ``RECORDED_RULES``
    (None: it has none, or no profile is named so)."""
    module = _MODULES.get(agent)
    return None if module is None else getattr(import_module(f"{__name__}.{module}"), "RECORDED_RULES", None)


def teaching_of(agent: str) -> Teaching:
    """How the agent of a timeline explains itself; a name no profile has gets the plain words."""
    return PROFILES[agent].teaching if agent in PROFILES else Teaching()


__all__ = [
    "AGENT_NAMES",
    "DEFAULT_AGENT",
    "PROFILES",
    "ModelSpec",
    "Profile",
    "UnknownAgent",
    "get_profile",
    "recorded_rules_of",
    "teaching_of",
]
