"""Fates a compaction gives the message history: one row per kind of content ("7 tool calls",
"4 file reads"), not one per block — a long session summarises thousands of blocks at once."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ctxviz.timeline import Fate

_NOUNS = {
    "prompt": ("prompt", "prompts"),
    "reply": ("reply", "replies"),
    "tool-call": ("tool call", "tool calls"),
    "file-read": ("file read", "file reads"),
    "edit": ("edit", "edits"),
    "tool-output": ("tool result", "tool results"),
    "spilled-output": ("spilled preview", "spilled previews"),
    "hook-output": ("hook output", "hook outputs"),
    "skill-body": ("skill body", "skill bodies"),
    "subagent-result": ("subagent result", "subagent results"),
    "summary": ("earlier summary", "earlier summaries"),
    "restored-file": ("restored file", "restored files"),
    "file-reference": ("file reference", "file references"),
    "notification": ("notification", "notifications"),
    "nested-memory": ("nested memory file", "nested memory files"),
    "skill-listing": ("skill listing", "skill listings"),
    "plan": ("plan", "plans"),
}


def counted(count: int, kind: str) -> str:
    one, many = _NOUNS.get(kind, (f"{kind} block", f"{kind} blocks"))
    return f"{count} {one if count == 1 else many}"


def summarised_by_kind(items: Iterable[tuple[str, int]], why: Callable[[str], str]) -> list[Fate]:
    """One "summarised" fate per kind, in the order kinds first appear, from ``(kind, tokens)`` pairs."""
    tally: dict[str, list[int]] = {}
    for kind, tokens in items:
        entry = tally.setdefault(kind, [0, 0])
        entry[0] += 1
        entry[1] += tokens
    return [Fate(counted(n, kind), kind, "summarised", tokens, why(kind)) for kind, (n, tokens) in tally.items()]
