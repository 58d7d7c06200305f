"""Path globs as rule ``paths:`` use them, through wcmatch: ``**`` spans folders, ``*`` does not, braces
expand, ``[ab]`` is a character class, and a pattern without a slash matches the file name in any folder
(gitignore-style). A leading ``./`` or ``/`` anchors at the project root, as it already does without it."""

from __future__ import annotations

import re
from functools import lru_cache

from wcmatch import glob

_FLAGS = glob.GLOBSTAR | glob.BRACE | glob.MATCHBASE | glob.DOTGLOB


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    # wcmatch's own matcher builds an object per call (16 µs); its translated regex matches in under 1 µs
    include, _ = glob.translate(pattern.removeprefix("./").removeprefix("/"), flags=_FLAGS)
    return re.compile("|".join(include))


@lru_cache(maxsize=8192)
def matches(pattern: str, path: str) -> bool:
    return _compiled(pattern).match(path.removeprefix("./")) is not None
