"""Build ctxviz/tui/fonts/ctxviz-symbols.woff: the few symbols the screenshots draw that common monospace
fonts lack (the /context grid's ⛀ ⛁ ⛝ ⛶, the subagent's ⤷), so an SVG shows them wherever it is opened.

An SVG shown as an image loads no font from the network: without this, each viewer falls back to its own
fonts, and many have no ⛶ (SQUARE FOUR CORNERS) at all, drawing an empty box in the free space. Each glyph
is scaled to one terminal cell (0.61 em, the width Rich's SVG export gives a character) and centred.

Run by hand when the glyphs change, with fontTools and the Noto fonts (SIL Open Font License 1.1; Debian's
fonts-noto-core ships them):  python screenshots/symbol_font.py /usr/share/fonts/truetype/noto
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools.fontBuilder import FontBuilder
from fontTools.pens.boundsPen import BoundsPen
from fontTools.pens.transformPen import TransformPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont

FAMILY = "ctxviz symbols"
OUT = Path(__file__).resolve().parents[1] / "ctxviz" / "tui" / "fonts" / "ctxviz-symbols.woff"
UNITS = 1000
CELL = 610  # Rich's SVG: a character is 0.61 em wide
INK = 760  # the widest a glyph may be: a little over its cell, as a terminal draws these (a space follows)
SOURCES = {
    "NotoSansSymbols2-Regular.ttf": "⛀⛁⛝",
    "NotoSansSymbols-Regular.ttf": "⛶",
    "NotoSansMath-Regular.ttf": "⤷",
}


def build(noto: Path) -> None:
    glyphs, advances, cmap = {".notdef": TTGlyphPen(None).glyph()}, {".notdef": (CELL, 0)}, {}
    for file, chars in SOURCES.items():
        font = TTFont(noto / file)
        assert font["head"].unitsPerEm == UNITS, file
        glyph_set = font.getGlyphSet()
        for char in chars:
            source = font.getBestCmap()[ord(char)]
            ink = BoundsPen(glyph_set)
            glyph_set[source].draw(ink)
            x_min, y_min, x_max, y_max = ink.bounds
            scale = min(1.0, INK / (x_max - x_min))
            middle_y = (y_min + y_max) / 2
            # scaled about the ink's centre, which lands in the middle of the cell at the same height
            dx = CELL / 2 - scale * (x_min + x_max) / 2
            dy = middle_y - scale * middle_y
            pen = TTGlyphPen(None)
            glyph_set[source].draw(TransformPen(pen, (scale, 0, 0, scale, dx, dy)))
            name = f"uni{ord(char):04X}"
            glyphs[name], advances[name], cmap[ord(char)] = pen.glyph(), (CELL, round(x_min * scale + dx)), name
    builder = FontBuilder(UNITS, isTTF=True)
    builder.setupGlyphOrder(list(glyphs))
    builder.setupCharacterMap(cmap)
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics(advances)
    builder.setupHorizontalHeader(ascent=880, descent=-120)
    builder.setupNameTable(
        {
            "familyName": FAMILY,
            "styleName": "Regular",
            "copyright": "Glyphs from Noto Sans Symbols, Symbols 2 and Math, (c) Google LLC, SIL Open Font License 1.1",
            "licenseDescription": "This Font Software is licensed under the SIL Open Font License, Version 1.1.",
            "licenseInfoURL": "https://openfontlicense.org",
        }
    )
    builder.setupOS2(sTypoAscender=880, sTypoDescender=-120, usWinAscent=880, usWinDescent=120)
    builder.setupPost()
    builder.font.flavor = "woff"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    builder.save(str(OUT))
    print(f"{OUT}: {OUT.stat().st_size:,} bytes")


if __name__ == "__main__":
    build(Path(sys.argv[1]))
