"""The one exception a user may see: bad input, with a message that already says where and what."""

from __future__ import annotations

from collections.abc import Sequence


class InputError(Exception):
    """Raised at the edges (loading a scenario, reading a transcript) with a message fit to print."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Unreadable(InputError):
    """A file or database that could not be opened or read (permissions, a lock, a failing disk): what
    went wrong can pass without the file changing, so the summary index never keeps this answer."""


# How a message about a folder given where a session's file was wanted begins (after the path). It names
# no option: only the commands that can find a session themselves add "--session / --latest".
FOLDER_GIVEN = "a folder; give a session's"


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """``; did you mean `read`?`` when a choice is close to ``word``, else an empty string."""
    import difflib  # only when a message needs it

    close = difflib.get_close_matches(word.lower(), choices, n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""
