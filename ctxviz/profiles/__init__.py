"""Agent profiles by name."""

from __future__ import annotations

from ctxviz.profiles.base import ModelSpec, Profile
from ctxviz.profiles.claude_code import CLAUDE_CODE

PROFILES: dict[str, Profile] = {CLAUDE_CODE.name: CLAUDE_CODE}

__all__ = ["PROFILES", "ModelSpec", "Profile"]
