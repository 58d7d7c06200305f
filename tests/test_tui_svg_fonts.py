"""The screenshots embed the symbols most monospace fonts lack: an SVG shown as an image loads no web font,
and the /context grid's free space (⛶) drew as empty boxes."""

from __future__ import annotations

import asyncio
import base64
import re

import pytest

from ctxviz.sources import open_timeline
from ctxviz.tui.app import DARK, CtxvizApp
from ctxviz.tui.svg_fonts import FAMILY, with_symbol_font


def _export() -> str:
    async def run() -> str:
        app = CtxvizApp(open_timeline(None), theme=DARK)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            await pilot.pause()
            return app.export_screenshot()

    return asyncio.run(run())


def test_a_screenshot_carries_the_symbol_font_before_the_viewers_monospace() -> None:
    svg = with_symbol_font(_export())
    assert "⛶" in svg  # the /context view at 80x24 draws free space
    assert f'font-family: Fira Code, "{FAMILY}", monospace;' in svg
    found = re.search(r'url\("data:font/woff;base64,([A-Za-z0-9+/=]+)"\)', svg)
    assert found is not None
    assert base64.b64decode(found.group(1))[:4] == b"wOFF"


def test_an_svg_of_another_make_is_refused_not_left_without_the_font() -> None:
    with pytest.raises(ValueError, match="font stack"):
        with_symbol_font("<svg><style>.x { font-family: monospace; }</style></svg>")
