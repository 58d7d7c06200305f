"""``run --json`` as the real program ends without the interpreter's teardown: its output must still be
whole, its exit code right, and its errors printed; in-process callers keep a normal exit."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from ctxviz.cli import main

ROOT = Path(__file__).resolve().parents[1]


def program(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ctxviz", *args], capture_output=True, cwd=ROOT, timeout=120)


def test_json_from_the_program_is_the_whole_document_run_in_process() -> None:
    finished = program("run", "explore-context-window", "--json")
    in_process = CliRunner().invoke(main, ["run", "explore-context-window", "--json"])
    assert finished.returncode == 0 and in_process.exit_code == 0
    assert finished.stdout == in_process.stdout_bytes
    assert finished.stdout.endswith(b"}\n") and finished.stderr == b""


def test_the_program_keeps_its_exit_codes_and_messages(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: t\nevents:\n  - read: nowhere.py\n")
    failed = program("run", str(bad), "--json")
    assert failed.returncode == 1 and failed.stdout == b""
    assert f"{bad}:3:5: events[0].read: unknown file 'nowhere.py'".encode() in failed.stderr
    usage = program("run", "explore-context-window", "--json", "--at", "999")
    assert usage.returncode == 2 and b"step 999 does not exist" in usage.stderr
    assert b"Traceback" not in failed.stderr + usage.stderr


def test_in_process_runs_keep_the_cycle_collector() -> None:
    assert gc.isenabled()
    assert CliRunner().invoke(main, ["run", "explore-context-window", "--json"]).exit_code == 0
    assert gc.isenabled()


def test_validate_and_the_table_from_the_program_are_whole(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("name: t\nevents:\n  - reply: 10\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: t\nevents:\n  - reply: -1\n")
    checked = program("validate", str(good), str(bad))
    assert checked.returncode == 1
    assert checked.stdout.decode().startswith(f"{good}: ok")
    assert f"{bad}:3:5: events[0].reply: a size cannot be negative (got -1)".encode() in checked.stderr
    assert program("validate", str(good)).returncode == 0
    table = program("run", "explore-context-window")
    assert table.returncode == 0 and b"Free space" in table.stdout and b"Autocompact buffer" in table.stdout


def test_sessions_from_the_program_prints_every_row_writes_its_index_and_says_what_it_skipped(tmp_path: Path) -> None:
    project = tmp_path / "config" / "projects" / "-home-u-app"
    project.mkdir(parents=True)
    fixture = ROOT / "tests/fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    (project / "s1.jsonl").write_bytes(fixture.read_bytes() + b'{"type": "from-the-future"}\n')
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
           "XDG_CACHE_HOME": str(tmp_path / "cache")}  # fmt: skip
    command = [sys.executable, "-m", "ctxviz", "sessions", "--json", "-v"]
    finished = subprocess.run(command, capture_output=True, cwd=ROOT, timeout=120, env=env)
    env["PYTHONPATH"] = str(ROOT)
    in_process = CliRunner(env=env).invoke(main, ["sessions", "--json", "-v"])
    assert finished.returncode == 0 and in_process.exit_code == 0
    assert finished.stdout == in_process.stdout_bytes and finished.stdout.endswith(b"]\n")
    assert b"record type 'from-the-future' not known to ctxviz, skipped" in finished.stderr
    assert (tmp_path / "cache" / "ctxviz" / "sessions-index.json").is_file()


def test_sessions_json_alone_is_answered_without_click_and_prints_what_click_prints(tmp_path: Path) -> None:
    project = tmp_path / "config" / "projects" / "-home-u-app"
    project.mkdir(parents=True)
    fixture = ROOT / "tests/fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    lines = fixture.read_bytes().splitlines(keepends=True)
    (project / "s1.jsonl").write_bytes(b"".join(lines[:400]) + b'{"type": "from-the-future"}\n{broken\n')
    (project / "s2.jsonl").write_bytes(fixture.read_bytes())
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
           "XDG_CACHE_HOME": str(tmp_path / "cache")}  # fmt: skip
    program = "import sys; sys.argv = ['ctxviz', *sys.argv[1:]]; from ctxviz.main import main; main()"
    without_click = "import sys; sys.modules['click'] = None\n" + program  # importing click now fails
    for _ in ("cold", "warm"):  # the first run writes the index, the second is served from it
        fast = subprocess.run([sys.executable, "-c", without_click, "sessions", "--json"], capture_output=True,
                              cwd=ROOT, timeout=120, env=env)  # fmt: skip
        through_click = subprocess.run([sys.executable, "-c", program, "sessions", "--json", "--no-cache"],
                                       capture_output=True, cwd=ROOT, timeout=120, env=env)  # fmt: skip
        assert fast.returncode == through_click.returncode == 0
        assert fast.stdout == through_click.stdout and len(json.loads(fast.stdout)) == 2
        assert b"2 damaged or unknown lines skipped (--verbose lists them)" in fast.stderr
        assert fast.stderr == through_click.stderr
    needs_click = subprocess.run([sys.executable, "-c", without_click, "sessions", "--json", "-v"],
                                 capture_output=True, cwd=ROOT, timeout=120, env=env)  # fmt: skip
    assert needs_click.returncode == 1 and b"ModuleNotFoundError" in needs_click.stderr  # the probe can fail
