"""Which records are on the conversation the model saw: the active branch of the uuid tree.

``/rewind`` branches the tree; the active branch ends at the newest conversational leaf. Walking
``parentUuid`` back from it — across a compaction boundary through ``logicalParentUuid`` — gives the
records that reached the model. A side branch that holds no API call is kept: Claude Code hangs
parallel tool results off different records of one response, and those results were all sent; a side
branch with its own calls is a rewound attempt and is left out. Records without a uuid (minimal or very
old files) are kept in file order. A missing parent is bridged by file order (a compaction's logical
parent is often not written; a damaged line loses one), so nothing before it is lost.

Damage handled here: a record written twice is read once; records out of file order (a parent after
its child) are read in timestamp order; a newest record that rewinds to before the first reply leaves
no call on its branch, so the newest branch that holds a call is shown instead.

``Links`` keeps one small integer per record (not the records), so a summary of a 1 GB session stays
small; ``active_chain`` runs it over parsed entries.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Sequence
from typing import Protocol, TypeVar

NO_PARENT = -1
REWOUND_NOTE = "the newest record rewinds to before any reply: shown is the newest branch that holds an API call"
REORDERED_NOTE = "records are out of order in the file (a parent after its child): read in timestamp order"


class Linked(Protocol):
    @property
    def uuid(self) -> str | None: ...
    @property
    def parent(self) -> str | None: ...
    @property
    def logical_parent(self) -> str | None: ...
    @property
    def conversational(self) -> bool: ...
    @property
    def used(self) -> int | None: ...
    @property
    def timestamp(self) -> str | None: ...


class Links:
    """The uuid tree, built one record at a time in file order: each record's parent as an index."""

    def __init__(self) -> None:
        # keyed by each uuid's hash, not the uuid: a summary then keeps no string per record (a 1 GB
        # session has ~900k); two uuids of one file sharing a 64-bit hash is not a practical concern
        self._position: dict[int, int] = {}
        self._parent = array("q")
        self._conversational = bytearray()
        self._call = bytearray()
        self._last_conversational = NO_PARENT
        self._unresolved: list[int] = []
        self.bridged = 0
        self.duplicates = 0

    def __len__(self) -> int:
        return len(self._parent)

    def add(self, uuid: str, parent: str | None, logical_parent: str | None, conversational: bool, call: bool) -> int:
        """The record's index, or ``NO_PARENT`` for a uuid already seen (a duplicated line: read once)."""
        key = hash(uuid)
        if key in self._position:
            self.duplicates += 1
            return NO_PARENT
        n = len(self._parent)
        wanted = parent if parent is not None else logical_parent
        at = self._position.get(hash(wanted)) if wanted is not None else None
        self._position[key] = n
        if at is not None:
            self._parent.append(at)
        elif wanted is None and not conversational:
            self._parent.append(NO_PARENT)
        else:
            # Only a session's first record has no parent; a later root (hand-made files) follows the
            # record before it rather than starting a conversation of its own. A parent that is not in
            # the file (a damaged line, a compaction's unwritten logical parent) is bridged the same way.
            if wanted is not None:
                self._unresolved.append(hash(wanted))
            self.bridged += parent is not None
            self._parent.append(self._last_conversational)
        self._conversational.append(conversational)
        self._call.append(call)
        if conversational:
            self._last_conversational = n
        return n

    @property
    def out_of_order(self) -> bool:
        """A parent was written after its child: file order cannot be trusted."""
        return any(p in self._position for p in self._unresolved)

    def seal(self) -> bool:
        """Forget the uuids once every record is in (most of a summary's memory: ~90 bytes a record) and
        answer ``out_of_order``; ``kept`` still works, ``add`` and ``out_of_order`` no longer do."""
        out_of_order = self.out_of_order
        self._position = {}
        self._unresolved = []
        return out_of_order

    def _path(self, leaf: int) -> bytearray:
        on_path = bytearray(len(self._parent))
        walk = leaf
        while walk != NO_PARENT and not on_path[walk]:
            on_path[walk] = 1
            walk = self._parent[walk]
        return on_path

    def _call_above(self, leaf: int) -> bool:
        """Whether the branch ending at ``leaf`` holds a call (usually found a few records up)."""
        walk = leaf
        for _ in range(len(self._parent)):
            if walk == NO_PARENT:
                return False
            if self._call[walk]:
                return True
            walk = self._parent[walk]
        return False

    def _leaf(self) -> tuple[int, bool]:
        """The newest conversational record; if its branch holds no call but the file has some (a rewind
        to the first prompt), the newest conversational record below the newest call."""
        leaf = self._last_conversational if self._last_conversational != NO_PARENT else len(self._parent) - 1
        newest = self._call.rfind(1)
        if newest < 0 or self._call_above(leaf):
            return leaf, False
        below = bytearray(len(self._parent))
        below[newest] = 1
        found = newest
        for n in range(newest + 1, len(self._parent)):
            parent = self._parent[n]
            if parent != NO_PARENT and below[parent]:
                below[n] = 1
                if self._conversational[n]:
                    found = n
        return found, True

    def kept(self) -> tuple[bytearray, list[str]]:
        """Which records are on the active chain (1) or left out (0), and notes on what was left out."""
        count = len(self._parent)
        holds_call = bytearray(self._call)  # parents precede children: one reverse pass marks subtrees
        for n in range(count - 1, 0, -1):
            parent = self._parent[n]
            if parent != NO_PARENT and holds_call[n]:
                holds_call[parent] = 1
        leaf, rewound = self._leaf()
        kept = self._path(leaf) if count else bytearray()
        on_path = bytes(kept)
        # A record off the path is kept when the side branch it hangs in (its top-most ancestor off the
        # path) holds no call: one forward pass, since parents come first.
        for n in range(count):
            parent = self._parent[n]
            if on_path[n] or parent == NO_PARENT:
                continue
            kept[n] = kept[parent] if not on_path[parent] else not holds_call[n]
        notes: list[str] = []
        if rewound:
            notes.append(REWOUND_NOTE)
        dropped = sum(1 for n in range(count) if self._conversational[n] and not kept[n])
        if dropped:
            notes.append(f"{dropped} records on abandoned branches (rewinds) are not on the active chain")
        if self.bridged:
            notes.append(f"{self.bridged} records name a parent that is not in the file: joined in file order there")
        if self.duplicates:
            notes.append(f"{self.duplicates} records written twice in the file: read once")
        return kept, notes


def _links(linked: Sequence[Linked]) -> tuple[Links, list[int]]:
    links = Links()
    index = [links.add(e.uuid or "", e.parent, e.logical_parent, e.conversational, e.used is not None) for e in linked]
    return links, index


E = TypeVar("E", bound=Linked)


def _parents_first(entries: Sequence[E]) -> list[E]:
    """The linked entries in timestamp order with every parent before its children (a record is taken
    once its parent has been), then the unlinked ones in file order: the order Claude Code writes in."""
    linked = [e for e in entries if e.uuid]
    known = {e.uuid for e in linked}
    children: dict[str | None, list[int]] = {}
    for n, entry in enumerate(linked):
        parent = entry.parent if entry.parent is not None else entry.logical_parent
        children.setdefault(parent if parent in known and parent != entry.uuid else None, []).append(n)
    ready = [(linked[n].timestamp or "", n) for n in children.get(None, [])]
    heapq.heapify(ready)
    ordered: list[E] = []
    taken: set[str | None] = set()
    while ready:
        _, n = heapq.heappop(ready)
        entry = linked[n]
        if entry.uuid in taken:
            continue
        taken.add(entry.uuid)
        ordered.append(entry)
        for child in children.get(entry.uuid, []):
            heapq.heappush(ready, (linked[child].timestamp or "", child))
    return ordered + [e for e in entries if not e.uuid]


def active_chain(entries: Sequence[E]) -> tuple[list[E], list[str]]:
    """The entries of the active branch in file order (timestamp order when the file is out of order),
    and notes (abandoned branches, bridged gaps, duplicates, reordering)."""
    if not any(e.uuid for e in entries):
        return list(entries), []
    notes: list[str] = []
    links, index = _links([e for e in entries if e.uuid])
    if links.out_of_order:
        entries = _parents_first(entries)
        links, index = _links([e for e in entries if e.uuid])
        notes.append(REORDERED_NOTE)
    kept, chain_notes = links.kept()
    positions = iter(index)
    chain = [e for e in entries if not e.uuid or ((at := next(positions)) != NO_PARENT and kept[at])]
    return chain, notes + chain_notes
