"""Which records are on the conversation the model saw: the active branch of the uuid tree.

``/rewind`` branches the tree; the active branch ends at the newest conversational leaf. Walking
``parentUuid`` back from it — across a compaction boundary through ``logicalParentUuid`` — gives the
records that reached the model. A side branch that holds no API call is kept: Claude Code hangs
parallel tool results off different records of one response, and those results were all sent; a side
branch with its own calls is a rewound attempt and is left out. Records without a uuid (minimal or very
old files) are kept in file order. A missing parent is bridged by file order (a compaction's logical
parent is often not written; a damaged line loses one), so nothing before it is lost.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxviz.transcripts.parse import Entry


def _previous_conversational(linked: Sequence[Entry], n: int) -> int | None:
    return next((m for m in range(n - 1, -1, -1) if linked[m].conversational), None)


def active_chain(entries: Sequence[Entry]) -> tuple[list[Entry], list[str]]:
    """The entries of the active branch in file order, and notes (abandoned branches, bridged gaps)."""
    linked = [e for e in entries if e.uuid]
    if not linked:
        return list(entries), []
    position = {e.uuid: n for n, e in enumerate(linked)}
    parent_of: list[int | None] = []
    bridged = 0
    for n, entry in enumerate(linked):
        parent = entry.parent if entry.parent is not None else entry.logical_parent
        at = position.get(parent) if parent is not None else None
        if at is not None and at != n:
            parent_of.append(at)
        elif parent is None and not entry.conversational:
            parent_of.append(None)
        else:
            # Only a session's first record has no parent; a later root (hand-made files) follows the
            # record before it rather than starting a conversation of its own. A parent that is not in
            # the file (a damaged line, a compaction's unwritten logical parent) is bridged the same way.
            bridged += entry.parent is not None
            parent_of.append(_previous_conversational(linked, n))
    # Claude Code appends, so a parent precedes its children: one reverse pass marks call-holding subtrees.
    holds_call = [e.used is not None for e in linked]
    for n in range(len(linked) - 1, 0, -1):
        parent = parent_of[n]
        if parent is not None and parent < n and holds_call[n]:
            holds_call[parent] = True
    leaf = _previous_conversational(linked, len(linked))
    on_path = [False] * len(linked)
    walk: int | None = len(linked) - 1 if leaf is None else leaf
    while walk is not None and not on_path[walk]:
        on_path[walk] = True
        parent = parent_of[walk]
        walk = parent if parent is not None and parent < walk else None
    # A record off the path is kept when the side branch it hangs in (its top-most ancestor off the
    # path) holds no call: one forward pass, since parents come first.
    kept = on_path[:]
    for n in range(len(linked)):
        if on_path[n]:
            continue
        parent = parent_of[n]
        if parent is None or parent >= n:
            continue
        kept[n] = kept[parent] if not on_path[parent] else not holds_call[n]
    kept_ids = {id(e) for e, keep in zip(linked, kept, strict=True) if keep}
    chain = [e for e in entries if not e.uuid or id(e) in kept_ids]
    notes: list[str] = []
    dropped = sum(1 for e, keep in zip(linked, kept, strict=True) if e.conversational and not keep)
    if dropped:
        notes.append(f"{dropped} records on abandoned branches (rewinds) are not on the active chain")
    if bridged:
        notes.append(f"{bridged} records name a parent that is not in the file: joined in file order there")
    return chain, notes
