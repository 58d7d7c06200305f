"""Help, generated: the keys come from the bindings of the screen it was opened over and of the app,
the symbols from the same tables the views draw with."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from ctxviz.layout import FREE, FULL, PARTIAL, RESERVE
from ctxviz.tui.icons import STEP_ICONS, YOU_SEE

_ICON_COLUMNS = 4


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close", show=False)]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self._under = under

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(self._keys(), id="help-keys")
            yield Static(self._symbols(), id="help-symbols")

    def on_mount(self) -> None:
        self.query_one("#help").border_title = "ctxviz · help (escape to close)"

    def _keys(self) -> Table:
        table = Table(title="Keys", title_justify="left", title_style="bold", box=None, padding=(0, 2))
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("does")
        # one row per key: a key with two actions (space: play, pause) lists both on its row
        rows: dict[str, list[str]] = {}
        for owner in (self._under, self.app):
            for binding in Binding.make_bindings(owner.BINDINGS):
                # the tooltip is the longer wording where the footer's is cut short ("Compaction")
                does = binding.tooltip or binding.description
                actions = rows.setdefault(self.app.get_key_display(binding), [])
                if does and does not in actions:
                    actions.append(does)
        for key, actions in rows.items():
            if actions:
                table.add_row(key, " / ".join(actions))
        table.add_row(self.app.COMMAND_PALETTE_BINDING, "Command palette: every action, and themes")
        table.add_row("mouse", "Click a step, the usage chart or a bar segment; hover the bar for figures")
        return table

    def _symbols(self) -> Table:
        kinds = Table.grid(padding=(0, 3))
        by_icon: dict[str, list[str]] = {}
        for kind, glyph in STEP_ICONS.items():
            by_icon.setdefault(glyph, []).append(kind)
        entries = [Text.assemble((glyph, "bold"), " ", ", ".join(k)) for glyph, k in by_icon.items()]
        for start in range(0, len(entries), _ICON_COLUMNS):
            kinds.add_row(*entries[start : start + _ICON_COLUMNS])
        table = Table(title="\nSymbols", title_justify="left", title_style="bold", box=None, padding=(0, 2))
        table.add_column("", no_wrap=True)
        table.add_column("")
        table.add_row("steps", kinds)
        table.add_row(f"{FULL} {PARTIAL} {FREE} {RESERVE}", "/context grid: used, partly used, free, reserve")
        table.add_row("┃ ▲", "bar markers: the warning and auto-compact thresholds")
        table.add_row("you see", " · ".join(f"{k}: {v}" for k, v in YOU_SEE.items()) + " (Claude sees all)")
        return table
