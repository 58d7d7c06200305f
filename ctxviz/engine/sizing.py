"""The size rules of MECHANICS.md as pure functions: each returns the tokens that enter the window and,
where a rule changed something, the plain-words reason with its numbers."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ctxviz.profiles import Profile
from ctxviz.scenario.model import GitStatus, Skill
from ctxviz.scenario.sizes import Measure


@dataclass(frozen=True, slots=True)
class Sized:
    tokens: int
    why: str | None = None


def git_status(profile: Profile, spec: GitStatus) -> Sized:
    chars = spec.status.chars
    cut = chars > profile.git_status_max_chars
    kept = min(chars, profile.git_status_max_chars)
    commits = min(spec.commits, profile.git_status_max_commits)
    tokens = (
        profile.git_status_header
        + math.ceil(kept / profile.chars_per_token)
        + (profile.git_status_truncation_note if cut else 0)
        + commits * profile.git_status_commit_line
    )
    why = (
        f"git status cut at {profile.git_status_max_chars:,} chars ({chars:,} chars in all), "
        f"plus {commits} recent commits"
        if cut
        else None
    )
    return Sized(tokens, why)


def auto_memory(profile: Profile, size: Measure) -> Sized:
    """MEMORY.md: the first 200 lines or 25,000 bytes, whichever comes first, plus a warning if cut."""
    kept = size
    reasons = []
    if kept.lines > profile.auto_memory_max_lines:
        reasons.append(f"{kept.lines:,} lines > {profile.auto_memory_max_lines}")
        kept = kept.scaled(profile.auto_memory_max_lines / kept.lines)
    if kept.bytes > profile.auto_memory_max_bytes:
        reasons.append(f"{kept.bytes:,} bytes > {profile.auto_memory_max_bytes:,}")
        kept = kept.scaled(profile.auto_memory_max_bytes / kept.bytes)
    if not reasons:
        return Sized(size.tokens)
    tokens = kept.tokens + profile.auto_memory_warning
    return Sized(
        tokens,
        f"MEMORY.md truncated ({'; then '.join(reasons)}): {kept.tokens:,} of {size.tokens:,} tokens loaded, "
        f"plus a {profile.auto_memory_warning}-token warning line",
    )


@dataclass(frozen=True, slots=True)
class Listing:
    tokens: int
    listed: tuple[str, ...]
    names_only: tuple[str, ...]
    unlisted: tuple[str, ...]
    why: tuple[str, ...]


def skill_listing(profile: Profile, skills: tuple[Skill, ...], window: int) -> Listing:
    """Name + description of each model-invocable skill, each description capped, the whole listing
    within 1% of the window in chars; over budget, the least-used skills are cut to their names."""
    budget = int(window * profile.chars_per_token * profile.skill_listing_budget_fraction)
    listed = [s for s in skills if not s.disable_model_invocation]
    unlisted = tuple(s.name for s in skills if s.disable_model_invocation)
    why: list[str] = []
    entry = {}
    for skill in listed:
        chars = skill.description.chars
        if chars > profile.skill_description_max_chars:
            why.append(f"{skill.name}: description cut to {profile.skill_description_max_chars:,} chars ({chars:,})")
            chars = profile.skill_description_max_chars
        entry[skill.name] = len(skill.name) + profile.skill_entry_overhead_chars + chars
    names_only: list[str] = []
    total = sum(entry.values())
    # least used first; among equals the one listed last goes first
    for skill in sorted(listed, key=lambda s: (s.uses, -listed.index(s))):
        if total <= budget:
            break
        bare = len(skill.name) + profile.skill_entry_overhead_chars
        if entry[skill.name] > bare:
            total -= entry[skill.name] - bare
            entry[skill.name] = bare
            names_only.append(skill.name)
    if names_only:
        why.append(
            f"skill listing over its budget of {budget:,} chars (1% of the window): "
            f"{', '.join(names_only)} listed by name only (least used first)"
        )
    if unlisted:
        why.append(f"not listed (disable-model-invocation): {', '.join(unlisted)}")
    tokens = math.ceil(total / profile.chars_per_token)
    return Listing(tokens, tuple(s.name for s in listed), tuple(names_only), unlisted, tuple(why))


@dataclass(frozen=True, slots=True)
class ReadOutcome:
    kind: str  # "file-read" | "error"
    tokens: int
    why: str | None


def read_file(profile: Profile, path: str, size: Measure) -> ReadOutcome:
    """The Read tool: over 256 KB or (after the 2,000-line cut) over 25,000 tokens → a short error."""
    if size.bytes > profile.read_max_bytes:
        return ReadOutcome(
            "error",
            profile.read_error,
            f"{path} not read: {size.bytes:,} bytes > {profile.read_max_bytes:,} (256 KB); "
            f"Claude gets a {profile.read_error}-token error telling it to use offset/limit",
        )
    content, why = size, None
    if size.lines > profile.read_max_lines:
        content = size.scaled(profile.read_max_lines / size.lines)
        why = f"{path}: first {profile.read_max_lines:,} of {size.lines:,} lines read ({content.tokens:,} tokens)"
    if content.tokens > profile.read_max_tokens:
        return ReadOutcome(
            "error",
            profile.read_error,
            f"{path} not read: {content.tokens:,} tokens > {profile.read_max_tokens:,}; "
            f"Claude gets a {profile.read_error}-token error telling it to use offset/limit",
        )
    return ReadOutcome("file-read", content.tokens, why)


def spill_limit(profile: Profile, tool: str) -> int:
    return min(profile.spill_limits_chars.get(tool, profile.spill_default_chars), profile.spill_cap_chars)


def preview_tokens(profile: Profile) -> int:
    return profile.spill_wrapper + math.ceil(profile.spill_preview_bytes / profile.chars_per_token)


def capped_results(count: int, cap: int, per_result: int, tool: str) -> Sized:
    if count > cap:
        return Sized(cap * per_result, f"{tool} returns at most {cap:,} results: {cap:,} of {count:,} kept")
    return Sized(count * per_result)


def summary_size(profile: Profile, requested: Measure | None) -> Sized:
    tokens = requested.tokens if requested is not None else profile.summary_tokens
    if tokens > profile.summary_max_tokens:
        return Sized(
            profile.summary_max_tokens,
            f"summary capped at {profile.summary_max_tokens:,} tokens, the compaction call's max output",
        )
    return Sized(tokens)


def hook_output(profile: Profile, size: Measure) -> Sized:
    if size.chars > profile.hook_output_max_chars:
        return Sized(
            preview_tokens(profile),
            f"hook output {size.chars:,} chars > {profile.hook_output_max_chars:,}: saved to a file, "
            f"Claude gets a {profile.spill_preview_bytes:,}-byte preview and the path",
        )
    return Sized(size.tokens)
