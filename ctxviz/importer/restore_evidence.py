"""What a session's own later events show of the files each compaction re-read.

Claude Code's read-file cache starts over at a compaction with just the files it re-read whole, and an
Edit of a file missing from that cache is refused ("File has not been read yet"), as is a Write over an
existing one. So the first time a file is touched after a compaction, an Edit that went through (or was
refused for a reason checked only after that: the file changed since it was read, the text to replace not
found or found more than once) or a Write over the file shows it came back whole; such a call refused as
unread shows it did not. Versions that answer a Read of an unchanged file already in the cache with a short
stub show it too: a stub means the file came back. Transcripts up to 2.1.96 record nothing else of the
choice, which Claude Code makes by the stamps its cache keeps.
Subagents keep caches of their own, so their calls show nothing here.
"""

from __future__ import annotations

from ctxviz.importer.paths import PathStyle
from ctxviz.importer.session import Compaction, Session, Tools, is_unchanged_stub

_EDITS = frozenset({"Edit", "MultiEdit"})
_FILE_TOOLS = _EDITS | {"Read", "Write", "NotebookEdit"}
_NOT_READ = "has not been read yet"  # FileEditTool: the file is not in the read-file cache
# refusals Claude Code's FileEditTool gives only once the file passed that check: it was in the cache
_PAST_THE_CHECK = (
    "has been modified since read",  # it is, but the file changed on disk since
    "String to replace not found",
    "matches of the string to replace",
)


def known_restores(session: Session, style: PathStyle) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """For each compaction in turn, automatic or typed: the files shown to have come back whole, and those
    shown not to have (paths as the scenario writes them)."""
    found: list[tuple[list[str], list[str]]] = []
    seen: set[str] = set()
    current: tuple[list[str], list[str]] | None = None
    for segment in session.segments:
        for item in segment.items:
            if isinstance(item, Compaction):
                current = ([], [])  # each compaction starts the cache over: what follows tells of this one
                found.append(current)
                seen = set()
            elif isinstance(item, Tools) and current is not None:
                back, not_back = current
                for use in item.calls:
                    path = use.args.file_path or use.args.notebook_path
                    if not path or use.agent is not None or use.name not in _FILE_TOOLS:
                        continue
                    key = style.path(path)
                    if key in seen:
                        continue
                    seen.add(key)
                    if use.error and _NOT_READ in use.result_head:
                        not_back.append(key)  # an Edit, or a Write over an existing file
                    elif (
                        (use.name in _EDITS and (not use.error or any(t in use.result_head for t in _PAST_THE_CHECK)))
                        or (use.overwrote and not use.error)
                        or is_unchanged_stub(use)
                    ):
                        back.append(key)
    return [(tuple(back), tuple(not_back)) for back, not_back in found]
