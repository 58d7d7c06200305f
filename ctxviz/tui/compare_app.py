"""The TUI opened on a comparison (``ctxviz compare``): the compare screen is the first screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from ctxviz.report.compare_runs import Comparison, widest_event
from ctxviz.tui.app import DARK, CtxvizApp
from ctxviz.tui.screens.compare_screen import CompareScreen
from ctxviz.tui.screens.what_if_screen import WhatIfScreen
from ctxviz.tui.svg_fonts import with_symbol_font

if TYPE_CHECKING:
    from ctxviz.report.compare_runs import WhatIf


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


SCREENSHOT_SIZE = (160, 50)


async def take_screenshot(comparison: Comparison) -> str:
    """An SVG of the compare screen at the event where the runs differ most, at a fixed size and theme."""
    app = CompareApp(comparison, theme=DARK)
    async with app.run_test(size=SCREENSHOT_SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        screen.position = widest_event(comparison) + 1
        await pilot.pause()
        return with_symbol_font(app.export_screenshot(title=f"ctxviz · compare · {comparison.name}"))


class WhatIfApp(CtxvizApp):
    """Opened by ``play --set``: the what-if's timeline with its reference curve; the compare key sets
    the scenario as written beside the what-if."""

    def __init__(self, what_if: WhatIf, what_ifs: tuple[str, ...], *, theme: str = DARK) -> None:
        super().__init__(what_if.timeline, theme=theme)
        self.what_if = what_if
        self._what_ifs = what_ifs

    def get_default_screen(self) -> Screen[None]:
        w = self.what_if
        return WhatIfScreen(w.timeline, self._what_ifs, w.reference, w.reference_name, w.name)


def run_what_if(what_if: WhatIf, what_ifs: tuple[str, ...]) -> None:
    WhatIfApp(what_if, what_ifs).run()
