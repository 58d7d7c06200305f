"""A compaction at a glance, in its agent's words: what came back (the summary, what it re-read or put
back), what stayed verbatim and what never left. Every block in the window after the compaction is in
exactly one row, so the rows add up to the window after it. Pure arithmetic over the step's blocks and
fates; the words come from the profile's ``CompactionWords``."""

from __future__ import annotations

from dataclasses import dataclass

from ctxviz.glossary import UNRECORDED_SPLIT
from ctxviz.kinds import BlockKind as K
from ctxviz.profiles import teaching_of
from ctxviz.profiles.teaching import CompactionWords
from ctxviz.timeline import Block, Category, Timeline

_FILE_KINDS = (K.FILE_READ, K.RESTORED_FILE, K.FILE_REFERENCE)
_RULE_KINDS = (K.RULE, K.NESTED_MEMORY)
_MEMORY_KINDS = (K.MEMORY_FILE, K.AUTO_MEMORY)
# what a row of things that never left names, per category
_STANDING = {
    Category.SYSTEM_PROMPT: "system prompt",
    Category.SYSTEM_TOOLS: "tools",
    Category.MCP_TOOLS: "MCP tools",
    Category.CUSTOM_AGENTS: "custom agents",
    Category.MEMORY_FILES: "instruction files",
    Category.SKILLS: "skill listing",
}


@dataclass(frozen=True, slots=True)
class Row:
    what: str
    tokens: int
    detail: str


def _total(blocks: list[Block]) -> int:
    return sum(b.tokens for b in blocks)


def _plural(count: int, one: str) -> str:
    return f"{count} {one}{'s' * (count != 1)}"


def what_came_back(timeline: Timeline, index: int, words: CompactionWords | None = None) -> list[Row]:
    """The rows of the compaction at step ``index``, biggest story first; their tokens sum to the blocks in
    the window after it (for a scenario, the window after). ``words``: the timeline's agent's by default."""
    if words is None:
        words = teaching_of(timeline.agent).compaction
    step = timeline.steps[index]
    fates = step.fates
    removed = set(step.removed)
    stayed = [b for b in (timeline.state_at(index - 1) if index else []) if b.id not in removed]
    added = timeline.blocks_of(step.added)
    taken: set[int] = set()

    def take(blocks: list[Block]) -> list[Block]:
        taken.update(b.id for b in blocks)
        return blocks

    rows: list[Row] = []
    summaries = take([b for b in added if b.kind == K.SUMMARY])
    replaced = sum(f.tokens for f in fates if f.fate in ("summarised", "dropped"))
    if summaries:
        rows.append(Row(words.summary, _total(summaries), f"replaces {replaced:,} tokens of conversation"))
    history = take([b for b in stayed if b.category is Category.MESSAGES])
    if history or words.keeps is not None:
        kept = words.keeps or "history this compaction keeps as it was"
        rows.append(Row("Kept verbatim", _total(history), kept if history else f"none fit: {kept}"))
    files = take([b for b in added if b.kind in _FILE_KINDS])
    # a log that records no re-read (Claude Code before 2.1.97) has its re-reads in the next call's measured
    # growth: a row would show an unmeasured 0
    unrecorded = timeline.source.kind == "transcript" and not files
    if (
        words.restored_files is not None
        and not unrecorded
        and (files or any(f.kind in (K.FILE_READ, K.EDIT) for f in fates))
    ):
        most, each = words.restored_files
        detail = f"{len(files)} of at most {most}, each ≤ {each:,}"
        referenced = sum(1 for b in files if b.kind == K.FILE_REFERENCE)
        if referenced:
            detail += f"; {referenced} too big, a one-line reference only"
        rows.append(Row("Recent files re-read", _total(files), detail))
    elif files:
        rows.append(Row("Files read again", _total(files), ", ".join(b.label for b in files)))
    rules = take([b for b in added if b.kind in _RULE_KINDS])
    if rules or any(f.kind in _RULE_KINDS and f.fate == "dropped" for f in fates):
        names = ", ".join(b.label.rsplit("/", 1)[-1] for b in rules) or "none"
        rows.append(Row("Rules back with their files", _total(rules), names))
    skills = take([b for b in added if b.kind == K.SKILL_BODY])
    left_out = sum(1 for f in fates if f.kind == K.SKILL_BODY and f.fate == "not-restored")
    if skills or left_out:
        cut = sum(1 for f in fates if f.kind == K.SKILL_BODY and f.fate == "truncated")
        detail = f"{len(skills)} back"
        if words.skills_back is not None:
            each, together = words.skills_back
            detail += f", ≤ {each:,} each, ≤ {together:,} in all"
        if cut:
            detail += f"; {cut} cut to its start"
        if left_out:
            detail += f"; {left_out} not restored (oldest)"
        rows.append(Row("Invoked skills", _total(skills), detail))
    if words.instructions_reread is not None:
        memory = take([b for b in stayed if b.kind in _MEMORY_KINDS] + [b for b in added if b.kind in _MEMORY_KINDS])
        if memory:
            rows.append(
                Row(words.instructions_reread, _total(memory), f"{_plural(len(memory), 'file')} read again from disk")
            )
    listing = take([b for b in added if b.kind == K.SKILL_LISTING])
    if listing:
        rows.append(Row("Skill listing", _total(listing), "rebuilt from the current skills"))
    hooks = take([b for b in added if b.kind == K.HOOK_OUTPUT])
    if hooks:
        rows.append(Row("SessionStart hooks", _total(hooks), "hooks matching compact ran again"))
    others = take([b for b in added if b.id not in taken])
    if others:
        rows.append(Row("Also added", _total(others), ", ".join(dict.fromkeys(b.label for b in others))))
    standing = [b for b in stayed if b.id not in taken]
    if standing:
        names = ", ".join(dict.fromkeys(_standing_name(b) for b in standing))
        rows.append(Row("Never left", _total(standing), f"{names}; not history, sent every time"))
    return rows


def _standing_name(block: Block) -> str:
    name = _STANDING.get(block.category, str(block.category))
    # a real session's first-call remainder: the log gives one figure for all of them
    if block.kind == K.OVERHEAD and block.category is Category.SYSTEM_PROMPT:
        return f"{name} {UNRECORDED_SPLIT}"
    return name


def what_left(timeline: Timeline, index: int) -> list[Row]:
    """What the compaction at step ``index`` took out of the window for good, by fate."""
    fates = timeline.steps[index].fates
    rows: list[Row] = []
    summarised = [f for f in fates if f.fate == "summarised"]
    if summarised:
        kinds = ", ".join(f.label for f in summarised[:3]) + (", …" if len(summarised) > 3 else "")
        rows.append(Row("Summarised", sum(f.tokens for f in summarised), kinds))
    dropped = [f for f in fates if f.fate == "dropped" and f.tokens]
    if dropped:
        names = ", ".join(f.label.rsplit("/", 1)[-1] for f in dropped)
        rows.append(Row("Dropped", sum(f.tokens for f in dropped), f"{names}: back only when loaded again"))
    left_out = [f for f in fates if f.fate == "not-restored" or (f.fate == "dropped" and not f.tokens)]
    if left_out:
        rows.append(Row("Not brought back", 0, _plural(len(left_out), "piece") + ", counted with the summarised"))
    return rows
