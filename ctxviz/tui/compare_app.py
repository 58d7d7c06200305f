"""The TUI opened on a comparison (``ctxviz compare``): the compare screen is the first screen."""

from __future__ import annotations

from textual.screen import Screen

from ctxviz.report.compare_runs import Comparison
from ctxviz.tui.app import DARK, CtxvizApp
from ctxviz.tui.screens.compare_screen import CompareScreen


class CompareApp(CtxvizApp):
    # Textual reads a screen's own CSS when the screen is pushed, not for the default screen: listed here.
    CSS_PATH = [CtxvizApp.CSS_PATH, CompareScreen.CSS_PATH]  # type: ignore[assignment]

    def __init__(self, comparison: Comparison, *, theme: str = DARK) -> None:
        super().__init__(comparison.runs[0].timeline, theme=theme)
        self.comparison = comparison
        self.title = f"ctxviz · compare · {comparison.name}"

    def get_default_screen(self) -> Screen[None]:
        return CompareScreen(self.comparison)


def run_compare(comparison: Comparison) -> None:
    CompareApp(comparison).run()
