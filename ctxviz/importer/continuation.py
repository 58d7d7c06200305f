"""A session that opened as another's continuation: the earlier conversation its first call holds."""

from __future__ import annotations

from ctxviz.importer.draft import Draft, EventDraft
from ctxviz.importer.session import Compaction, Session
from ctxviz.kinds import EventKind

CONTINUED = "the earlier conversation this session continues"


def cached_prefix(session: Session) -> int | None:
    """What the prompt cache held at the first call, before any compaction, that read only a prefix of its
    input from it (under half the call before it, or of the first call itself): the start-up's part the
    session shared with others, the system prompt and tools. None: no such call."""
    before: int | None = None
    for segment in session.segments:
        if any(isinstance(item, Compaction) for item in segment.items):
            return None
        if segment.used is None:
            continue
        if segment.cache_read and segment.cache_read < (before if before is not None else segment.used) / 2:
            return segment.cache_read
        before = segment.used
    return None


def carry_over(draft: Draft, over: int, startup: int, uncached: int | None = None) -> int:
    """A session whose first call is over ``over`` opened as another's continuation: what its first call
    holds beyond a start-up of ``startup`` is that earlier conversation (history, summarised at the next
    compaction), not start-up. Where a call before the first compaction read only a prefix from the prompt
    cache, the start-up is at most that prefix plus ``uncached`` (what a start-up holds past it). The
    earlier conversation becomes a hidden prompt before the first call; returns its size."""
    first = draft.session.segments[0].used if draft.session.segments else None
    prefix = cached_prefix(draft.session) if uncached is not None else None
    reason = ""
    if prefix is not None and uncached is not None and prefix + uncached < startup:
        startup = prefix + uncached
        reason = f"; its start-up {startup:,}: {prefix:,} read from the prompt cache at most + {uncached:,}"
    if first is None or first <= over or draft.overhead <= startup:
        return 0
    carried = draft.overhead - startup
    event = EventDraft(
        EventKind.PROMPT, {"text": CONTINUED, "visibility": "hidden"}, {"size": carried}, (), carried, 0, True,
        f"the first call measured {first:,}: over {over:,}, the session continued an earlier one{reason}",
    )  # fmt: skip
    event.call_follows = False  # the first stretch's own events follow it
    draft.events.insert(0, event)
    draft.overhead -= carried
    draft.first_messages += carried
    return carried
