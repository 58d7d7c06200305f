"""A session that opened as another's continuation: the earlier conversation its first call holds."""

from __future__ import annotations

from ctxviz.importer.draft import Draft, EventDraft
from ctxviz.kinds import EventKind

CONTINUED = "the earlier conversation this session continues"


def carry_over(draft: Draft, over: int, startup: int) -> int:
    """A session whose first call is over ``over`` opened as another's continuation: what its first call
    holds beyond a start-up of ``startup`` is that earlier conversation (history, summarised at the next
    compaction), not start-up. It becomes a hidden prompt before the first call; returns its size."""
    first = draft.session.segments[0].used if draft.session.segments else None
    if first is None or first <= over or draft.overhead <= startup:
        return 0
    carried = draft.overhead - startup
    event = EventDraft(
        EventKind.PROMPT, {"text": CONTINUED, "visibility": "hidden"}, {"size": carried}, (), carried, 0, True,
        f"the first call measured {first:,}: over {over:,}, the session continued an earlier one",
    )  # fmt: skip
    event.call_follows = False  # the first stretch's own events follow it
    draft.events.insert(0, event)
    draft.overhead -= carried
    draft.first_messages += carried
    return carried
