"""Text from a transcript made safe to print: the file is data written by others, never terminal input."""

from __future__ import annotations

# Terminal control characters (C0, DEL, C1) and bidirectional overrides in transcript text would act on
# the terminal that prints them (a title change, a cleared screen): each is shown as U+FFFD instead.
_UNSAFE = {c: "\ufffd" for c in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))}
_UNSAFE.update({ord("\t"): " ", ord("\n"): " "})


def safe_text(text: str) -> str:
    """``text`` with nothing a terminal would act on: safe to print, in Rich or plain."""
    return text.translate(_UNSAFE) if not text.isprintable() else text


def safe_or_none(text: str | None) -> str | None:
    return None if text is None else safe_text(text)
