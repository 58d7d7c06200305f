"""Agent profiles by name: ``get_profile("codex")``. Adding an agent is one module and one line here."""

from __future__ import annotations

from ctxviz.profiles import codex, cursor, gemini_cli, grok_build, opencode, paimon, pi
from ctxviz.profiles.base import ModelSpec, Profile
from ctxviz.profiles.claude_code import PROFILE as CLAUDE_CODE_PROFILE

DEFAULT_AGENT = "claude-code"
_ALL = (CLAUDE_CODE_PROFILE, *(m.PROFILE for m in (codex, gemini_cli, opencode, pi, grok_build, cursor, paimon)))
PROFILES: dict[str, Profile] = {profile.name: profile for profile in _ALL}
AGENT_NAMES: tuple[str, ...] = tuple(PROFILES)


class UnknownAgent(ValueError):
    """An agent name no profile has; the message lists the valid names."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown agent {name!r}; expected one of {', '.join(AGENT_NAMES)}")
        self.name = name
        self.message = str(self)


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownAgent(name) from None


__all__ = ["AGENT_NAMES", "DEFAULT_AGENT", "PROFILES", "ModelSpec", "Profile", "UnknownAgent", "get_profile"]
