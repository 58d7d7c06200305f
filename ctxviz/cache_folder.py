"""Where ctxviz keeps its caches: platformdirs' user cache folder for "ctxviz".

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
