"""The one exception a user may see: bad input, with a message that already says where and what."""

from __future__ import annotations


class InputError(Exception):
    """Raised at the edges (loading a scenario, reading a transcript) with a message fit to print."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
