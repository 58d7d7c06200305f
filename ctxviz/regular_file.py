"""Opening a file another program wrote without letting it block or flood ctxviz: only a regular file
is opened. A FIFO blocks a reader until someone writes into it, a device (``/dev/zero``,
``/dev/urandom``) never ends, and a ``/proc`` or ``/sys`` entry looks regular but may block
(``/proc/kmsg``) or change as it is read: each is refused before it is read, with an ``OSError`` whose
``strerror`` says what it is, so every caller's "cannot read" path reports it.

Standard library only: the statusline's fast path opens its cache through here.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from typing import BinaryIO

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(OSError):
    """A path that is not a regular file on a disk (its ``strerror`` says what it is instead)."""


@lru_cache(maxsize=1)
def _kernel_filesystems() -> frozenset[int]:
    """The devices of /proc and /sys: their entries are regular files that are not data."""
    found = set()
    for folder in ("/proc", "/sys"):
        try:
            found.add(os.stat(folder).st_dev)
        except OSError:
            continue
    return frozenset(found)


def _check(found: os.stat_result) -> None:
    for is_kind, kind in _KINDS:
        if is_kind(found.st_mode):
            raise NotRegularFile(0, f"{kind}, not a regular file: not read")
    if not stat.S_ISREG(found.st_mode) or found.st_dev in _kernel_filesystems():
        raise NotRegularFile(0, "a system file, not a regular file: not read")


def check_regular(path: str | os.PathLike[str]) -> os.stat_result:
    """``path``'s stat when it is a regular file; else ``NotRegularFile`` (an ``OSError``)."""
    found = os.stat(path)
    _check(found)
    return found


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading in binary when it is a regular file, else ``NotRegularFile``. Checked
    before opening (opening some devices acts on them) and again on what was opened (the path may have
    been replaced in between); opened non-blocking, so a FIFO put there meanwhile cannot hang the open."""
    check_regular(path)
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        _check(os.fstat(handle))
    except OSError:
        os.close(handle)
        raise
    return os.fdopen(handle, "rb")


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """A regular file's bytes, at most ``limit`` of them (a longer file is cut there: the caller that
    cares compares with ``limit``)."""
    with open_regular(path) as handle:
        return handle.read(limit)
