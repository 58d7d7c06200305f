"""Compaction (MECHANICS.md §4) and ``/clear``. A compaction is one step: it removes the message history
and adds the summary and everything re-injected after it, each with its fate and the reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxviz.engine import sizing
from ctxviz.fates import summarised_by_kind
from ctxviz.scenario.sizes import Measure
from ctxviz.timeline import Category, Fate

if TYPE_CHECKING:
    from ctxviz.engine.session import Session

M = Category.MESSAGES
_WHY_GONE = {
    "rule": "path-scoped rule: gone until a matching file is touched again",
    "nested-memory": "nested CLAUDE.md: gone until a file in its folder is touched again",
    "spilled-output": "the full outputs stay on disk",
    "hook-output": "summarised with the rest",
    "skill-body": "invoked skills come back below",
    "file-read": "recent files are re-read below",
    "plan": "the plan file comes back below",
    "summary": "summarised again",
}
_WHY_KEPT = {
    Category.SYSTEM_PROMPT: "not history: sent with every request",
    Category.SYSTEM_TOOLS: "not history: sent with every request",
    Category.MCP_TOOLS: "not history: sent with every request",
    Category.CUSTOM_AGENTS: "not history: sent with every request",
    Category.MEMORY_FILES: "read from disk again (current content)",
}


def compact(session: Session, *, manual: bool, focus: str | None, summary: Measure | None, note: str | None) -> None:
    p, rec, state = session.profile, session.rec, session.state
    before = rec.used
    threshold = session.thresholds.autocompact
    fates: list[Fate] = []
    if manual:
        rec.note(f"/compact at {before:,} tokens" + (f", focus: {focus}" if focus else ""))
    else:
        rec.note(f"auto-compaction: {before:,} ≥ {threshold:,}, checked before the next model call")
    history = 0
    summarised: list[tuple[str, int]] = []
    for block in rec.live():
        if block.category is M or block.kind == "skill-listing":
            if block.category is M:
                history += block.tokens
            rec.remove(block.id)
            if block.kind == "skill-listing":
                fates.append(Fate(block.label, block.kind, "reinjected", block.tokens, "rebuilt from current skills"))
            elif block.kind in ("rule", "nested-memory"):
                fates.append(Fate(block.label, block.kind, "dropped", block.tokens, _WHY_GONE[block.kind]))
            else:
                summarised.append((block.kind, block.tokens))
        else:
            fate = "reinjected" if block.category is Category.MEMORY_FILES else "kept"
            why = "a fresh snapshot" if block.label == "Git status" else _WHY_KEPT[block.category]
            fates.append(Fate(block.label, block.kind, fate, block.tokens, why))
    fates += summarised_by_kind(summarised, lambda kind: _WHY_GONE.get(kind, "replaced by the summary"))
    state.loaded_rules.clear()
    state.loaded_nested.clear()
    state.current.clear()
    state.crossed_warning = False

    sized = sizing.summary_size(p, summary)
    rec.add(
        M, "summary", "Summary of the conversation" + (f" (focus: {focus})" if focus else ""), sized.tokens, "brief"
    )
    fates.append(Fate("Summary", "summary", "restored", sized.tokens, sized.why or "the new start of the history"))
    rec.note(f"{history:,} tokens of history replaced by a {sized.tokens:,}-token summary")
    if sized.why:
        rec.note(sized.why)

    # what is re-injected in any case, added after the files and skills that must leave room for it
    listing = sizing.skill_listing(p, session.scenario.setup.skills, session.window).tokens
    hooks = sum(session.hook_tokens(hook) for hook in session.hooks("SessionStart", "compact"))
    later = p.task_status * len(state.background) + (state.plan or 0) + listing + hooks

    def fits(tokens: int) -> bool:
        """Re-injected content must not put an automatic compaction straight back over its threshold."""
        return manual or threshold is None or rec.used + tokens + later < threshold

    _restore_files(session, fates, fits)
    for task in state.background:
        rec.add(M, "notification", f"Still running: {task.label}", p.task_status, "hidden")
        fates.append(Fate(task.label, "notification", "reinjected", p.task_status, "still running: Claude is told"))
    if state.plan is not None:
        state.plan_block = rec.add(M, "plan", "Plan (from disk)", state.plan, "hidden")
        fates.append(Fate("Plan", "plan", "reinjected", state.plan, "the plan file is re-read from disk"))
    later = listing + hooks
    _restore_skills(session, fates, fits)
    if session.scenario.setup.skills:
        session.add_listing()
    session.session_start_hooks("compact")
    kind = "compact" if manual else "auto-compact"
    label = "/compact" + (f" {focus}" if focus else "") if manual else "auto-compaction"
    rec.note(f"{before:,} → {rec.used:,} tokens")
    rec.close_step(kind, label, note=note, fates=tuple(fates))
    if manual and threshold is not None and rec.used >= threshold:
        compact(session, manual=False, focus=None, summary=None, note=None)  # still over: the next call compacts


def _restore_files(session: Session, fates: list[Fate], fits) -> None:  # noqa: ANN001 - a local predicate
    p, rec, state = session.profile, session.rec, session.state
    memory = set(session.scenario.setup.memory)
    touched = state.touched
    recent = sorted((path for path in touched if path not in memory), key=lambda f: -touched[f])
    state.touched = {}  # the read-file cache starts over with just the files restored
    total = 0
    for n, path in enumerate(recent):
        size = session.files[path].size.tokens
        if n >= p.restore_max_files:
            fates.append(
                Fate(path, "file-read", "dropped", 0, f"only the {p.restore_max_files} most recent files are re-read")
            )
            continue
        referenced = size > p.restore_max_tokens_per_file
        tokens = p.file_reference if referenced else size
        # a restored file goes through the read path: the rules and nested CLAUDE.md it brings count too
        brings = 0 if referenced else sum(t.tokens for t in session.triggered_by(path, "read"))
        if total + tokens > p.restore_total_tokens or not fits(tokens + brings):
            why = (
                f"restored files are capped at {p.restore_total_tokens:,} in all"
                if total + tokens > p.restore_total_tokens
                else "would put the context back over the threshold"
            )
            fates.append(Fate(path, "file-read", "dropped", 0, why))
            continue
        total += tokens
        if referenced:
            rec.add(M, "file-reference", f"Referenced file {path}", tokens, "hidden")
            fates.append(
                Fate(
                    path,
                    "file-reference",
                    "referenced",
                    tokens,
                    f"{size:,} > {p.restore_max_tokens_per_file:,} tokens: a one-line reference, no content",
                )
            )
            continue
        session.read(path, label=f"Restored {path}", mention=True, kind="restored-file")
        # A restored file is not "unchanged since the last read": real sessions (2.1.39) get its whole
        # content again when Claude reads it after the compaction, not the short stub.
        state.current.discard(path)
        state.touched[path] = touched[path]  # keeps its place in the recency order
        fates.append(
            Fate(
                path,
                "restored-file",
                "restored",
                tokens,
                f"recently read or edited (#{n + 1} most recent), ≤ {p.restore_max_tokens_per_file:,}",
            )
        )
    if recent:
        rec.note(
            f"{min(len(recent), p.restore_max_files)} recent files considered for re-reading, most recent "
            f"first ({total:,} tokens restored)"
        )


def _restore_skills(session: Session, fates: list[Fate], fits) -> None:  # noqa: ANN001 - a local predicate
    p, rec, state = session.profile, session.rec, session.state
    bodies = {s.name: s.body.tokens for s in session.scenario.setup.skills}
    total = 0
    for name in sorted(state.invoked_skills, key=lambda s: -state.invoked_skills[s]):
        body = bodies[name]
        tokens = min(body, p.restore_skill_max_tokens)
        if total + tokens > p.restore_skills_total_tokens or not fits(tokens):
            why = (
                f"skills are capped at {p.restore_skills_total_tokens:,} in all; older ones are dropped first"
                if total + tokens > p.restore_skills_total_tokens
                else "would put the context back over the threshold"
            )
            fates.append(Fate(f"Skill: {name}", "skill-body", "dropped", 0, why))
            continue
        total += tokens
        rec.add(M, "skill-body", f"Skill: {name} (re-injected)", tokens, "hidden")
        if tokens < body:
            fates.append(
                Fate(
                    f"Skill: {name}",
                    "skill-body",
                    "truncated",
                    tokens,
                    f"{body:,} > {p.restore_skill_max_tokens:,} per skill: the start is kept",
                )
            )
        else:
            fates.append(Fate(f"Skill: {name}", "skill-body", "reinjected", tokens, "invoked skill, re-injected whole"))


def clear(session: Session, note: str | None) -> None:
    """``/clear``: the history goes, and the session starts over from its startup content."""
    from ctxviz.engine.session import State

    rec = session.rec
    before = rec.used
    for block in rec.live():
        if block.category is M or block.kind == "skill-listing":
            rec.remove(block.id)
    running = session.state.background
    session.state = State(background=running)  # all else starts over; background tasks keep running
    if session.scenario.setup.skills:
        session.add_listing()
    session.session_start_hooks("clear")
    rec.note(f"/clear: the history is emptied; {before:,} → {rec.used:,} tokens")
    rec.close_step("clear", "/clear", note=note)
