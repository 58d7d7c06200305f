"""What a session's later edits show of the files an automatic compaction re-read, and the replay honouring it.

The facts come from Claude Code's FileEditTool: an Edit of a file missing from the read-file cache is refused
with "File has not been read yet", and a compaction leaves in that cache only the files it re-read whole."""

from __future__ import annotations

from engine_helpers import P, added, steps_of_kind, timeline

from ctxviz.importer.paths import PathStyle
from ctxviz.importer.restores import known_restores
from ctxviz.importer.session import Compaction, Segment, Session, ToolArgs, Tools, ToolUse
from ctxviz.kinds import BlockKind

NOT_READ = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
UNCHANGED = (  # Claude Code's FILE_UNCHANGED_STUB
    "File unchanged since last read. The content from the earlier Read tool_result in this conversation is "
    "still current — refer to that instead of re-reading."
)


def _use(
    name: str, path: str, *, error: str = "", agent: str | None = None, overwrote: bool = False, stub: bool = False
) -> ToolUse:
    head = UNCHANGED if stub else error
    use = ToolUse(f"{name}-{path}", name, ToolArgs(file_path=path), 10, 10, result_head=head, error=bool(error))
    use.agent, use.overwrote = agent, overwrote
    return use


def _session(*items: object) -> Session:
    return Session((Segment(list(items)),), "claude-sonnet-4-6", "/w", "s", "2.1.20")  # type: ignore[arg-type]


def test_the_first_touch_after_each_automatic_compaction_is_the_evidence() -> None:
    session = _session(
        Tools([_use("Edit", "/w/before.py")]),  # before any compaction: shows nothing
        Compaction("auto", 160_000),
        Tools([_use("Edit", "/w/a.py"), _use("Edit", "/w/b.py", error=NOT_READ)]),
        Tools([_use("Read", "/w/c.py"), _use("Edit", "/w/c.py")]),  # read first: the edit shows nothing
        Tools([_use("Edit", "/w/d.py", agent="sub")]),  # a subagent's cache is its own
        Tools([_use("Edit", "/w/b.py")]),  # b.py was read in between (refused once): only the first touch counts
        Tools([_use("Write", "/w/f.py", overwrote=True), _use("Write", "/w/new.py")]),  # over f.py; new.py created
        Tools([_use("Read", "/w/g.py", stub=True)]),  # "unchanged since the last read": it was in the cache
        Compaction("manual", None),
        Tools([_use("Edit", "/w/e.py")]),  # after a typed /compact: its own evidence
        Compaction("auto", 160_000),
        Tools([_use("Edit", "/w/e.py", error="<tool_use_error>String to replace not found in file.")]),
        Tools([_use("Edit", "/w/h.py", error="<tool_use_error>File does not exist.")]),  # shows nothing
    )
    assert known_restores(session, PathStyle("/w", False)) == [
        (("a.py", "f.py", "g.py"), ("b.py",)),
        (("e.py",), ()),
        (("e.py",), ()),  # the refusal comes after the read check: e.py was in the cache
    ]


SCENARIO = """
files: {{big.py: 6000, small.py: 1000}}
profile: {{restore_known: {known}}}
events:
  - read: big.py
  - read: small.py
  - reply: 150000
  - reply: 5
"""


def _restored(known: str) -> dict[str, int]:
    tl = timeline(SCENARIO.format(known=known))
    (auto,) = steps_of_kind(tl, "auto-compact")
    kinds = (BlockKind.RESTORED_FILE, BlockKind.FILE_REFERENCE)
    return {b.label: b.tokens for b in added(tl, auto.index) if b.kind in kinds}


def test_without_evidence_a_file_over_the_limit_is_only_referenced() -> None:
    assert _restored("[]") == {"Restored small.py": 1_000, "Referenced file big.py": P.file_reference}


def test_a_file_shown_back_whole_comes_back_whole_whatever_its_estimated_size() -> None:
    # 6,000 > 5,000: the estimate says too big, the session's edit says it was in the cache
    assert _restored("[[2, [big.py], []]]") == {"Restored big.py": 6_000, "Restored small.py": 1_000}


def test_evidence_of_a_compaction_after_another_event_changes_nothing() -> None:
    # the session compacted after event 1; this replay compacts after event 2 (a what-if would)
    assert _restored("[[1, [big.py], []]]") == _restored("[]")


def test_a_file_shown_not_back_is_at_most_a_reference_in_its_place() -> None:
    assert _restored("[[2, [], [small.py]]]") == {
        "Referenced file small.py": P.file_reference,
        "Referenced file big.py": P.file_reference,
    }
