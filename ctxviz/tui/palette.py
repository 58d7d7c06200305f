"""Colours as theme variables: ``seg-<key>`` for each bar segment, so a theme can override any of them
and the Rich renderables (which need concrete colours) read them from the running app."""

from __future__ import annotations

from textual.app import App
from textual.color import Color

# Picked to stay apart from each other on both dark and light backgrounds.
SEGMENT_COLORS: dict[str, str] = {
    "system-prompt": "#8a94a6",
    "system-tools": "#4f7cac",
    "mcp-tools": "#2aa198",
    "custom-agents": "#6c71c4",
    "memory-files": "#b58900",
    "skills": "#d33682",
    "prompts": "#268bd2",
    "replies": "#7a9a01",
    "file-reads": "#cb4b16",
    "rules": "#d9a441",
    "hooks": "#9b72cf",
    "tool-output": "#c98f5a",
    "subagents": "#3fb950",
    "skill-bodies": "#e07bbf",
    "summary": "#b8b85a",
    "overhead": "#7d7d7d",
    "other": "#a0a0a0",
    # not a bar segment: the /context grid colours Messages as one category, as /context does
    "messages": "#8f6fd8",
}


def theme_defaults() -> dict[str, str]:
    return {f"seg-{key}": value for key, value in SEGMENT_COLORS.items()}


def color(app: App[object], variable: str) -> str:
    """A theme variable as a colour Rich understands (``#rrggbb``)."""
    return Color.parse(app.theme_variables[variable]).hex
