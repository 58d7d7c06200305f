"""§1 of MECHANICS.md: a model's window and the thresholds derived from it. Pure arithmetic, shared by
the engine and the transcript reader."""

from __future__ import annotations

from dataclasses import dataclass

from ctxviz.profiles.base import ModelSpec, Profile
from ctxviz.timeline import AUTOCOMPACT_BUFFER, COMPACT_BUFFER, Thresholds

LONG_CONTEXT_SUFFIX = "[1m]"


@dataclass(frozen=True, slots=True)
class ModelWindow:
    model: str
    window: int
    max_output: int
    known: bool  # False: the model is not in the profile and the window is a guess


def model_window(profile: Profile, model: str, window: int | None = None) -> ModelWindow:
    """The model's window (``window`` overrides it) and default max output."""
    base = model.removesuffix(LONG_CONTEXT_SUFFIX)
    spec: ModelSpec | None = profile.models.get(base)
    known = spec is not None
    if spec is None:
        spec = profile.unknown_model
    chosen = window or (profile.long_context_window if model.endswith(LONG_CONTEXT_SUFFIX) else spec.window)
    return ModelWindow(model, chosen, spec.max_output, known)


def thresholds(
    profile: Profile,
    window: int,
    max_output: int,
    autocompact: bool | int = True,
    autocompact_pct: float | None = None,
) -> Thresholds:
    """Thresholds as autoCompact.ts computes them. ``autocompact`` is on/off or a size capping the window
    used for the threshold (``/autocompact 500k``); ``autocompact_pct`` can only lower the threshold."""
    reserve = min(max_output, profile.summary_reserve_cap)
    effective = window - reserve
    blocking = effective - profile.blocking_buffer
    if autocompact is False:
        return Thresholds(
            autocompact=None,
            warning=effective - profile.warning_buffer,
            blocking=blocking,
            buffer=profile.blocking_buffer,
            buffer_label=COMPACT_BUFFER,
        )
    capped_window = window if autocompact is True else min(window, autocompact)
    capped_effective = capped_window - reserve
    threshold = capped_effective - profile.autocompact_buffer
    if autocompact_pct is not None:
        threshold = min(int(capped_effective * autocompact_pct // 100), threshold)
    return Thresholds(
        autocompact=threshold,
        warning=threshold - profile.warning_buffer,
        blocking=blocking,
        buffer=window - threshold,
        buffer_label=AUTOCOMPACT_BUFFER,
    )
