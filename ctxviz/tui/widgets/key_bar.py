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
from textual.widgets import Static


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


class KeyBar(Static):
    """When the keys do not fit, the palette's key goes and the app's own keys (the same on every screen,
    and listed in the help) lose their words, Help's last: at 80 columns the screen's keys (2 /context,
    3 Window, a Audit) were cut off the end."""

    _shown_for = 0  # the width the keys were laid out for

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
        palette = Binding(self.app.COMMAND_PALETTE_BINDING, "command_palette", "Palette")
        shown = list(entries.values())
        app_keys = sum(1 for active in ordered if active.node is not screen and active.binding.show)
        with_palette = [
            *shown[:app_keys],
            _Entry("Palette", "app.command_palette", [self.app.get_key_display(palette)]),
        ]
        full = Content("").join(entry.content() for entry in with_palette + shown[app_keys:])
        width = self.content_size.width
        screen_part = [entry.content() for entry in shown[app_keys:]]
        for keep_help in (True, False):
            if not width or full.cell_length <= width:
                break
            app_part = [entry.content(labelled=keep_help and entry.action == "app.help") for entry in shown[:app_keys]]
            full = Content("").join(app_part + screen_part)
        self._shown_for = width
        self.update(full, layout=False)

    def on_resize(self) -> None:
        if self.content_size.width != self._shown_for:
            self._show(self.screen)
