"""A session file kept gzip-compressed (``<id>.jsonl.gz``, as people archive old sessions): every reader
reads it as the file the agent wrote, and discovery finds it by the same name with ``.gz`` after it.
What is compressed is told by the content (gzip's magic bytes); the name only decides what a folder's
walk looks at. Standard library only: discovery imports it.

Where a folder holds both ``x.jsonl`` and ``x.jsonl.gz``, the uncompressed one is the session: it is the
one the agent writes (a compressed file never grows), the other a copy kept aside."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Collection
from pathlib import Path

from ctxviz.regular_file import open_regular, read_regular

COMPRESSED = ".gz"
GZIP_MAGIC = b"\x1f\x8b"
_GZIP_WBITS = 16 + zlib.MAX_WBITS  # a gzip header and trailer around deflate


def unpacked_name(name: str) -> str:
    """A file's name as the agent wrote it: without the ``.gz`` compressing added."""
    return name[: -len(COMPRESSED)] if name.endswith(COMPRESSED) and len(name) > len(COMPRESSED) else name


def session_stem(path: Path) -> str:
    """The file's name without its suffix and without ``.gz``: ``abc`` for ``abc.jsonl`` and ``abc.jsonl.gz``."""
    return Path(unpacked_name(path.name)).stem


def named(*suffixes: str) -> Callable[[str], bool]:
    """Whether a file's name ends with one of ``suffixes``, compressed or not (``.jsonl``: ``x.jsonl``
    and ``x.jsonl.gz``)."""
    either = tuple(suffixes) + tuple(suffix + COMPRESSED for suffix in suffixes)
    return lambda name: name.endswith(either)


def shadowed(name: str, names: Collection[str]) -> bool:
    """Whether ``name`` is a compressed copy of a file that ``names`` (its folder's) also holds
    uncompressed: that one is the session, listed once."""
    return name.endswith(COMPRESSED) and unpacked_name(name) in names


def is_compressed(path: Path) -> bool:
    """Whether the file's content is gzip (whatever its name); False when it cannot be read."""
    try:
        return read_regular(path, len(GZIP_MAGIC)) == GZIP_MAGIC
    except OSError:
        return False


def unpacked_head(path: Path, size: int) -> bytes:
    """The file's first ``size`` bytes as the agent wrote them: of a gzip file, the first bytes it unpacks
    to (empty when it is damaged there). ``OSError`` when the file cannot be read."""
    with open_regular(path) as handle:
        data = handle.read(size)
        if not data.startswith(GZIP_MAGIC):
            return data
        data += handle.read(_most_packed(size) - len(data))
    try:
        return zlib.decompressobj(_GZIP_WBITS).decompress(data, size)
    except zlib.error:
        return b""


def _most_packed(size: int) -> int:
    """Compressed bytes enough to hold the first ``size`` unpacked ones: deflate grows data that will not
    compress by well under 0.5% (zlib's ``deflateBound``), gzip's header by the name it keeps (1 KB is plenty)."""
    return size + size // 1024 * 5 + 1024


def unpacked(path: Path, limit: int) -> bytes:
    """The whole file as the agent wrote it, at most ``limit`` bytes of it (a longer one is cut there:
    the caller compares with ``limit``), so that a small compressed file cannot unpack to gigabytes.
    ``OSError`` when it cannot be read; ``zlib.error`` when the compressed data is damaged."""
    data = read_regular(path, limit)
    if not data.startswith(GZIP_MAGIC):
        return data
    if len(data) == limit:  # a compressed file that large unpacks larger still
        return data
    return zlib.decompressobj(_GZIP_WBITS).decompress(data, limit)
