"""The command palette's ctxviz entries: every action the current screen can take now (taken from its
active bindings, so the palette and the footer never disagree), and "go to step N"."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.types import IgnoreReturnCallbackType

from ctxviz.tui.screens.timeline_screen import TimelineScreen


class ActionsProvider(Provider):
    def _actions(self) -> list[tuple[str, str, IgnoreReturnCallbackType]]:
        """(title, help, callback) for each enabled binding of the screen under the palette."""
        found: list[tuple[str, str, IgnoreReturnCallbackType]] = []
        seen: set[str] = set()
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if not active.enabled or not binding.description or binding.description in seen:
                continue
            seen.add(binding.description)
            help_text = f"key: {self.app.get_key_display(binding) or key}"
            found.append((binding.description, help_text, partial(self.app.run_action, binding.action, active.node)))
        return found

    async def discover(self) -> Hits:
        for title, help_text, callback in self._actions():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._actions():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
        words = query.split()
        if words and words[-1].isdigit() and isinstance(self.screen, TimelineScreen):
            target = words[-1]
            yield Hit(1.0, f"Go to step {target}", partial(self.app.run_action, f"go({target})", self.screen))
