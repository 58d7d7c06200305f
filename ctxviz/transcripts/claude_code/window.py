"""The window a session ran in, decided from the models its calls name (docs/numbers.md, "The window
and its lines")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ctxviz.profiles.claude_code import CLAUDE_CODE
from ctxviz.profiles.windows import model_window, thresholds
from ctxviz.short_forms import undated
from ctxviz.timeline import Thresholds


@dataclass(frozen=True, slots=True)
class SessionWindow:
    model: str
    window: int
    thresholds: Thresholds
    notices: tuple[str, ...]


def session_window(models: Sequence[str], peak: int, *, models_read: bool = False) -> SessionWindow:
    """The model of the latest call sets the window; a measured call above 200k proves a 1M window.
    ``models_read``: ``models`` are only the calls read (not the session's every call)."""
    notices: list[str] = []
    model = models[-1] if models else "unknown"
    counts = Counter(models)
    if len(counts) > 1:
        used = ", ".join(f"{name} ({n} calls)" for name, n in counts.items())
        where = "among the calls read" if models_read else "in this session"
        notices.append(f"several models {where}: {used}; the window follows the last one")
    spec = model_window(CLAUDE_CODE, undated(model))
    window = spec.window
    if peak > window:
        window = CLAUDE_CODE.long_context_window
        notices.append(f"window taken as {window:,}: a call measured {peak:,} tokens (> {spec.window:,})")
    elif not spec.known:
        notices.append(f"model {model!r} is not in the claude-code profile: the {window:,} window is a guess")
    return SessionWindow(model, window, thresholds(CLAUDE_CODE, window, spec.max_output), tuple(notices))
