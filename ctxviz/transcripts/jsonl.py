"""The reading edge shared by the non-Claude readers: a file's first bytes (for ``detect``), its JSON
records one line at a time, a whole JSON document. Damage is reported into ``problems``, located
(``file:line``), and skipped; only a file that cannot be opened at all raises ``InputError``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviz.errors import InputError, Unreadable
from ctxviz.tokens import MAX_CALL_TOKENS
from ctxviz.transcripts.lines import numbered_lines
from ctxviz.transcripts.packed import unpacked, unpacked_head
from ctxviz.transcripts.protocol import DETECT_BYTES

_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# Whole-document sessions (gemini-cli's older .json chats, opencode's files) are small; a larger one is
# not a session file.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024

Record = dict[str, Any]
if TYPE_CHECKING:
    import msgspec


@lru_cache(maxsize=1)
def _decoder() -> msgspec.json.Decoder[Any]:
    # imported on first use: ``sessions`` loads every reader, and most runs find no other agent's files
    import msgspec

    return msgspec.json.Decoder()


def head(path: Path, size: int = DETECT_BYTES) -> bytes:
    """The first bytes of a file without its UTF-8 BOM (empty when it cannot be read); of a gzip file
    (a session kept as ``.jsonl.gz``, which every reader reads as is), the first bytes it unpacks to."""
    try:
        return unpacked_head(path, size).removeprefix(_BOM)
    except OSError:
        return b""


@lru_cache(maxsize=64)
def _first_lines(path: str, size: int, mtime_ns: int) -> tuple[bytes, ...]:
    # Every reader's ``detect`` looks at the same first lines: read them once per file version.
    return tuple(head(Path(path)).split(b"\n"))


def first_records(path: Path, count: int = 20) -> list[Record]:
    """A file's first ``count`` JSON objects within its first ``DETECT_BYTES``, lines of anything else
    passed over (junk at the top does not hide whose file it is; for ``detect``: cheap, never raises)."""
    try:
        stat = path.stat()
    except OSError:
        return []
    import msgspec

    found: list[Record] = []
    decode = _decoder().decode
    for line in _first_lines(str(path), stat.st_size, stat.st_mtime_ns):
        try:
            value = decode(line)
        except (msgspec.DecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            found.append(value)
            if len(found) == count:
                break
    return found


def _check_encoding(path: Path) -> None:
    start = head(path, 4)
    if start.startswith(_UTF16_BOMS):
        raise InputError(f"{path}: the file is UTF-16; session files are UTF-8 (convert it, e.g. with iconv)")


def records(path: Path, problems: list[str]) -> Iterator[tuple[int, Record]]:
    """``(line number, object)`` for each JSON object line; anything else is reported and skipped."""
    import msgspec

    _check_encoding(path)
    decode = _decoder().decode
    for number, line, complete in numbered_lines(path, problems):
        if number == 1:
            line = line.removeprefix(_BOM)
        try:
            value = decode(line)
        except RecursionError:
            problems.append(f"{path}:{number}: JSON nested too deep to read, skipped")
            continue
        except msgspec.DecodeError as error:
            why = "incomplete last line" if not complete else f"not JSON ({error})"
            problems.append(f"{path}:{number}: {why}, skipped")
            continue
        if not isinstance(value, dict):
            problems.append(f"{path}:{number}: a JSON {type(value).__name__}, not a record, skipped")
            continue
        yield number, value


def document(path: Path) -> Record:
    """A whole-file JSON object, gzip-compressed or not (``InputError`` when it is not one)."""
    data = _whole(path)
    import msgspec

    try:
        value = _decoder().decode(data)
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deep to read") from None
    except msgspec.DecodeError as error:
        raise InputError(f"{path}: not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise InputError(f"{path}: a JSON {type(value).__name__}, not a session object")
    return value


# What a record of an unexpected shape (a list where an object belongs, a number for a text, a number
# too large for a float, nesting deeper than the stack) raises.
SHAPE_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError, RecursionError)


def each_record(
    lines: Iterable[tuple[int, Record]], where: str, problems: list[str], handle: Callable[[int, Record], None]
) -> None:
    """``handle`` each record; one of an unexpected shape is reported, located, and skipped."""
    for number, record in lines:
        try:
            handle(number, record)
        except SHAPE_ERRORS as error:
            problems.append(f"{where}:{number}: a record of an unexpected shape ({type(error).__name__}), skipped")


def kind_of(record: Record, key: str = "type") -> str | None:
    """A record's kind field when it is a string (a damaged one may hold a list or an object)."""
    value = record.get(key)
    return value if isinstance(value, str) else None


def count(value: object) -> int | None:
    """A token count of one call: an integer (not a bool) from 0 to ``MAX_CALL_TOKENS``, else None (a
    figure no API returns is damage, never shown as measured)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_CALL_TOKENS else None


def obj(value: object) -> Record:
    """``value`` when it is a JSON object, else an empty one (damaged records read as empty)."""
    return value if isinstance(value, dict) else {}


def text_size(value: object) -> int:
    """Characters of text in a JSON value: strings counted whole, containers summed, keys ignored
    (what the model reads of a tool's arguments or output, near enough). Iterative: a hostile file's
    deep nesting cannot exhaust the stack."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif item is not None and not isinstance(item, bool):
            total += len(str(item))
    return total


def part_texts(content: object) -> str:
    """The text of a message's content: a string, or the ``text`` of each part of a list, a line each."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def first_line(text: str, limit: int = 60) -> str:
    """A label from a text: its first non-blank line, cut to ``limit`` characters."""
    return text.strip().split("\n", 1)[0][:limit]


def spans_lines(path: Path) -> bool:
    """Whether the file's first record is written over several lines (pretty-printed), not one a line:
    its first line is an opening brace alone, or a start of an object that is not a whole JSON value."""
    import msgspec

    start = head(path)
    if b"\n" not in start:
        return False  # one line longer than the head: a record a line, a long one
    first = start.split(b"\n", 1)[0].strip()
    if not first.startswith(b"{"):
        return False
    try:
        _decoder().decode(first)
    except msgspec.DecodeError:
        return True
    return False


def first_spanning_record(path: Path) -> Record | None:
    """The first JSON object of a file written one object over several lines (for ``detect``: cheap,
    never raises; None when the file's first bytes hold no whole object)."""
    import json

    text = head(path).decode("utf-8", errors="replace")
    try:
        value, _ = json.JSONDecoder().raw_decode(text.lstrip())
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def spanning_records(path: Path, problems: list[str]) -> Iterator[tuple[int, Record]]:
    """``(line number, object)`` for each JSON object of a file written one object over several lines
    (the line number is the one its object starts on). Damage stops the reading there, reported: where
    the next object starts cannot be known."""
    import json
    import re

    text = document_text(path)
    decoder = json.JSONDecoder()
    blank = re.compile(r"\s*")
    at, line = 0, 1
    while True:
        start = blank.match(text, at).end()  # type: ignore[union-attr]  # \s* always matches
        line += text.count("\n", at, start)
        at = start
        if at >= len(text):
            return
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError as error:
            problems.append(f"{path}:{line}: not JSON ({error.args[0]}); the rest of the file is skipped")
            return
        if isinstance(value, dict):
            yield line, value
        else:
            problems.append(f"{path}:{line}: a JSON {type(value).__name__}, not a record, skipped")
        line += text.count("\n", at, end)
        at = end


def document_text(path: Path) -> str:
    """A whole file's text, for a document read at once (``InputError`` when too large or unreadable)."""
    return _whole(path).decode("utf-8", errors="replace")


def _whole(path: Path) -> bytes:
    """A whole file's bytes as the agent wrote them (unpacked when gzip), without a BOM; ``InputError``
    when unreadable, damaged or larger than a session file can be."""
    import zlib

    _check_encoding(path)
    try:
        data = unpacked(path, MAX_DOCUMENT_BYTES + 1).removeprefix(_BOM)
    except OSError as error:
        raise Unreadable(f"{path}: cannot read: {error.strerror or error}") from None
    except zlib.error as error:
        raise InputError(f"{path}: damaged gzip data ({error})") from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise InputError(f"{path}: more than {MAX_DOCUMENT_BYTES:,} bytes, too large for a session file")
    return data
