"""A continued session's start-up, from what the session knew before its compaction: 76-62d755ef9f (Claude
Code 2.1.14, vendored shrunk) opens at 146,260 as the continuation of an earlier session; its 7th call
read only 19,330 tokens from the prompt cache (the usage fell 24,024 there as old results were cleared, so
the cache held just the prefix the session shares with others: system prompt and tools). Its start-up is
at most that prefix plus what a start-up holds past it, not the 41,794 fitted to sessions that opened
fresh; after its compaction the session measured 33,441, of it 19,330 again read from the cache."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ctxviz.importer import session_to_scenario
from ctxviz.importer.continuation import cached_prefix
from ctxviz.profiles.claude_code import CLAUDE_CODE

FIXTURE = Path(__file__).parent / "fixtures" / "claude-code" / "entireio-shrunk" / "76-62d755ef9f.jsonl.gz"


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("continued") / "76-62d755ef9f.jsonl"
    path.write_bytes(gzip.decompress(FIXTURE.read_bytes()))
    return path


def _usages(path: Path) -> list[dict[str, int]]:
    """Each main-chain API call's usage, read straight from the file (deduplicated by message id)."""
    seen: set[str] = set()
    found = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        message = record.get("message") or {}
        if record.get("type") == "assistant" and message.get("usage") and message["id"] not in seen:
            seen.add(message["id"])
            found.append(message["usage"])
    return found


def test_the_prefix_is_the_cache_read_of_the_first_call_that_read_only_a_prefix(session: Path) -> None:
    usages = _usages(session)
    sizes = [u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"] for u in usages]
    assert (sizes[0], sizes[5], sizes[6], usages[6]["cache_read_input_tokens"]) == (146_260, 153_093, 129_080, 19_330)
    result = session_to_scenario(session)
    assert cached_prefix(result.draft.session) == 19_330


def test_the_start_up_is_at_most_that_prefix_and_the_uncached_rest(session: Path) -> None:
    result = session_to_scenario(session)
    assert result.draft.session.version == "2.1.14"  # before 2.1.18: the smaller remainder
    expected = 19_330 + CLAUDE_CODE.continuation_uncached
    assert expected < CLAUDE_CODE.continuation_startup
    assert result.draft.overhead == expected
    assert result.draft.first_messages + result.draft.overhead == 146_260  # the rest is the earlier conversation
