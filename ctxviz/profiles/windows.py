"""A model's window and the thresholds derived from it, as two functions over a profile (or over the
claude-code numbers), for callers that hold one: the transcript readers and the live view. The rules
themselves are the profile's: ``Profile.model_window`` and its threshold policy."""

from __future__ import annotations

from ctxviz.profiles.base import ModelWindow, Profile
from ctxviz.profiles.claude_code import CLAUDE_CODE, PROFILE, ClaudeCodeNumbers, build
from ctxviz.timeline import Thresholds


def _profile(profile: Profile | ClaudeCodeNumbers) -> Profile:
    if isinstance(profile, Profile):
        return profile
    return PROFILE if profile is CLAUDE_CODE else build(profile)


def model_window(profile: Profile | ClaudeCodeNumbers, model: str | None, window: int | None = None) -> ModelWindow:
    """The window of ``model`` as recorded (a model the agent does not list gets its unknown-model window)."""
    return _profile(profile).model_window(model, window, foreign=False)


def thresholds(
    profile: Profile | ClaudeCodeNumbers,
    window: int,
    max_output: int,
    autocompact: bool | int = True,
    autocompact_pct: float | None = None,
) -> Thresholds:
    return _profile(profile).thresholds.thresholds(window, max_output, autocompact, autocompact_pct)
