"""Where ctxviz keeps its caches (platformdirs' user cache folder for "ctxviz"), and how a cache file
is written.

On Linux the rule is applied here directly — ``$XDG_CACHE_HOME`` when it is an absolute path, else
``~/.cache`` — because importing platformdirs pulls in tempfile, shutil and the compression modules,
which would cost a warm ``statusline`` run more than everything else it does. Elsewhere platformdirs
decides. Standard library only: the statusline's fast path imports this module.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "ctxviz"


def user_cache_folder() -> Path:
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "")
        return Path(base if os.path.isabs(base) else os.path.expanduser("~/.cache")) / APP
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP, appauthor=False))


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``path`` whole through a file of its own, then rename it: a run reading at the same moment
    sees the old file or the new one, never half of one, and a failed write leaves no partial file
    (``OSError`` is the caller's to handle). The temporary name is this process's, so two runs writing
    at once do not share one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
