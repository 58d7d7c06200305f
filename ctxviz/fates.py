"""Fates a compaction gives the message history: one row per kind of content ("7 tool calls",
"4 file reads"), not one per block — a long session summarises thousands of blocks at once."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ctxviz.kinds import BlockKind as K
from ctxviz.timeline import Fate

_NOUNS: dict[str, tuple[str, str]] = {
    K.PROMPT: ("prompt", "prompts"),
    K.REPLY: ("reply", "replies"),
    K.TOOL_CALL: ("tool call", "tool calls"),
    K.FILE_READ: ("file read", "file reads"),
    K.EDIT: ("edit", "edits"),
    K.TOOL_OUTPUT: ("tool result", "tool results"),
    K.SPILLED_OUTPUT: ("spilled preview", "spilled previews"),
    K.HOOK_OUTPUT: ("hook output", "hook outputs"),
    K.SKILL_BODY: ("skill body", "skill bodies"),
    K.SUBAGENT_RESULT: ("subagent result", "subagent results"),
    K.SUMMARY: ("earlier summary", "earlier summaries"),
    K.RESTORED_FILE: ("restored file", "restored files"),
    K.FILE_REFERENCE: ("file reference", "file references"),
    K.REPEAT_REFERENCE: ("repeat reference", "repeat references"),
    K.NOTIFICATION: ("notification", "notifications"),
    K.NESTED_MEMORY: ("nested memory file", "nested memory files"),
    K.SKILL_LISTING: ("skill listing", "skill listings"),
    K.PLAN: ("plan", "plans"),
    K.MENTION: ("mention", "mentions"),
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
