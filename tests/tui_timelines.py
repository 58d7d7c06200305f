"""Hand-built Timelines for the TUI tests and the benchmark (independent of the scenario engine)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ctxviz.timeline import Block, Category, Fate, Source, Step, Thresholds, Timeline, Visibility

NewBlock = tuple[Category, str, str, int, Visibility]
THRESHOLDS_200K = Thresholds(autocompact=167_000, warning=147_000, blocking=177_000, buffer=33_000)


@dataclass
class Builder:
    """Appends steps one at a time; each ``step`` call names the blocks it adds and removes."""

    name: str = "Synthetic"
    window: int = 200_000
    thresholds: Thresholds = THRESHOLDS_200K
    steps: list[Step] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    live: dict[int, Block] = field(default_factory=dict)

    def block(
        self, category: Category, kind: str, label: str, tokens: int, visibility: Visibility = "hidden"
    ) -> NewBlock:
        return (category, kind, label, tokens, visibility)

    def step(
        self,
        kind: str,
        label: str,
        add: Sequence[NewBlock] = (),
        remove: Sequence[int] = (),
        *,
        notes: tuple[str, ...] = (),
        note: str | None = None,
        child: Timeline | None = None,
        fates: tuple[Fate, ...] = (),
    ) -> int:
        index = len(self.steps)
        for block_id in remove:
            old = self.live.pop(block_id)
            self.blocks[block_id] = Block(
                old.id, old.category, old.kind, old.label, old.tokens, old.entered, index, old.visibility
            )
        added = []
        for category, kind_, label_, tokens, visibility in add:
            block = Block(len(self.blocks), category, kind_, label_, tokens, index, None, visibility)
            self.blocks.append(block)
            self.live[block.id] = block
            added.append(block.id)
        used = sum(b.tokens for b in self.live.values())
        self.steps.append(Step(index, kind, label, tuple(added), tuple(remove), used, False, notes, note, child, fates))
        return index

    def timeline(self) -> Timeline:
        return Timeline(
            source=Source("scenario", self.name, summary="A hand-built session for the TUI tests."),
            agent="claude-code",
            model="claude-sonnet-4-6",
            window=self.window,
            thresholds=self.thresholds,
            steps=tuple(self.steps),
            blocks=tuple(self.blocks),
        )


M = Category.MESSAGES


def startup(b: Builder) -> None:
    b.step(
        "startup",
        "Session start",
        [
            b.block(Category.SYSTEM_PROMPT, "system-prompt", "System prompt", 4_200),
            b.block(Category.SYSTEM_PROMPT, "environment", "Environment info", 280),
            b.block(Category.SYSTEM_TOOLS, "tools", "Built-in tools", 13_500),
            b.block(Category.MCP_TOOLS, "mcp-tools", "github (deferred)", 120),
            b.block(Category.CUSTOM_AGENTS, "agents", "reviewer", 120),
            b.block(Category.MEMORY_FILES, "memory-file", "~/.claude/CLAUDE.md", 320),
            b.block(Category.MEMORY_FILES, "memory-file", "CLAUDE.md", 1_800),
            b.block(Category.MEMORY_FILES, "auto-memory", "MEMORY.md", 680),
            b.block(Category.SKILLS, "skill-listing", "Skill descriptions", 450),
        ],
        notes=("Everything before the first prompt loads at startup.",),
    )


def subagent_child() -> Timeline:
    child = Builder(name="Explore subagent")
    child.step(
        "startup",
        "Subagent start",
        [
            child.block(Category.SYSTEM_PROMPT, "system-prompt", "System prompt (subagent)", 900),
            child.block(Category.SYSTEM_TOOLS, "tools", "Tools", 970),
        ],
    )
    child.step("prompt", "Task prompt from main", [child.block(M, "prompt", "Task prompt", 120)])
    child.step("read", "src/auth/session.ts", [child.block(M, "file-read", "src/auth/session.ts", 2_200)])
    child.step("read", "src/auth/timeouts.ts", [child.block(M, "file-read", "src/auth/timeouts.ts", 800)])
    child.step("reply", "Findings", [child.block(M, "reply", "Findings", 420, "brief")])
    return child.timeline()


def demo_timeline() -> Timeline:
    """A session like the docs' one, scaled so it crosses the warning line and compacts."""
    b = Builder(name="Demo session")
    startup(b)
    b.step(
        "prompt",
        "Fix the auth bug where users get 401 after token refresh",
        [b.block(M, "prompt", "Fix the auth bug", 45, "full")],
        note="You type a prompt; it enters the window whole.",
    )
    b.step("read", "src/api/auth.ts", [b.block(M, "file-read", "src/api/auth.ts", 2_400, "brief")])
    b.step(
        "read",
        "src/api/routes.ts",
        [
            b.block(M, "file-read", "src/api/routes.ts", 1_100, "brief"),
            b.block(M, "rule", ".claude/rules/api.md", 380, "brief"),
        ],
        notes=("`.claude/rules/api.md` loaded: `src/api/routes.ts` matches `src/api/**`",),
    )
    b.step("edit", "src/api/auth.ts", [b.block(M, "edit", "src/api/auth.ts", 400, "full")])
    b.step("tool", "prettier hook", [b.block(M, "hook-output", "prettier", 120)])
    b.step("reply", "Claude's analysis", [b.block(M, "reply", "Analysis", 800, "full")])
    b.step(
        "subagent",
        "Explore: research session timeouts",
        [b.block(M, "subagent-result", "Explore result", 420, "brief")],
        notes=("3,000 tokens of reads stayed in the subagent's own window.",),
        child=subagent_child(),
    )
    b.step("skill", "pdf", [b.block(M, "skill-body", "pdf", 7_200, "brief")])
    for n in range(12):
        b.step("bash", f"pytest run {n + 1}", [b.block(M, "tool-output", f"pytest run {n + 1}", 11_000, "brief")])
    before = list(b.live.values())
    messages = [blk for blk in before if blk.category is M]
    summarised = sum(blk.tokens for blk in messages)
    fates = tuple(
        Fate(blk.label, blk.kind, "summarised" if blk.kind != "skill-body" else "reinjected", blk.tokens, "")
        for blk in messages
    ) + (Fate("MEMORY.md", "auto-memory", "kept", 680, "startup content survives"),)
    b.step(
        "compact",
        "/compact",
        [
            b.block(M, "summary", "Compaction summary", round(0.12 * summarised), "brief"),
            b.block(M, "skill-body", "pdf", 5_000, "hidden"),
            b.block(M, "restored-file", "src/api/auth.ts", 2_400, "hidden"),
        ],
        [blk.id for blk in messages],
        notes=(f"/compact: {summarised:,} tokens of conversation summarised.",),
        fates=fates,
    )
    b.step("prompt", "Now add a test", [b.block(M, "prompt", "Now add a test", 30, "full")])
    b.step("write", "tests/test_auth.ts", [b.block(M, "edit", "tests/test_auth.ts", 900, "full")])
    b.step("reply", "Done", [b.block(M, "reply", "Done", 300, "full")])
    return b.timeline()


def long_timeline(steps: int) -> Timeline:
    """``steps`` steps of reads and replies, auto-compacting whenever the window fills."""
    b = Builder(name=f"{steps:,} steps")
    startup(b)
    kinds = ("prompt", "read", "bash", "reply", "grep", "edit")
    while len(b.steps) < steps:
        n = len(b.steps)
        kind = kinds[n % len(kinds)]
        if b.steps[-1].used >= b.thresholds.autocompact:
            messages = [blk.id for blk in b.live.values() if blk.category is M]
            b.step(
                "auto-compact",
                "Auto-compaction",
                [b.block(M, "summary", "Compaction summary", 3_000, "brief")],
                messages,
                fates=(Fate("conversation", "messages", "summarised", 0, "over the threshold"),),
            )
            continue
        b.step(kind, f"{kind} {n}", [b.block(M, "tool-output", f"{kind} {n}", 500 + (n * 37) % 2_000, "brief")])
    return b.timeline()
