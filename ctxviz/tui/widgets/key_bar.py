"""The footer: the screen's active bindings on one line of clickable keys.

Textual's Footer rebuilds one widget per key, and then the screen's layout, whenever the bindings
change: about 110 ms here (measured with benchmarks/tui.py), and they change whenever a step gains or
loses an action ("Open subagent" on a subagent step, "Compaction" past the last one). This bar is one
line of Content, redrawn in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.style import Style
from textual.widget import Widget


@dataclass
class _Entry:
    label: str
    action: str
    keys: list[str] = field(default_factory=list)
    enabled: bool = True

    def content(self, labelled: bool = True) -> Content:
        keys = Content.styled(f" {''.join(self.keys)} ", "bold $footer-key-foreground on $footer-key-background")
        words = Content(f"{self.label} " if labelled else "")
        text = (keys + words).stylize(Style.from_meta({"@click": self.action}))
        return text if self.enabled else text.stylize("dim")


class KeyBar(Widget):
    """When the keys do not fit, the palette's key goes and the app's own keys (the same on every screen,
    and listed in the help) lose their words, Help's last: at 80 columns the screen's keys (2 /context,
    3 Window, a Audit) were cut off the end. Chosen when drawn, at the width drawn."""

    DEFAULT_CSS = "KeyBar { width: 1fr; height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._app_entries: list[_Entry] = []
        self._screen_entries: list[_Entry] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._show)
        self._show(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _show(self, screen: Screen[object]) -> None:
        entries: dict[object, _Entry] = {}
        # the app's keys (quit, open, help, glossary) first: a narrow footer cuts the end, and these are
        # the ones a newcomer needs on every screen
        ordered = sorted(screen.active_bindings.values(), key=lambda active: active.node is screen)
        for active in ordered:
            binding = active.binding
            if not binding.show:
                continue
            namespace = "screen" if active.node is screen else "app"
            # the bindings of a group share one entry ("←→ Step"); a click runs the last of them
            entry = entries.setdefault(
                binding.group or binding,
                _Entry(binding.group.description if binding.group else binding.description, ""),
            )
            entry.action = f"{namespace}.{binding.action}"
            entry.keys.append(self.app.get_key_display(binding))
            entry.enabled = entry.enabled and active.enabled
        shown = list(entries.values())
        app_keys = sum(1 for active in ordered if active.node is not screen and active.binding.show)
        self._app_entries, self._screen_entries = shown[:app_keys], shown[app_keys:]
        self.refresh()

    def render(self) -> Content:
        palette = Binding(self.app.COMMAND_PALETTE_BINDING, "command_palette", "Palette")
        palette_entry = _Entry("Palette", "app.command_palette", [self.app.get_key_display(palette)])
        screen_part = [entry.content() for entry in self._screen_entries]
        full = Content("").join([entry.content() for entry in [*self._app_entries, palette_entry]] + screen_part)
        width = self.size.width
        for keep_help in (True, False):
            if not width or full.cell_length <= width:
                break
            app_part = [entry.content(keep_help and entry.action == "app.help") for entry in self._app_entries]
            full = Content("").join(app_part + screen_part)
        return full
