"""The README's "In the TUI" paragraph names every key of the main screen: a key added to the app is
added there too (the help screen lists them from the bindings themselves)."""

from __future__ import annotations

import re
from pathlib import Path

from ctxviz.tui.app import CtxvizApp
from ctxviz.tui.screens.timeline_screen import TimelineScreen

README = Path(__file__).resolve().parents[1] / "README.md"
# how the README writes a key Textual names otherwise
SPELLED = {"space": "space", "left": "←", "right": "→", "home": "Home", "end": "End", "enter": "⏎",
           "escape": "esc", "pagedown": "PgDn", "pageup": "PgUp", "question_mark": "?", "minus": "-",
           "plus": "+", "equals_sign": "+"}  # fmt: skip


def _paragraph() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("### In the TUI", 1)[1].split("\n\n", 2)[1]


def test_every_key_of_the_main_screen_is_in_the_readme() -> None:
    written = set(re.findall(r"`([^`]+)`", _paragraph()))
    bindings = [*CtxvizApp.BINDINGS, *TimelineScreen.BINDINGS]
    keys = {key.strip() for binding in bindings for key in binding.key.split(",")}  # type: ignore[union-attr]
    missing = sorted(key for key in keys if SPELLED.get(key, key) not in written)
    assert missing == []
    assert "ctrl+p" in written  # the command palette, Textual's own binding
