"""The token bar's segments: the ``/context`` categories, with Messages split by block kind.

Pure (no Textual, no Rich). ``Timeline.category_totals_at`` already gives the categories in O(1);
the split of Messages by kind is the one thing the Timeline does not keep, so ``SegmentTotals``
precomputes it once per timeline in a single pass (O(steps + blocks)) and then answers any step in
O(segments) — stepping never walks the live blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviz.kinds import BlockKind as K
from ctxviz.timeline import Block, Category, Timeline


@dataclass(frozen=True, slots=True)
class Segment:
    key: str  # stable slug: the theme variable is ``seg-<key>``
    label: str
    category: Category
    kinds: frozenset[str] = frozenset()  # for Messages: the block kinds it gathers


def _messages(key: str, label: str, *kinds: str) -> Segment:
    return Segment(key, label, Category.MESSAGES, frozenset(kinds))


SEGMENTS: tuple[Segment, ...] = (
    Segment("system-prompt", "System prompt", Category.SYSTEM_PROMPT),
    Segment("system-tools", "System tools", Category.SYSTEM_TOOLS),
    Segment("mcp-tools", "MCP tools", Category.MCP_TOOLS),
    Segment("custom-agents", "Custom agents", Category.CUSTOM_AGENTS),
    Segment("memory-files", "Memory files", Category.MEMORY_FILES),
    Segment("skills", "Skills", Category.SKILLS),
    _messages("prompts", "Prompts", K.PROMPT),
    _messages("replies", "Replies", K.REPLY, K.TOOL_CALL, K.PLAN, K.NOTIFICATION),
    # read, written, or sent for an @-mention (the glossary says so too)
    _messages("file-reads", "Files", K.FILE_READ, K.RESTORED_FILE, K.FILE_REFERENCE, K.EDIT, K.MENTION),
    # path-scoped rules and nested CLAUDE.md alike: what they share is loading when a matching file is touched
    _messages("rules", "Loaded by path", K.RULE, K.NESTED_MEMORY),
    _messages("hooks", "Hooks", K.HOOK_OUTPUT),
    _messages("tool-output", "Tool output", K.TOOL_OUTPUT, K.SPILLED_OUTPUT, K.REPEAT_REFERENCE),
    _messages("subagents", "Subagent results", K.SUBAGENT_RESULT),
    _messages("skill-bodies", "Skill bodies", K.SKILL_BODY),
    _messages("summary", "Summary", K.SUMMARY),
    # a transcript's growth between calls that its log does not itemise (the first call's is in System prompt)
    _messages("overhead", "Unexplained growth", K.OVERHEAD),
    # Whatever kind a future source adds still counts, so the segments always sum to the category.
    _messages("other", "Other messages", *()),
)
SEGMENT_BY_KEY = {segment.key: segment for segment in SEGMENTS}
_OTHER = SEGMENTS.index(SEGMENT_BY_KEY["other"])
_BY_CATEGORY = {s.category: n for n, s in enumerate(SEGMENTS) if s.category is not Category.MESSAGES}
_BY_KIND = {kind: n for n, s in enumerate(SEGMENTS) for kind in s.kinds}


def segment_of(block: Block) -> Segment:
    if block.category is Category.MESSAGES:
        return SEGMENTS[_BY_KIND.get(block.kind, _OTHER)]
    return SEGMENTS[_BY_CATEGORY[block.category]]


class SegmentTotals:
    """Tokens per segment at any step of one timeline."""

    def __init__(self, timeline: Timeline) -> None:
        self._timeline = timeline
        message_slots = [n for n, s in enumerate(SEGMENTS) if s.category is Category.MESSAGES]
        running = dict.fromkeys(message_slots, 0)
        per_step: list[tuple[int, ...]] = []
        startup_unrecorded = 0  # blocks live of a transcript's first-call remainder, held in System prompt
        unrecorded_per_step: list[bool] = []
        for step in timeline.steps:
            for block in timeline.blocks_of(step.removed):
                if block.category is Category.MESSAGES:
                    running[_BY_KIND.get(block.kind, _OTHER)] -= block.tokens
                elif _is_startup_unrecorded(block):
                    startup_unrecorded -= 1
            for block in timeline.blocks_of(step.added):
                if block.category is Category.MESSAGES:
                    running[_BY_KIND.get(block.kind, _OTHER)] += block.tokens
                elif _is_startup_unrecorded(block):
                    startup_unrecorded += 1
            per_step.append(tuple(running.values()))
            unrecorded_per_step.append(startup_unrecorded > 0)
        self._message_slots = message_slots
        self._messages = per_step
        self._startup_unrecorded = unrecorded_per_step
        used = {segment_of(block).key for block in timeline.blocks}
        # Every segment that is ever non-empty, so a legend can give each a fixed place.
        self.present: tuple[bool, ...] = tuple(segment.key in used for segment in SEGMENTS)

    def at(self, index: int) -> list[int]:
        """Tokens per segment (in ``SEGMENTS`` order) after step ``index``."""
        categories = self._timeline.category_totals_at(index)
        values = [categories[s.category] if s.category is not Category.MESSAGES else 0 for s in SEGMENTS]
        for slot, tokens in zip(self._message_slots, self._messages[index], strict=True):
            values[slot] = tokens
        return values

    def startup_unrecorded_at(self, index: int) -> bool:
        """Whether System prompt holds, after step ``index``, what a transcript's first call sent beyond its
        recorded messages (tools, memory and skills with it, not told apart): ``unrecorded_overhead`` without
        walking the live blocks."""
        return self._startup_unrecorded[index]


def _is_startup_unrecorded(block: Block) -> bool:
    return block.kind == K.OVERHEAD and block.category is Category.SYSTEM_PROMPT


def step_delta(timeline: Timeline, index: int) -> tuple[int, int]:
    """Tokens the step added and removed (a step touches few blocks, except a compaction)."""
    step = timeline.steps[index]
    added = sum(b.tokens for b in timeline.blocks_of(step.added))
    removed = sum(b.tokens for b in timeline.blocks_of(step.removed))
    return added, removed
