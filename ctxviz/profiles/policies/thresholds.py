"""Where auto-compaction triggers: pure arithmetic from the window, shared by the engine and the readers."""

from __future__ import annotations

from dataclasses import dataclass

from ctxviz.timeline import AUTOCOMPACT_BUFFER, COMPACT_BUFFER, Thresholds


@dataclass(frozen=True, slots=True)
class ReserveAndBuffer:
    """The trigger sits below the window by a reserve for the summary (min(max output, reserve cap)) and
    a buffer: Claude Code's autoCompact.ts. Warning is a further buffer below it; with auto-compaction
    off, requests fail above the effective window minus the blocking buffer. No cap (None): the whole
    max output is reserved, as Claude Code did before 2.1.21."""

    summary_reserve_cap: int | None
    autocompact_buffer: int
    warning_buffer: int
    blocking_buffer: int
    # Claude Code checks its own count (the last usage plus chars/4 of what came after), so an event's
    # count_gap applies; the other rules here compare the exact size
    checks_own_count: bool = True

    def thresholds(
        self, window: int, max_output: int, autocompact: bool | int = True, autocompact_pct: float | None = None
    ) -> Thresholds:
        reserve = max_output if self.summary_reserve_cap is None else min(max_output, self.summary_reserve_cap)
        effective = window - reserve
        blocking = effective - self.blocking_buffer
        if autocompact is False:
            return Thresholds(
                autocompact=None,
                warning=effective - self.warning_buffer,
                blocking=blocking,
                buffer=self.blocking_buffer,
                buffer_label=COMPACT_BUFFER,
            )
        capped_window = window if autocompact is True else min(window, autocompact)
        capped_effective = capped_window - reserve
        threshold = capped_effective - self.autocompact_buffer
        if autocompact_pct is not None:
            threshold = min(int(capped_effective * autocompact_pct // 100), threshold)
        return Thresholds(
            autocompact=threshold,
            warning=threshold - self.warning_buffer,
            blocking=blocking,
            buffer=window - threshold,
            buffer_label=AUTOCOMPACT_BUFFER,
        )

    def formula(self) -> str:
        reserve = "max output" if self.summary_reserve_cap is None else f"min(max output, {self.summary_reserve_cap:,})"
        return f"window − {reserve} − {self.autocompact_buffer:,}; warning {self.warning_buffer:,} below"


@dataclass(frozen=True, slots=True)
class FractionOfWindow:
    """The trigger at a fraction of the window (Codex 90%, gemini-cli 50%, grok-build 85%); the warning
    ``warning_below`` tokens under it; requests fail above the window minus ``blocking_buffer``, or above
    ``blocking_percent`` of the window where the agent gives it as a share."""

    fraction: float
    warning_below: int
    blocking_buffer: int = 0
    blocking_percent: int | None = None  # requests fail above this share of each model's window (Codex 95%)
    checks_own_count: bool = False  # the agent decides from its own count: an event's count_gap applies

    def thresholds(
        self, window: int, max_output: int, autocompact: bool | int = True, autocompact_pct: float | None = None
    ) -> Thresholds:
        buffer = (
            self.blocking_buffer if self.blocking_percent is None else window * (100 - self.blocking_percent) // 100
        )
        blocking = window - buffer
        if autocompact is False:
            return Thresholds(None, blocking - self.warning_below, blocking, buffer, COMPACT_BUFFER)
        capped_window = window if autocompact is True else min(window, autocompact)
        threshold = int(capped_window * self.fraction)
        if autocompact_pct is not None:
            threshold = min(int(capped_window * autocompact_pct // 100), threshold)
        return Thresholds(threshold, threshold - self.warning_below, blocking, window - threshold, AUTOCOMPACT_BUFFER)

    def formula(self) -> str:
        return f"{self.fraction:.0%} of the window"


@dataclass(frozen=True, slots=True)
class WindowMinus:
    """The trigger a fixed number of tokens below the window (pi: window − 16,384)."""

    below: int
    warning_below: int
    checks_own_count: bool = False  # the agent decides from its own count: an event's count_gap applies

    def thresholds(
        self, window: int, max_output: int, autocompact: bool | int = True, autocompact_pct: float | None = None
    ) -> Thresholds:
        if autocompact is False:
            return Thresholds(None, window - self.below - self.warning_below, window, 0, COMPACT_BUFFER)
        capped_window = window if autocompact is True else min(window, autocompact)
        threshold = capped_window - self.below
        if autocompact_pct is not None:
            threshold = min(int(capped_window * autocompact_pct // 100), threshold)
        return Thresholds(threshold, threshold - self.warning_below, window, window - threshold, AUTOCOMPACT_BUFFER)

    def formula(self) -> str:
        return f"window − {self.below:,}"
