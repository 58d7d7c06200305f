"""Path globs as rule ``paths:`` use them, through wcmatch: ``**`` spans folders, ``*`` does not, braces
expand, ``[ab]`` is a character class, and a pattern without a slash matches the file name in any folder
(gitignore-style). A leading ``./`` or ``/`` anchors at the project root, as it already does without it."""

from __future__ import annotations

from functools import lru_cache

from wcmatch import glob

_FLAGS = glob.GLOBSTAR | glob.BRACE | glob.MATCHBASE | glob.DOTGLOB


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> glob.WcMatcher[str]:
    return glob.compile(pattern.removeprefix("./").removeprefix("/"), flags=_FLAGS)


def matches(pattern: str, path: str) -> bool:
    return bool(_compiled(pattern).match(path.removeprefix("./")))
