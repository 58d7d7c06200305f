"""The statusline's cache file: where it is, and its shape, ``<crc32> <header JSON>\n<body>``, checked
whole on reading. Standard library only: the statusline's fast path reads it, and the reader that
refreshes it (``ctxviz.live.cache``) writes it."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

CACHE_FORMAT = "ctxviz.statusline-cache/3"
# More than a cache of one session's state can hold: a larger file there is not ours, and not read whole.
MAX_CACHE_BYTES = 256 * 1024 * 1024


def cache_dir() -> Path:
    from ctxviz.cache_folder import user_cache_folder

    return user_cache_folder() / "statusline"


def cache_file(transcript: Path) -> Path:
    key = zlib.crc32(str(transcript).encode()) & 0xFFFFFFFF
    return cache_dir() / f"{transcript.stem[:64]}-{key:08x}.cache"


def pack_cache(header: dict[str, Any], body: bytes) -> bytes:
    """A cache file: ``<crc32> <header JSON>\n<body>``; the checksum covers the header and the body."""
    rest = json.dumps(header, ensure_ascii=False).encode() + b"\n" + body
    return b"%08x " % zlib.crc32(rest) + rest


def unpack_cache(data: bytes) -> tuple[dict[str, Any], bytes] | None:
    """The header and body of a cache file, or None when it is damaged in any way."""
    check, _, rest = data.partition(b" ")
    try:
        if len(check) != 8 or int(check, 16) != zlib.crc32(rest):
            return None
        head, _, body = rest.partition(b"\n")
        header = json.loads(head)
    except (ValueError, RecursionError):  # RecursionError: a header nested deeper than any we write
        return None
    return (header, body) if isinstance(header, dict) else None
