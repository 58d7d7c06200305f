"""The one rule for text read from a file (a transcript, a folder's name, a database row) on its way to a
terminal, a TUI cell, a status line or a table: the file is data written by others, never terminal input.

Terminal control characters (C0, DEL, C1) and bidirectional overrides would act on the terminal that
prints them (an OSC 52 clipboard write, a new window title, a cleared screen, text shown reversed):
each is shown as U+FFFD, visible and inert. JSON output keeps the characters but escaped (``\\u009b``),
which no terminal acts on.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline

_CONTROLS = (*range(0x20), *range(0x7F, 0xA0))
_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
_UNSAFE = {c: "\ufffd" for c in (*_CONTROLS, *_BIDI)}
_UNSAFE.update({ord("\t"): " ", ord("\n"): " "})
# Text of several lines (a step's notes) keeps its line breaks: they move the cursor, nothing more.
_UNSAFE_LINES = {**_UNSAFE, ord("\n"): "\n"}
# What JSON encoders leave raw (they escape only C0): DEL, C1 and the bidirectional overrides, in UTF-8.
_RAW_IN_JSON = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


def safe_text(text: str) -> str:
    """``text`` with nothing a terminal would act on, on one line: safe to print, in Rich or plain."""
    return text.translate(_UNSAFE) if not text.isprintable() else text


def safe_lines(text: str) -> str:
    """``safe_text`` for text of several lines: its line breaks kept."""
    return text.translate(_UNSAFE_LINES) if not text.isprintable() else text


def safe_or_none(text: str | None) -> str | None:
    return None if text is None else safe_text(text)


def safe_json(data: bytes) -> bytes:
    """JSON text (UTF-8) with the characters a terminal acts on that encoders leave raw written as
    ``\\uXXXX`` escapes: the same JSON value, inert on a terminal. They can only be inside strings."""
    if _RAW_IN_JSON.search(data) is None:
        return data
    return _RAW_IN_JSON.sub(lambda found: b"\\u%04x" % ord(found.group().decode()), data)


def safe_json_text(text: str) -> str:
    return safe_json(text.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape")


def _safe_texts(texts: tuple[str, ...], lines: bool = False) -> tuple[str, ...]:
    clean = safe_lines if lines else safe_text
    return texts if all(t.isprintable() for t in texts) else tuple(clean(t) for t in texts)


def safe_timeline(timeline: Timeline) -> Timeline:
    """``timeline`` with every text a reader took from the session made safe to show: step and block
    labels, notes, fates, model, source and notices, in subagents' timelines too. The same object when
    nothing needed it (nearly always): the check is a scan, the copy only for a hostile file."""
    from dataclasses import replace

    import msgspec

    steps = list(timeline.steps)
    for n, step in enumerate(steps):
        child = safe_timeline(step.child) if step.child is not None else None
        fates_ok = all(f.label.isprintable() and f.why.isprintable() for f in step.fates)
        if step.label.isprintable() and child is step.child and fates_ok and all(t.isprintable() for t in step.notes):
            continue
        fates = step.fates if fates_ok else tuple(
            msgspec.structs.replace(f, label=safe_text(f.label), why=safe_text(f.why)) for f in step.fates
        )  # fmt: skip
        steps[n] = msgspec.structs.replace(step, label=safe_text(step.label), notes=_safe_texts(step.notes, True),
                                           fates=fates, child=child)  # fmt: skip
    blocks = [
        b if b.label.isprintable() else msgspec.structs.replace(b, label=safe_text(b.label)) for b in timeline.blocks
    ]
    source = timeline.source
    texts = (source.name, source.path or "", source.summary or "", timeline.model)
    changed = any(a is not b for a, b in zip(steps, timeline.steps, strict=True)) or any(
        a is not b for a, b in zip(blocks, timeline.blocks, strict=True)
    )
    if not changed and all(t.isprintable() for t in (*texts, *timeline.notices)):
        return timeline
    source = replace(source, name=safe_text(source.name), path=safe_or_none(source.path),
                     summary=safe_or_none(source.summary))  # fmt: skip
    return replace(timeline, source=source, model=safe_text(timeline.model), steps=tuple(steps), blocks=tuple(blocks),
                   notices=_safe_texts(timeline.notices, True))  # fmt: skip
