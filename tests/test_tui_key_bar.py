"""At 80 columns the footer keeps the screen's own keys: the app's keys (the same everywhere, listed in the
help) give up their words first. The last keys, 2 /context, 3 Window and a Audit, were cut off."""

from __future__ import annotations

from textual.pilot import Pilot

from ctxviz.sources import open_timeline
from ctxviz.tui.app import CtxvizApp
from ctxviz.tui.widgets.key_bar import KeyBar
from tests.tui_driving import drive


def _footer(size: tuple[int, int]) -> str:
    seen: list[str] = []

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        seen.append(f"{bar.content_size.width}|{bar.render()}")

    drive(open_timeline(None), script, size)
    return seen[0]


def test_at_80_columns_every_key_of_the_main_view_fits() -> None:
    width, text = _footer((80, 24)).split("|", 1)
    assert len(text.rstrip()) <= int(width)
    for key in ("q", "o", "?", "g", "space Play", "←→ Step", "n Compaction", "2 /context", "3 Window", "a Audit"):
        assert f" {key} " in f"{text} ", key


def test_at_120_columns_the_keys_keep_their_words() -> None:
    _, text = _footer((120, 40)).split("|", 1)
    assert "q Quit" in text and "? Help" in text and "^p Palette" in text and "a Audit" in text
