"""The ``paimon`` profile: a design, not a shipped agent, from a public article on file mentions ("The
Mention File Myth in Code Agents"). A mentioned file travels in an envelope naming its path, sha256, whether
the content is full or partial, which lines and how many lines the file has; a file over a size limit sends
its head only; content already sent unchanged is not sent again (the envelope alone says so); line ranges
already covered are not resent; the table of what was sent is reset at compaction. Everything else is
claude-code's rules, so a comparison shows the mention policy alone — including what teaching it costs."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ctxviz.kinds import AgentName, BlockKind, StepKind, Touch
from ctxviz.profiles.base import CompactionPolicy, MentionPolicy, Profile, Session, StartupPolicy, number
from ctxviz.profiles.claude_code import ClaudeCodeNumbers
from ctxviz.profiles.claude_code import build as build_claude_code
from ctxviz.profiles.generic import shown
from ctxviz.profiles.limits import tokens_of
from ctxviz.profiles.policies.reads import line_range
from ctxviz.scenario.measure import Measure
from ctxviz.scenario.mentions import Mention
from ctxviz.timeline import Category, Fate

SENT = "paimon.sent"  # path → (line ranges sent, the file version they were sent at)
HASH = "0" * 64  # a sha256 is 64 hex digits; its value does not change the count

# No model has seen this convention, so it has to be taught. Our wording of the design's rules.
RULES_TEXT = (
    'File mentions arrive as <file path sha256 content lines total-lines>. content="full" holds the whole '
    'file; content="partial" holds only the lines named in lines, and total-lines gives the real length: '
    'read the rest with the Read tool. An envelope with no body and status="unchanged" means that exact '
    "content (same sha256, same lines) is already earlier in this conversation: use that copy. After a "
    "compaction nothing counts as sent."
)


@dataclass(frozen=True, slots=True)
class PaimonNumbers(ClaudeCodeNumbers):
    head_lines: int = number(200, "assumed", 'the article\'s example envelope: lines="1-200" of 1240')
    rules_tokens: int = number(
        tokens_of(RULES_TEXT), "assumed", f"our wording of the design's rules, {len(RULES_TEXT)} chars / 4"
    )


NUMBERS = PaimonNumbers()


def envelope(path: str, full: bool, lines: tuple[int, int], total: int, unchanged: bool = False) -> str:
    """The envelope's tags (without the body)."""
    content = "full" if full else "partial"
    attributes = (
        f'path="{path}" sha256="{HASH}" content="{content}" lines="{lines[0]}-{lines[1]}" total-lines="{total}"'
    )
    if unchanged:
        return f'<file {attributes} status="unchanged"/>'
    return f"<file {attributes}>\n\n</file>"


def covered(ranges: list[tuple[int, int]], want: tuple[int, int]) -> bool:
    """Whether ``want`` lies inside one range already sent (ranges are not merged: the design leaves
    merging overlaps open)."""
    return any(first <= want[0] and want[1] <= last for first, last in ranges)


@dataclass(frozen=True, slots=True)
class Envelope:
    """The dedup mention policy; a folder is listed as claude-code lists it."""

    numbers: PaimonNumbers
    folders: MentionPolicy

    def mention(self, session: Session, mention: Mention) -> None:
        if mention.is_directory:
            self.folders.mention(session, mention)
            return
        n, path = self.numbers, mention.path
        size = session.file_size(path)
        total = size.lines
        sent: dict[str, tuple[list[tuple[int, int]], int]] = session.state.policy.setdefault(SENT, {})
        ranges, version = sent.get(path, ([], -1))
        if version != session.file_version(path):  # edited or written since: a new sha256, nothing counts
            ranges = []
        if mention.lines is not None:
            want = (mention.lines[0], min(mention.lines[1], total))
        else:
            want = (1, min(total, n.head_lines))
        full = want == (1, total)
        if covered(ranges, want):
            tokens = tokens_of(envelope(path, full, want, total, unchanged=True))
            session.add(Category.MESSAGES, BlockKind.MENTION, f"{mention} (unchanged)", tokens, "brief")
            session.note(
                f"{mention}: lines {want[0]:,}–{want[1]:,} already sent, same sha256: the envelope only "
                f"({tokens:,} tokens), no content"
            )
            return
        part = line_range(size, want) if not full else size
        tokens = part.tokens + tokens_of(envelope(path, full, want, total))
        label = f"{mention} ({'full' if full else f'lines {want[0]}-{want[1]} of {total}'})"
        session.add(Category.MESSAGES, BlockKind.FILE_READ, label, tokens, "brief")
        if full:
            session.note(f"{mention}: sent in full in an envelope ({part.tokens:,} + {tokens - part.tokens:,} tokens)")
        elif mention.lines is None:
            session.note(
                f"{mention}: {total:,} lines > {shown(n, 'head_lines', 'lines')}: only the head (lines 1–"
                f"{want[1]:,}, {part.tokens:,} tokens) with total-lines={total:,} in the envelope"
            )
        else:
            session.note(f"{mention}: lines {want[0]:,}–{want[1]:,} sent ({part.tokens:,} tokens) and recorded")
        if full:
            session.state.current.add(path)  # Claude Code's read cache: a whole file was read
        session.state.touched[path] = session.order()
        sent[path] = ([*ranges, want], session.file_version(path))
        session.triggers(path, Touch.READ)


@dataclass(frozen=True, slots=True)
class ResetTable:
    """Claude Code's compaction, and the table of sent files starts over (after a summary, "sent in full"
    no longer holds)."""

    inner: CompactionPolicy

    def compact(self, session: Session, *, manual: bool, focus: str | None, summary: Measure | None) -> list[Fate]:
        table = session.state.policy.pop(SENT, {})
        if table:
            session.note(f"the table of {len(table)} sent file(s) is reset: after compaction nothing counts as sent")
        return self.inner.compact(session, manual=manual, focus=focus, summary=summary)

    def clear(self, session: Session) -> None:
        session.state.policy.pop(SENT, None)
        self.inner.clear(session)


@dataclass(frozen=True, slots=True)
class WithRules:
    """Claude Code's startup, then the mention rules the system prompt must carry."""

    inner: StartupPolicy
    rules_tokens: int

    def startup(self, session: Session, hook_source: str) -> None:
        self.inner.startup(session, hook_source)
        if session.subagent_type is None and hook_source == "startup":
            session.add(Category.SYSTEM_PROMPT, BlockKind.SYSTEM_PROMPT, "Mention rules (paimon)", self.rules_tokens)
            session.note(
                f"paimon's envelope convention is taught in the system prompt: {self.rules_tokens:,} tokens on every "
                "request (assumed: our wording)"
            )
            session.close_step(StepKind.STARTUP, "Mention rules (paimon)")


def build(n: PaimonNumbers) -> Profile:
    base = build_claude_code(n)
    return dataclasses.replace(
        base,
        name=AgentName.PAIMON,
        title="paimon (a design)",
        numbers=n,
        build=build,
        startup=WithRules(base.startup, n.rules_tokens),
        mention=Envelope(n, base.mention),
        compaction=ResetTable(base.compaction),
    )


PROFILE = build(NUMBERS)
