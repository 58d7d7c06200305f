"""One single-cell glyph per step kind (checked with ``rich.cells.cell_len``: emoji-width glyphs
would shift every column after them)."""

from __future__ import annotations

STEP_ICONS: dict[str, str] = {
    "startup": "◆",
    "prompt": "❯",
    "reply": "◂",
    "read": "▤",
    "edit": "✎",
    "write": "✚",
    "grep": "⌕",
    "glob": "✱",
    "bash": "$",
    "tool": "⚙",
    "subagent": "⤷",
    "skill": "✦",
    "plan": "≡",
    "compact": "⇊",
    "auto-compact": "⇊",
    "clear": "⌫",
    "note": "ℹ",
    "notification": "✉",
    "api-call": "⇄",
}
UNKNOWN_ICON = "·"

# What the person sees in their terminal for a block of each visibility (Claude always sees all of it).
YOU_SEE: dict[str, str] = {"hidden": "nothing", "brief": "a notice", "full": "all of it"}


def icon(kind: str) -> str:
    return STEP_ICONS.get(kind, UNKNOWN_ICON)
