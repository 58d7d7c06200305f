"""The screenshots' SVGs carry the few symbols common monospace fonts lack (⛀ ⛁ ⛝ ⛶ ⤷) as an embedded font.

Rich's SVG asks for Fira Code (from a CDN) and then the viewer's monospace. An SVG shown as an image, as a
README shows it, loads nothing from the network, and most monospace fonts have no ⛶: the /context grid's
free space drew as empty boxes. The terminal glyphs stay those of Claude Code's own /context; only the
export changes. The font is a subset of Noto (SIL Open Font License 1.1, fonts/OFL.txt), built by
screenshots/symbol_font.py.
"""

from __future__ import annotations

import base64
from functools import cache
from importlib.resources import files

FAMILY = "ctxviz symbols"
_RICH_FONTS = "font-family: Fira Code, monospace;"  # the terminal text's font stack in Rich's SVG template


@cache
def _font_face() -> str:
    data = base64.b64encode((files("ctxviz.tui") / "fonts" / "ctxviz-symbols.woff").read_bytes()).decode("ascii")
    return f'@font-face {{ font-family: "{FAMILY}"; src: url("data:font/woff;base64,{data}") format("woff"); }}'


def with_symbol_font(svg: str) -> str:
    """``svg`` (an ``export_screenshot``) with the symbol font embedded and placed before monospace."""
    if _RICH_FONTS not in svg:
        raise ValueError("the SVG does not have Rich's font stack: has Rich's SVG template changed?")
    svg = svg.replace(_RICH_FONTS, f'font-family: Fira Code, "{FAMILY}", monospace;')
    return svg.replace("<style>", f"<style>\n    {_font_face()}\n", 1)
