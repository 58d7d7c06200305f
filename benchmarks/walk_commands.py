"""Walk every command over every log it can be given, and over hostile input, as a user would run them.

Each command runs as its own process (the installed ``ctxviz``, or ``python -m ctxviz``) with an empty
home folder, ``NO_COLOR`` and an 80-column terminal, under a time bound. For each run it records the
exit code, whether stderr holds a Python traceback, the seconds, and checks the rules every command
keeps:

- no traceback, ever; no hang;
- bad input (exit 1) says which file, and the message is one plain line or a few, not click's usage text;
- the exit code is 0 for a readable log, 1 for bad input, 2 for a usage error — the same for the same
  kind of input across commands (the table at the end lines the hostile inputs up by command);
- text output fits 80 columns (every line's cell width);
- ``--json`` output parses and has its documented format and fields (docs/json.md);
- a measured figure of 0 (``used``/``last``/``peak`` with ``measured`` true) is flagged for a look: an
  unknown must be shown as unknown.

Inputs: every session in tests/fixtures, plus ``--logs DIR`` (repeatable: any folder of logs) and
``--corpus DIR`` (a folder of ``<agent>/…/*.jsonl.gz`` sessions; ``--per-agent N`` of each agent, the
first N by path), plus the hostile files this script writes. Everything printed goes to ``--out DIR``
(one file per run) with ``walk.json`` (every run's record) and ``walk.md`` (the findings).

    python benchmarks/walk_commands.py --out /tmp/walk                   # fixtures + hostile input
    python benchmarks/walk_commands.py --corpus CORPUS --per-agent 12 --out /tmp/walk
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.cells import cell_len

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests/fixtures"
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\w+(Error|Exception): ", re.MULTILINE)
WIDTH = 80
SECONDS = 300

# format -> the fields docs/json.md promises at the top level
JSON_FIELDS: dict[str, tuple[str, ...]] = {
    "ctxviz.timeline/1": ("source", "agent", "model", "window", "tokenizer", "notices", "thresholds", "steps",
                          "blocks", "at", "breakdown"),
    "ctxviz.context/1": ("session", "file", "model", "window", "used", "measured", "at_call", "calls", "step",
                         "thresholds", "breakdown", "items", "unrecorded_overhead", "compactions", "notices",
                         "carried"),
    "ctxviz.fidelity/1": ("session", "version", "calls", "compactions", "median_error", "p90_error", "predicted",
                          "fitted"),
    "ctxviz.audit/1": ("session", "file", "agent", "model", "measured", "calls", "input_tokens", "carried",
                       "unaccounted", "items", "categories", "findings", "cost"),
    "ctxviz.compare/1": ("scenario", "runs"),
    "ctxviz.agents/1": ("agents",),
    "ctxviz.sessions/1": ("sessions", "gave_no_session"),
}  # fmt: skip
SESSION_ENTRY = ("agent", "session", "project", "file", "started", "ended", "models", "calls", "peak", "last",
                 "measured", "compactions", "subagents", "bytes", "unmeasured_calls")  # fmt: skip


@dataclass
class Run:
    """One command as run, and what the rules found in its output."""

    input: str  # the input's short name: fixture path, corpus id or hostile kind
    kind: str  # fixture, logs, corpus or hostile
    args: list[str]
    code: int | None  # None: it did not end within the bound
    seconds: float
    traceback: bool
    stdout_lines: int
    stderr_head: str
    problems: list[str] = field(default_factory=list)
    output: str = ""  # the file holding what it printed

    @property
    def command(self) -> str:
        return self.args[0]


# -- inputs ---------------------------------------------------------------------------------------------


def fixture_sessions() -> Iterator[tuple[str, Path]]:
    """Every session file of the fixtures (subagents' files are read through their parent), and the
    opencode storage tree and database, which are sessions as folders."""
    for path in sorted(FIXTURES.rglob("*")):
        relative = path.relative_to(FIXTURES).as_posix()
        if "subagents/" in relative or "/opencode/" in relative or "/grok-build/" in relative:
            continue
        if path.is_file() and path.name.endswith((".jsonl", ".json", ".jsonl.gz")):
            yield relative, path
    for path in sorted((FIXTURES / "other-agents/grok-build").rglob("*")):
        if path.name in ("chat_history.jsonl", "updates.jsonl"):
            yield path.relative_to(FIXTURES).as_posix(), path
    yield "other-agents/opencode/synthetic-db/opencode.db", FIXTURES / "other-agents/opencode/synthetic-db/opencode.db"


def folder_logs(folder: Path) -> Iterator[tuple[str, Path]]:
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if "subagents/" in relative or "storage_v2/" in relative:  # opencode keeps a session as a tree
            continue
        if path.is_file() and path.name.endswith((".jsonl", ".json", ".jsonl.gz")):
            yield f"{folder.name}/{relative}", path


def corpus_sessions(corpus: Path, per_agent: int) -> Iterator[tuple[str, Path]]:
    for agent in sorted(p for p in corpus.iterdir() if p.is_dir()):
        for path in sorted(agent.rglob("*.jsonl.gz"))[:per_agent]:
            yield path.relative_to(corpus).as_posix(), path


def hostile_inputs(folder: Path) -> dict[str, Path]:
    """Files written to break a reader: each kind of damage a user's disk can hold."""
    claude = (FIXTURES / "claude-code/spotter-misc/short.jsonl").read_text(encoding="utf-8")
    lines = claude.splitlines()
    records, big = [json.loads(line) for line in lines], b"a" * 2_000_000
    made = {
        "empty file": ("empty.jsonl", b""),
        "binary file": ("binary.jsonl", bytes(range(256)) * 64),
        "truncated last line": ("truncated.jsonl", "\n".join([*lines[:-1], lines[-1][: len(lines[-1]) // 2]]).encode()),
        "2 MB single line": ("one-line.jsonl", b'{"type":"user","message":{"role":"user","content":"%s"}}' % big),
        "2 MB of junk, no newline": ("junk.jsonl", b"x" * 2_000_000),
        "JSON array": ("array.jsonl", json.dumps(records).encode()),
        "JSON array, indented": ("array-indented.json", json.dumps(records, indent=2).encode()),
        "not UTF-8": ("latin1.jsonl", claude.replace("a", "\u00e9", 3).encode("latin-1", "replace")),
        "gzip, damaged": ("damaged.jsonl.gz", gzip.compress(claude.encode())[:200]),
    }  # fmt: skip
    paths: dict[str, Path] = {}
    for kind, (name, data) in made.items():
        paths[kind] = folder / name
        paths[kind].write_bytes(data)
    paths["a directory"] = folder / "a-folder"
    paths["a directory"].mkdir()
    paths["a missing path"] = folder / "missing.jsonl"
    return paths


# -- commands -------------------------------------------------------------------------------------------


def session_commands(path: Path) -> list[list[str]]:
    """Every command that takes a session, text and --json."""
    p = str(path)
    return [
        ["context", p], ["context", p, "--json"], ["context", p, "--at", "1"],
        ["import", p, "-o", "{tmp}/imported.yaml"], ["fidelity", p], ["fidelity", p, "--json"],
        ["audit", p], ["audit", p, "--json"],
        ["run", p], ["run", p, "--json"], ["compare", p, "--table"], ["compare", p, "--json"],
    ]  # fmt: skip


def wrong_agent_commands(path: Path, agent: str) -> list[list[str]]:
    p = str(path)
    return [
        ["context", p, "--agent", agent],
        ["run", p, "--agent", agent],
        ["compare", p, "--table", "--agents", agent],
    ]


def plain_commands() -> list[list[str]]:
    """Commands that take no session: each once, and every command's --help."""
    names = ["agents", "audit", "compare", "context", "fidelity", "import", "play", "run", "scenarios", "schema",
             "screenshot", "serve", "sessions", "statusline", "validate", "watch"]  # fmt: skip
    return [
        *([name, "--help"] for name in names),
        ["--help"], ["agents"], ["agents", "--json"], ["agents", "--no-numbers"], ["agents", "nobody"],
        ["scenarios"], ["scenarios", "--json"], ["sessions"], ["sessions", "--json"], ["sessions", "--json-object"],
        ["sessions", "--agent", "nobody"], ["sessions", "--since", "2026-13-45"],
        ["sessions", "--root", str(FIXTURES), "-v"], ["sessions", "--root", str(FIXTURES), "--json-object"],
        ["sessions", "--root", str(FIXTURES), "--json"],
        ["context", "--latest"], ["import", "--latest"], ["fidelity", "--latest"], ["audit", "--latest"],
        ["context", "--session", "nope"], ["run", "no-such-scenario"], ["run", "mention-myth"],
        ["run", "mention-myth", "--json"], ["run", "mention-myth", "--at", "999"],
        ["run", "mention-myth", "--set", "window=-3"],
        ["compare", "mention-myth", "--table"], ["compare", "mention-myth", "--json"],
        ["compare", "mention-myth", "--agents", "nobody"], ["validate", str(ROOT / "scenarios")],
    ]  # fmt: skip


def statusline_inputs(session: Path) -> list[tuple[str, str]]:
    return [
        ("statusline: no stdin", ""),
        ("statusline: junk stdin", "not json"),
        ("statusline: a session", json.dumps({"transcript_path": str(session), "session_id": "x"})),
        ("statusline: a missing session", json.dumps({"transcript_path": "/nonexistent.jsonl"})),
    ]


# -- the rules ------------------------------------------------------------------------------------------


def json_problems(args: list[str], stdout: str) -> list[str]:
    try:
        document = json.loads(stdout)
    except ValueError as error:
        return [f"--json output does not parse: {error}"]
    if args[0] == "scenarios":
        return []  # a list of names; no format is documented
    if isinstance(document, list):  # sessions --json: a bare list
        return [f"a session entry lacks {missing}" for entry in document[:50] for missing in SESSION_ENTRY
                if missing not in entry][:3]  # fmt: skip
    format_name = document.get("format") if isinstance(document, dict) else None
    if format_name not in JSON_FIELDS:
        return [f"--json output has no documented format: {format_name!r}"]
    problems = [f"{format_name} lacks {name}" for name in JSON_FIELDS[format_name] if name not in document]
    return problems + unknown_as_zero(format_name, document)


def unknown_as_zero(format_name: str, document: dict[str, Any]) -> list[str]:
    """A measured 0 is almost always an unknown shown as a number."""
    if format_name == "ctxviz.context/1" and document.get("measured") and document.get("used") == 0:
        return ["context: used 0 marked measured"]
    if format_name == "ctxviz.sessions/1":
        return [f"sessions: {s.get('session')} peak/last 0 marked measured" for s in document["sessions"]
                if s.get("measured") and 0 in (s.get("peak"), s.get("last"))]  # fmt: skip
    if format_name == "ctxviz.fidelity/1":
        zeros = [c["call"] for c in document.get("calls") or [] if c.get("measured") == 0]
        return [f"fidelity: calls {zeros[:5]} measured 0"] if zeros else []
    return []


def text_problems(stdout: str) -> list[str]:
    wide = [line for line in stdout.splitlines() if cell_len(line) > WIDTH]
    if not wide:
        return []
    return [f"{len(wide)} line(s) wider than {WIDTH}: {wide[0][:100]!r}"]


def error_problems(args: list[str], code: int | None, stderr: str, input_path: Path | None) -> list[str]:
    if code == 1 and input_path is not None and input_path.name not in stderr:
        return [f"bad input not named: {stderr.strip()[:120]!r}"]
    if code == 1 and not stderr.strip():
        return ["exit 1 with nothing on stderr"]
    return []


# -- running --------------------------------------------------------------------------------------------


def ctxviz_command() -> list[str]:
    installed = Path(sys.executable).with_name("ctxviz")
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "ctxviz"]


class Walker:
    def __init__(self, out: Path, seconds: float) -> None:
        self.out = out
        self.seconds = seconds
        self.runs: list[Run] = []
        self.scratch = Path(tempfile.mkdtemp(prefix="ctxviz-walk-"))
        home = self.scratch / "home"
        home.mkdir()
        self.env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(self.scratch / "cache"),
                    "XDG_DATA_HOME": str(home / ".local/share"), "NO_COLOR": "1", "COLUMNS": str(WIDTH),
                    "LINES": "24", "TERM": "dumb"}  # fmt: skip
        for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "GROK_HOME", "PI_CODING_AGENT_DIR"):
            self.env.pop(name, None)

    def run(self, name: str, kind: str, args: list[str], input_path: Path | None = None, stdin: str = "") -> Run:
        args = [a.replace("{tmp}", str(self.scratch)) for a in args]
        started = time.perf_counter()
        try:
            done = subprocess.run([*ctxviz_command(), *args], input=stdin, capture_output=True, text=True,
                                  errors="replace", env=self.env, timeout=self.seconds, cwd=self.scratch)  # fmt: skip
            code, stdout, stderr = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as timeout:
            code, stdout, stderr = None, str(timeout.stdout or ""), str(timeout.stderr or "")
        seconds = time.perf_counter() - started
        problems = [] if code is not None else [f"no end within {self.seconds:.0f} s"]
        if TRACEBACK.search(stderr):
            problems.append("traceback on stderr")
        if code == 0 and "--json" in args or code == 0 and "--json-object" in args:
            problems += json_problems(args, stdout)
        elif code == 0 and args[0] not in ("schema",):
            problems += text_problems(stdout)
        problems += error_problems(args, code, stderr, input_path)
        record = Run(name, kind, args, code, round(seconds, 2), bool(TRACEBACK.search(stderr)),
                     stdout.count("\n"), stderr.strip()[:300], problems)  # fmt: skip
        record.output = f"{len(self.runs):04d}.txt"
        shown = " ".join(a.replace(str(self.scratch), "$TMP") for a in args)
        printed = f"--- stdout\n{stdout[:20000]}\n--- stderr\n{stderr[:5000]}\n"
        (self.out / record.output).write_text(f"$ ctxviz {shown}\n# exit {code}, {seconds:.2f} s\n{printed}")
        self.runs.append(record)
        mark = "!" if problems else "."
        print(f"{mark} {code} {seconds:6.2f}s ctxviz {shown[:110]}", flush=True)
        for problem in problems:
            print(f"    {problem}", flush=True)
        return record


def walk(walker: Walker, inputs: list[tuple[str, str, Path]], quick: bool) -> None:
    for args in plain_commands():
        walker.run("-", "plain", args)
    other_agent = {"claude-code": "codex"}
    for kind, name, path in inputs:
        commands = session_commands(path)
        if quick:
            commands = [c for c in commands if c[0] in ("context", "fidelity", "audit") and "--json" in c]
        for args in commands:
            walker.run(name, kind, args, path)
        wrong = other_agent.get(name.split("/")[0], "claude-code")
        if kind == "fixture":
            for args in wrong_agent_commands(path, wrong):
                walker.run(name, kind, args, path)
    hostile = hostile_inputs(walker.scratch)
    for name, path in hostile.items():
        for args in session_commands(path):
            walker.run(name, "hostile", args, path)
        walker.run(name, "hostile", ["validate", str(path)], path)
        walker.run(name, "hostile", ["play", str(path), "--agent", "nobody"], path)
    codex = FIXTURES / "other-agents/codex/ccusage-session-alpha.jsonl"
    for args in wrong_agent_commands(codex, "claude-code") + wrong_agent_commands(codex, "pi"):
        walker.run("codex rollout as another agent's", "hostile", args, codex)
    for name, stdin in statusline_inputs(FIXTURES / "claude-code/spotter-misc/short.jsonl"):
        walker.run(name, "hostile", ["statusline", "--debug"], None, stdin)


def summary(runs: list[Run]) -> str:
    lines = ["# Command walk", ""]
    by_command: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        by_command[run.command].append(run)
    lines += ["| command | runs | exit 0 | exit 1 | exit 2 | other | tracebacks | with problems | max s |",
              "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for command, group in sorted(by_command.items()):
        codes = [r.code for r in group]
        lines.append(
            f"| {command} | {len(group)} | {codes.count(0)} | {codes.count(1)} | {codes.count(2)} | "
            f"{sum(c not in (0, 1, 2) for c in codes)} | {sum(r.traceback for r in group)} | "
            f"{sum(bool(r.problems) for r in group)} | {max(r.seconds for r in group):.1f} |"
        )
    lines += ["", "## Hostile input: exit code by command", ""]
    hostile = [r for r in runs if r.kind == "hostile"]
    kinds = list(dict.fromkeys(r.input for r in hostile))
    commands = list(dict.fromkeys(" ".join(a for a in r.args[:1] + r.args[2:] if "/" not in a) for r in hostile))
    table: dict[tuple[str, str], int | None] = {}
    for r in hostile:
        table[r.input, " ".join(a for a in r.args[:1] + r.args[2:] if "/" not in a)] = r.code
    for kind in kinds:
        by_command_code = {c: table[kind, c] for c in commands if (kind, c) in table}
        lines.append(f"- {kind}: " + ", ".join(f"{c} {code}" for c, code in by_command_code.items()))
    lines += ["", "## Problems", ""]
    for run in runs:
        for problem in run.problems:
            lines.append(f"- `{' '.join(run.args[:1])}` on {run.input} ({run.output}): {problem}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="folder for what each run printed, walk.json, walk.md")
    parser.add_argument("--logs", type=Path, action="append", default=[], help="a folder of logs (repeatable)")
    parser.add_argument("--corpus", type=Path, help="a folder of <agent>/…/*.jsonl.gz sessions")
    parser.add_argument("--per-agent", type=int, default=12, help="corpus sessions per agent")
    parser.add_argument("--no-fixtures", action="store_true", help="leave out tests/fixtures")
    parser.add_argument("--quick", action="store_true", help="only context, fidelity and audit --json per log")
    parser.add_argument("--seconds", type=float, default=SECONDS, help="the bound on each command")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    inputs: list[tuple[str, str, Path]] = []
    if not options.no_fixtures:
        inputs += [("fixture", name, path) for name, path in fixture_sessions()]
    for folder in options.logs:
        inputs += [("logs", name, path) for name, path in folder_logs(folder)]
    if options.corpus:
        inputs += [("corpus", name, path) for name, path in corpus_sessions(options.corpus, options.per_agent)]
    walker = Walker(options.out, options.seconds)
    try:
        walk(walker, inputs, options.quick)
    finally:
        (options.out / "walk.json").write_text(json.dumps([asdict(r) for r in walker.runs], indent=1), encoding="utf-8")
        (options.out / "walk.md").write_text(summary(walker.runs), encoding="utf-8")
        shutil.rmtree(walker.scratch, ignore_errors=True)
    print(f"{len(walker.runs)} runs, {sum(bool(r.problems) for r in walker.runs)} with problems: {options.out}/walk.md")


if __name__ == "__main__":
    main()
