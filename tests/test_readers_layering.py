"""The readers are pure parsing: importing them (and the registry that holds them) brings in no
Textual, no Rich and no engine. And a ``sessions`` run served from the summary index loads none of
their parsing. Each runs in a fresh interpreter."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from agent_homes import FIXTURES, GROK_ID, OTHERS, copy_to

ROOT = Path(__file__).resolve().parents[1]
# What reads an agent's records into a timeline: the parsing module beside each reader.
PARSING_MODULES = tuple(
    f"ctxviz.transcripts.{name}"
    for name in (
        "codex.rollout",
        "codex.rollout_timeline",
        "pi.session",
        "gemini_cli.chat",
        "opencode.build",
        "grok_build.session",
    )
)
READER_MODULES = (
    "ctxviz.transcripts.registry",
    "ctxviz.transcripts.every_agent",
    "ctxviz.transcripts.opencode.database",
    "ctxviz.transcripts.find",
    *PARSING_MODULES,
)
# What any reading needs: the records of a file, Claude Code's summariser, the timeline they make.
READING_MODULES = (
    "ctxviz.transcripts.jsonl",
    "ctxviz.transcripts.claude_code.summary",
    "ctxviz.transcripts.assemble",
    "ctxviz.timeline",
)
_AGENT_VARIABLES = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "PI_CODING_AGENT_DIR",
                    "GROK_HOME")  # fmt: skip


def test_readers_import_no_faces_and_no_engine() -> None:
    probe = (
        f"import importlib, sys\nfor name in {READER_MODULES!r}: importlib.import_module(name)\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')"
        " or m.startswith('ctxviz.engine'))))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


# ``sessions --json``, then the modules it loaded (on stderr, after the rows).
_SESSIONS = """
import sys
from ctxviz.cli import main
main(["sessions", "--json"], standalone_mode=False)
print(",".join(sorted(m for m in sys.modules if m.startswith("ctxviz."))), file=sys.stderr)
"""


def _sessions(tmp_path: Path) -> tuple[list[str], set[str]]:
    env = {name: value for name, value in os.environ.items() if name not in _AGENT_VARIABLES}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))  # fmt: skip
    result = subprocess.run([sys.executable, "-c", _SESSIONS], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=60, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = [f"{row['agent']} {row['session']}" for row in json.loads(result.stdout)]
    return rows, set(result.stderr.strip().rsplit("\n", 1)[-1].split(","))


def test_sessions_served_from_the_index_loads_no_reader_s_parsing(tmp_path: Path) -> None:
    # Every agent's rows are kept in the index while nothing their reader read changed.
    home = tmp_path / "home"
    copy_to(FIXTURES / "claude-code" / "spotter-misc" / "short.jsonl",
            home / ".claude" / "projects" / "-home-u-app" / "short.jsonl")  # fmt: skip
    copy_to(OTHERS / "codex" / "agent-sessions_stage0_small.jsonl",
            home / ".codex" / "sessions" / "2026" / "08" / "03" / "rollout-2026-08-03-a.jsonl")  # fmt: skip
    copy_to(OTHERS / "pi" / "synthetic-branch-compaction.jsonl",
            home / ".pi" / "agent" / "sessions" / "--tmp-demo--" / "2026-08-03_a.jsonl")  # fmt: skip
    copy_to(OTHERS / "gemini-cli" / "agent-sessions_jsonl_v040.jsonl",
            home / ".gemini" / "tmp" / "demo" / "chats" / "session-2026-08-03.jsonl")  # fmt: skip
    grok = OTHERS / "grok-build" / "synthetic" / "sessions" / "%2Ftmp%2Fdemo" / GROK_ID
    shutil.copytree(grok, home / ".grok" / "sessions" / "%2Ftmp%2Fdemo" / GROK_ID)
    copy_to(OTHERS / "opencode" / "synthetic-db" / "opencode.db", home / ".local/share/opencode/opencode.db")
    cursor = home / ".cursor" / "projects" / "demo" / "agent-transcripts" / "a.jsonl"  # no usage: kept as such
    copy_to(OTHERS / "cursor" / "agent-sessions_small.jsonl", cursor)
    first, first_loaded = _sessions(tmp_path)  # reads every session, writes the index
    assert len(first) == 6
    assert set(PARSING_MODULES) <= first_loaded
    rows, loaded = _sessions(tmp_path)
    assert rows == first
    assert "ctxviz.transcripts.codex.reader" in loaded  # the readers themselves: they find the sessions
    assert sorted(loaded & {*PARSING_MODULES, *READING_MODULES}) == []
    # opencode's older storage: discovery reads each session's file (to leave out subagents' sessions)
    shutil.copytree(OTHERS / "opencode" / "agent-sessions_storage_v2", home / ".local/share/opencode/storage")
    assert len(_sessions(tmp_path)[0]) == 6  # the database holds the same sessions: listed once
    rows, loaded = _sessions(tmp_path)
    assert rows == first
    assert sorted(loaded & set(PARSING_MODULES)) == []
