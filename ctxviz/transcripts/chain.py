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
        if parent is None:
            # Only a session's first record has no parent; a later root (hand-made files) follows the
            # record before it rather than starting a separate conversation.
            parent_of.append(_previous_conversational(linked, n) if entry.conversational else None)
        elif parent in position and position[parent] != n:
            parent_of.append(position[parent])
        else:
            bridged += entry.parent is not None
            parent_of.append(_previous_conversational(linked, n))
    # Claude Code appends, so a parent precedes its children: one reverse pass marks call-holding subtrees.
    holds_call = [e.used is not None for e in linked]
    children: dict[int, list[int]] = {}
    for n in range(len(linked) - 1, -1, -1):
        parent = parent_of[n]
        if parent is not None and parent < n:
            holds_call[parent] = holds_call[parent] or holds_call[n]
            children.setdefault(parent, []).append(n)
    leaf = _previous_conversational(linked, len(linked))
    path: set[int] = set()
    n = len(linked) - 1 if leaf is None else leaf
    walk: int | None = n
    while walk is not None and walk not in path:
        path.add(walk)
        parent = parent_of[walk]
        walk = parent if parent is not None and parent < walk else None
    keep = set(path)
    stack = [c for p in path for c in children.get(p, ()) if c not in path and not holds_call[c]]
    while stack:
        n = stack.pop()
        keep.add(n)
        stack.extend(children.get(n, ()))
    kept_ids = {id(linked[n]) for n in keep}
    chain = [e for e in entries if not e.uuid or id(e) in kept_ids]
    notes: list[str] = []
    dropped = sum(1 for e in linked if e.conversational and id(e) not in kept_ids)
    if dropped:
        notes.append(f"{dropped} records on abandoned branches (rewinds) are not on the active chain")
    if bridged:
        notes.append(f"{bridged} records name a parent that is not in the file: joined in file order there")
    return chain, notes
