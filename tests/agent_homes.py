"""A home folder holding one session of each agent where that agent writes it, with set file times: what
a new user has after using every agent once."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
OTHERS = FIXTURES / "other-agents"
SPOTTER = "/home/marco/projects/spotter"  # the cwd the Claude Code sample records
GROK_ID = "019f7000-aaaa-7bbb-8ccc-000000000001"
T0 = 1_800_000_000.0  # a fixed clock: every file's time is set from it


def empty_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty HOME with no agent's variable set, the current folder one no session belongs to."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "PI_CODING_AGENT_DIR",
                 "GROK_HOME"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # a folder no session belongs to
    return folder


def copy_to(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target)
    return target


def every_agent(home: Path) -> dict[str, Path]:
    """One session of each agent where the agent itself would write it; the file ``context`` reports."""
    grok = home / ".grok" / "sessions" / "%2Ftmp%2Fdemo" / GROK_ID
    shutil.copytree(OTHERS / "grok-build" / "synthetic" / "sessions" / "%2Ftmp%2Fdemo" / GROK_ID, grok)
    opencode = home / ".local" / "share" / "opencode" / "storage"
    shutil.copytree(OTHERS / "opencode" / "agent-sessions_storage_v2", opencode)
    (opencode / "session" / "proj_test" / "ses_s_stage0_small.json").unlink()  # one session per agent
    files = {
        "claude-code": copy_to(FIXTURES / "claude-code" / "spotter-misc" / "short.jsonl",
                             home / ".claude" / "projects" / "-home-marco-projects-spotter" / "short.jsonl"),
        "codex": copy_to(OTHERS / "codex" / "agent-sessions_stage0_small.jsonl",
                       home / ".codex" / "sessions" / "2026" / "08" / "03" / "rollout-2026-08-03-a.jsonl"),
        "gemini-cli": copy_to(OTHERS / "gemini-cli" / "agent-sessions_jsonl_v040.jsonl",
                            home / ".gemini" / "tmp" / "demo" / "chats" / "session-2026-08-03.jsonl"),
        "opencode": opencode / "session" / "proj_test" / "ses_s_stage0_large.json",
        "pi": copy_to(OTHERS / "pi" / "synthetic-branch-compaction.jsonl",
                    home / ".pi" / "agent" / "sessions" / "--tmp-demo--" / "2026-08-03_a.jsonl"),
        "grok-build": grok / "updates.jsonl",
    }  # fmt: skip
    for age, path in enumerate(files.values()):
        os.utime(path, (T0 - 100 * (age + 1),) * 2)
    return files


def newest(path: Path, seconds: float = 0.0) -> None:
    os.utime(path, (T0 + seconds,) * 2)


def count_summaries(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many sessions each reader summarises from now on (clear it to count again)."""
    from ctxviz.transcripts.registry import READERS

    counted: Counter[str] = Counter()
    for reader in READERS:
        summarise = type(reader).summarise

        def counting(self, ref, reads, summarise=summarise):  # type: ignore[no-untyped-def]
            counted[self.name] += 1
            return summarise(self, ref, reads)

        monkeypatch.setattr(type(reader), "summarise", counting)
    return counted
