"""Compaction: what survives when the history is replaced. ``SummaryAndRecentFiles`` is Claude Code's
(docs/numbers.md, "What a compaction keeps"): a summary, then up to N recent files re-read, invoked
skills, the plan, the instruction files and the skill listing re-injected, each with its fate and the
reason."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from ctxviz.fates import summarised_by_kind
from ctxviz.kinds import BlockKind, Touch
from ctxviz.profiles.base import Session
from ctxviz.profiles.policies.startup import GIT_STATUS_BLOCK, SkillListingRule
from ctxviz.scenario.measure import Measure
from ctxviz.timeline import Category, Fate

M = Category.MESSAGES
Fits = Callable[[int], bool]
_WHY_GONE = {
    BlockKind.RULE: "path-scoped rule: gone until a matching file is touched again",
    BlockKind.NESTED_MEMORY: "nested instruction file: gone until a file in its folder is touched again",
    BlockKind.SPILLED_OUTPUT: "the full outputs stay on disk",
    BlockKind.HOOK_OUTPUT: "summarised with the rest",
    BlockKind.SKILL_BODY: "invoked skills come back below",
    BlockKind.FILE_READ: "recent files are re-read below",
    BlockKind.PLAN: "the plan file comes back below",
    BlockKind.SUMMARY: "summarised again",
}
_SKILL_LISTING = BlockKind.SKILL_LISTING
_DROPPED = frozenset((BlockKind.RULE, BlockKind.NESTED_MEMORY))
_WHY_KEPT = {
    Category.SYSTEM_PROMPT: "not history: sent with every request",
    Category.SYSTEM_TOOLS: "not history: sent with every request",
    Category.MCP_TOOLS: "not history: sent with every request",
    Category.CUSTOM_AGENTS: "not history: sent with every request",
    Category.MEMORY_FILES: "read from disk again (current content)",
}


_AUTOMATIC = "compaction.automatic"  # the key of the automatic compactions' count in the session's policy memory


@dataclass(frozen=True, slots=True)
class SummarySize:
    """A summary's size: the one a /compact asks for, else the n-th automatic compaction's own
    (``each``, as a session recorded them), else ``default``."""

    default: int
    max: int
    each: tuple[int, ...] = ()

    def of(self, requested: Measure | None, automatic: int = 0) -> tuple[int, str | None]:
        if requested is not None:
            tokens = requested.tokens
        else:
            tokens = self.each[automatic] if automatic < len(self.each) else self.default
        if tokens > self.max:
            return self.max, f"summary capped at {self.max:,} tokens, the compaction call's max output"
        return tokens, None


@dataclass(frozen=True, slots=True)
class RestoreEvidence:
    """What a session's later events show of the files re-read by its compaction at scenario event
    ``after_event`` (the event an automatic one followed, a typed /compact's own): ``back`` came back whole
    (edited with no read since), ``not_back`` did not (an edit refused as unread). A replay that compacts
    elsewhere (a what-if, or a drift) learns nothing here."""

    after_event: int = -1
    back: tuple[str, ...] = ()
    not_back: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SummaryAndRecentFiles:
    summary: SummarySize
    max_files: int
    max_tokens_per_file: int
    total_tokens: int
    file_reference: int
    skill_max_tokens: int
    skills_total_tokens: int
    task_status: int
    skills: SkillListingRule | None
    # tokens a Read adds per line (its line numbers): the per-file limit counts the file's content only
    line_number_tokens: int = 0
    # Claude Code also clears old tool results between calls (microcompact): an event's ``cleared`` applies
    clears_old_results: bool = True
    # the session's own events put back what each compaction restored (newer transcripts record it): the
    # files, plan and skills are not chosen here, or they would be counted twice
    restores_recorded: bool = False
    # paths (fnmatch patterns) never among the files re-read: memory files and the plan come back their own way
    never_restored: tuple[str, ...] = ()
    # an imported session's own evidence, by the event its compactions followed: it overrules the order and
    # the size check, which the transcript cannot settle (the files' modification times are not recorded)
    known: tuple[RestoreEvidence, ...] = ()

    def compact(self, session: Session, *, manual: bool, focus: str | None, summary: Measure | None) -> list[Fate]:
        state, threshold = session.state, session.thresholds.autocompact
        fates: list[Fate] = []
        history = 0
        summarised: list[tuple[str, int]] = []
        git_status = state.policy.get(GIT_STATUS_BLOCK)
        remove = session.remove
        # a long session's compaction removes hundreds of blocks: the kinds compared are module constants,
        # as looking up an enum member costs more than the rest of a pass
        for block in session.live():
            if block.category is M or block.kind == _SKILL_LISTING:
                if block.category is M:
                    history += block.tokens
                remove(block.id)
                if block.kind == _SKILL_LISTING:
                    fates.append(
                        Fate(block.label, block.kind, "reinjected", block.tokens, "rebuilt from current skills")
                    )
                elif block.kind in _DROPPED:
                    fates.append(
                        Fate(block.label, block.kind, "dropped", block.tokens, _WHY_GONE[BlockKind(block.kind)])
                    )
                else:
                    summarised.append((block.kind, block.tokens))
            else:
                kept = "a fresh snapshot" if block.id == git_status else _WHY_KEPT[block.category]
                if block.category is Category.MEMORY_FILES:
                    fates.append(Fate(block.label, block.kind, "reinjected", block.tokens, kept))
                else:
                    fates.append(Fate(block.label, block.kind, "kept", block.tokens, kept))
        fates += summarised_by_kind(summarised, lambda kind: _WHY_GONE.get(BlockKind(kind), "replaced by the summary"))
        state.loaded_rules.clear()
        state.loaded_nested.clear()
        state.current.clear()
        state.crossed_warning = False

        automatic: int | None = None  # this one's place among the automatic compactions, from 0
        if not manual:
            automatic = state.policy.get(_AUTOMATIC, 0)
            state.policy[_AUTOMATIC] = automatic + 1
        tokens, capped = self.summary.of(summary, automatic or 0)
        label = "Summary of the conversation" + (f" (focus: {focus})" if focus else "")
        session.add(M, BlockKind.SUMMARY, label, tokens, "brief")
        fates.append(Fate("Summary", BlockKind.SUMMARY, "new", tokens, capped or "the new start of the history"))
        session.note(f"{history:,} tokens of history replaced by a {tokens:,}-token summary")
        if capped:
            session.note(capped)

        # what is re-injected in any case, added after the files and skills that must leave room for it
        setup = session.scenario.setup
        listing = self.skills.listing(setup.skills, session.window).tokens if self.skills else 0
        hooks = sum(session.hook_tokens(hook) for hook in session.hooks("SessionStart", "compact"))
        later = [self.task_status * len(state.background) + (state.plan or 0) + listing + hooks]

        def fits(tokens: int) -> bool:
            """Re-injected content must not put an automatic compaction straight back over its threshold."""
            return manual or threshold is None or session.used + tokens + later[0] < threshold

        if self.restores_recorded:
            state.touched = {}  # the read-file cache starts over with the files the session's events put back
        else:
            known = next((k for k in self.known if k.after_event == session.event_index), RestoreEvidence())
            self._restore_files(session, fates, fits, known)
        for task in state.background:
            session.add(M, BlockKind.NOTIFICATION, f"Still running: {task.label}", self.task_status, "hidden")
            fates.append(
                Fate(
                    task.label,
                    BlockKind.NOTIFICATION,
                    "reinjected",
                    self.task_status,
                    "still running: the model is told",
                )
            )
        if state.plan is not None and not self.restores_recorded:
            state.plan_block = session.add(M, BlockKind.PLAN, "Plan (from disk)", state.plan, "hidden")
            fates.append(Fate("Plan", BlockKind.PLAN, "reinjected", state.plan, "the plan file is re-read from disk"))
        later[0] = listing + hooks
        if not self.restores_recorded:
            self._restore_skills(session, fates, fits)
        if setup.skills and self.skills is not None:
            self.skills.add(session)
        session.session_start_hooks("compact")
        return fates

    def _restore_files(self, session: Session, fates: list[Fate], fits: Fits, known: RestoreEvidence) -> None:
        state = session.state
        touched = state.touched
        recent = sorted(self.restore_candidates(session), key=lambda f: (f not in known.back, -touched[f]))
        state.touched = {}  # the read-file cache starts over with just the files restored
        total = 0
        for n, path in enumerate(recent):
            measure = session.file_size(path)
            size = measure.tokens
            if n >= self.max_files:
                why = f"only the {self.max_files} most recent files are re-read"
                fates.append(Fate(path, BlockKind.FILE_READ, "not-restored", 0, why))
                continue
            referenced = self.comes_back_referenced(session, path, known)
            tokens = self.file_reference if referenced else size
            # a restored file goes through the read path: the rules and nested memory it brings count too
            brings = 0 if referenced else sum(t.tokens for t in session.triggered_by(path, Touch.READ))
            if total + tokens > self.total_tokens or not fits(tokens + brings):
                why = (
                    f"restored files are capped at {self.total_tokens:,} in all"
                    if total + tokens > self.total_tokens
                    else "would put the context back over the threshold"
                )
                fates.append(Fate(path, BlockKind.FILE_READ, "not-restored", 0, why))
                continue
            total += tokens
            if referenced:
                session.add(M, BlockKind.FILE_REFERENCE, f"Referenced file {path}", tokens, "hidden")
                why = (
                    "the session's later edits show it did not come back whole: at most a one-line reference"
                    if path in known.not_back
                    else f"{size:,} > {self.max_tokens_per_file:,} tokens: a one-line reference, no content"
                )
                fates.append(Fate(path, BlockKind.FILE_REFERENCE, "referenced", tokens, why))
                continue
            session.read(path, label=f"Restored {path}", mention=True, kind=BlockKind.RESTORED_FILE)
            # a restored file is not "unchanged since the last read": real sessions re-read it in full
            state.current.discard(path)
            state.touched[path] = touched[path]  # keeps its place in the recency order
            why = f"recently read or edited (#{n + 1} most recent), ≤ {self.max_tokens_per_file:,}"
            fates.append(Fate(path, BlockKind.RESTORED_FILE, "restored", tokens, why))
        if recent:
            session.note(
                f"{min(len(recent), self.max_files)} recent files considered for re-reading, most recent "
                f"first ({total:,} tokens restored)"
            )

    def restore_candidates(self, session: Session) -> list[str]:
        """The files of the read-file cache a compaction may re-read (memory files and the plan never)."""
        memory = set(session.scenario.setup.memory)
        return [path for path in session.state.touched if path not in memory and not self._never_restored(path)]

    def comes_back_referenced(self, session: Session, path: str, known: RestoreEvidence) -> bool:
        """Whether ``path``, if chosen, comes back as a one-line reference only: over the per-file limit (its
        content, not the line numbers a Read adds) unless the session shows it came back whole, or shown not
        to have come back whole."""
        measure = session.file_size(path)
        over = measure.tokens - self.line_number_tokens * measure.lines > self.max_tokens_per_file
        return (over and path not in known.back) or path in known.not_back

    def _never_restored(self, path: str) -> bool:
        return any(fnmatchcase(path, pattern) for pattern in self.never_restored)

    def _restore_skills(self, session: Session, fates: list[Fate], fits: Fits) -> None:
        state = session.state
        bodies = {s.name: s.body.tokens for s in session.scenario.setup.skills}
        total = 0
        for name in sorted(state.invoked_skills, key=lambda s: -state.invoked_skills[s]):
            body = bodies[name]
            tokens = min(body, self.skill_max_tokens)
            if total + tokens > self.skills_total_tokens or not fits(tokens):
                why = (
                    f"skills are capped at {self.skills_total_tokens:,} in all; older ones are dropped first"
                    if total + tokens > self.skills_total_tokens
                    else "would put the context back over the threshold"
                )
                fates.append(Fate(f"Skill: {name}", BlockKind.SKILL_BODY, "not-restored", 0, why))
                continue
            total += tokens
            session.add(M, BlockKind.SKILL_BODY, f"Skill: {name} (re-injected)", tokens, "hidden")
            if tokens < body:
                why = f"{body:,} > {self.skill_max_tokens:,} per skill: the start is kept"
                fates.append(Fate(f"Skill: {name}", BlockKind.SKILL_BODY, "truncated", tokens, why))
            else:
                why = "invoked skill, re-injected whole"
                fates.append(Fate(f"Skill: {name}", BlockKind.SKILL_BODY, "reinjected", tokens, why))

    def clear(self, session: Session) -> None:
        for block in session.live():
            if block.category is M or block.kind == BlockKind.SKILL_LISTING:
                session.remove(block.id)
        if session.scenario.setup.skills and self.skills is not None:
            self.skills.add(session)
