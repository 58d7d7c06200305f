"""``ctxviz watch`` on other agents' sessions: lines of the vendored Codex, pi, gemini-cli and grok-build
sessions appended to a growing copy, opencode's JSON tree gaining a message, its database written; and
following the newest session of any agent."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner
from textual.widgets import Label
from watching import poll_until_switched, watching

from ctxviz.cli import main
from ctxviz.live import reread
from ctxviz.live.reread import RereadSession
from ctxviz.live.session import LiveSession
from ctxviz.live.watch import Watch
from ctxviz.live.watch_app import LiveTimelineScreen, WatchApp
from ctxviz.timeline import Timeline
from ctxviz.transcripts.protocol import ref_for
from ctxviz.transcripts.registry import reader_named
from ctxviz.tui.screens.timeline_screen import TimelineScreen

OTHERS = Path(__file__).parent / "fixtures" / "other-agents"
CLAUDE = Path(__file__).parent / "fixtures" / "claude-code" / "spotter-4d5611e5"
GROK = "grok-build/synthetic/sessions/%2Ftmp%2Fdemo/019f7000-aaaa-7bbb-8ccc-000000000001/updates.jsonl"
# (agent, fixture, lines before the first call is complete, calls at the end)
GROWING = [
    ("codex", "codex/agent-sessions_stage0_small.jsonl", 22, 8),
    ("pi", "pi/synthetic-branch-compaction.jsonl", 4, 6),
    ("gemini-cli", "gemini-cli/agent-sessions_jsonl_v040.jsonl", 4, 2),
    ("grok-build", GROK, 4, 4),
]
# How long a test waits for the app's own timers to show a change: a bound for a loaded machine (two cores
# shared by many), never a latency claim; benchmarks/live.py measures how soon a change shows.
SETTLE_SECONDS = 60.0


@pytest.fixture(autouse=True)
def _never_resting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each poll here expects the change it follows to be read: no rest after a read slowed by a busy
    machine (the rest itself is tested below)."""
    monkeypatch.setattr(reread, "SLOW_READ_SECONDS", float("inf"))


def _used(timeline: Timeline | None) -> list[int]:
    assert timeline is not None
    return [s.used for s in timeline.steps]


def _copy(fixture: Path, tmp_path: Path, first: int | None = None) -> tuple[Path, list[bytes]]:
    """A copy of the fixture's folder (grok-build's session is a folder), its file cut to its first
    ``first`` lines (None: whole); and the fixture's lines."""
    folder = tmp_path / fixture.parent.name
    shutil.copytree(fixture.parent, folder)
    copy = folder / fixture.name
    lines = fixture.read_bytes().splitlines(keepends=True)
    copy.write_bytes(b"".join(lines[:first]))
    return copy, lines


class Growing(NamedTuple):
    """A growing copy of one agent's vendored session: its first ``first`` lines written so far."""

    agent: str
    fixture: Path
    file: Path
    lines: list[bytes]
    first: int
    steps: int


@pytest.fixture(params=GROWING, ids=[g[0] for g in GROWING])
def growing(request: pytest.FixtureRequest, tmp_path: Path) -> Growing:
    agent, name, first, steps = request.param
    fixture = OTHERS / name
    file, lines = _copy(fixture, tmp_path, first)
    return Growing(agent, fixture, file, lines, first, steps)


def test_a_growing_session_of_another_agent_is_followed(growing: Growing) -> None:
    agent, fixture, file, lines, first, steps = growing
    watch = Watch(file)
    assert isinstance(watch.session, RereadSession) and watch.session.reader.name == agent
    seen = watch.poll()
    assert seen is not None and seen.timeline is not None and seen.timeline.agent == agent
    assert watch.poll() is None  # nothing changed: one stat, nothing read
    middle = (first + len(lines)) // 2
    for start, end in sorted({(first, middle), (middle, len(lines))} - {(first, first)}):
        with file.open("ab") as out:
            out.write(b"".join(lines[start:end]))
        seen = watch.poll()
        assert seen is not None and seen.status == ""
    whole = reader_named(agent).timeline(ref_for(agent, fixture))
    assert seen.timeline is not None and len(seen.timeline.steps) == steps
    assert _used(seen.timeline) == _used(whole)


def test_a_truncated_codex_session_is_said_and_read_again(tmp_path: Path) -> None:
    fixture = OTHERS / "codex" / "agent-sessions_stage0_small.jsonl"
    file, lines = _copy(fixture, tmp_path)
    watch = Watch(file)
    assert watch.poll() is not None
    file.write_bytes(b"".join(lines[:30]))
    seen = watch.poll()
    assert seen is not None and seen.status == "the file was truncated: read again"
    assert len(_used(seen.timeline)) == 3
    file.unlink()
    gone = watch.poll()
    assert gone is not None and gone.timeline is None and gone.status == "file gone, last picture kept"
    assert watch.poll() is None


def test_lines_appended_show_up_in_the_app_by_its_own_polling(growing: Growing) -> None:
    agent, fixture, file, lines, first, steps = growing
    whole = reader_named(agent).timeline(ref_for(agent, fixture))

    async def run() -> None:
        watch = Watch(file)
        seen = watch.poll()
        assert seen is not None and seen.timeline is not None
        app = WatchApp(watch, seen.timeline)
        async with watching(app, size=(80, 24)) as pilot:
            for line in lines[first:]:  # one line at a time, as the agent writes them
                with file.open("ab") as out:
                    out.write(line)
                await pilot.pause(0.01)
            written = time.monotonic()
            # the app's own timer picks the lines up
            while not _showing(app, whole) and time.monotonic() - written < SETTLE_SECONDS:
                await pilot.pause(0.02)
            screen = _screen(app)
            assert _used(screen.timeline) == _used(whole) and len(screen.timeline.steps) == steps
            assert screen.index == screen.timeline.last  # following the newest step
            header = str(screen.query_one("#header-name", Label).render())
            # the figures after the state (checked against a log's own usage in test_live_watch) are left
            # out where no call records its usage (grok-build's): unknown, not 0
            state, *figures = header.split(" · ")[1:]
            assert state == "live" and all(figure.endswith("% re-sent") for figure in figures)

    asyncio.run(run())


def _showing(app: WatchApp, timeline: Timeline) -> bool:
    """Whether the app shows ``timeline``'s steps, mounted and drawn (a test that leaves earlier tears
    the new screen down mid-mount)."""
    screen = app.screen
    settled = isinstance(screen, LiveTimelineScreen) and screen.ready and screen.timeline is app.timeline
    return settled and _used(app.timeline) == _used(timeline)  # (no newer picture waiting to be shown)


def _screen(app: WatchApp) -> TimelineScreen:
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    return screen


def test_a_gemini_chat_rewritten_whole_is_read_again(tmp_path: Path) -> None:
    """gemini-cli's older chats are one JSON document, written again whole at each message: the first
    version has no reply yet (nothing to show: the watch waits and says why), the next one has."""
    fixture = OTHERS / "gemini-cli" / "agent-sessions_large.json"
    document = json.loads(fixture.read_text())
    file = tmp_path / "chats" / fixture.name
    file.parent.mkdir()
    file.write_text(json.dumps({**document, "messages": document["messages"][:1]}))
    watch = Watch(file)
    assert isinstance(watch.session, RereadSession)
    assert watch.poll() is None and "no usable" in watch.session.waiting
    file.write_text(json.dumps(document))
    later = watch.poll()
    whole = reader_named("gemini-cli").timeline(ref_for("gemini-cli", fixture))
    assert later is not None and _used(later.timeline) == _used(whole) == [100]
    assert watch.session.waiting == ""
    assert WatchApp(watch, later.timeline)._title(later.timeline) == (
        "…T23-47-b4f17607 · live · 100 sent, 0% re-sent"  # its end; one call of 100 tokens sent nothing again
    )


def test_opencode_json_tree_gaining_a_message_is_read_again(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(OTHERS / "opencode" / "agent-sessions_storage_v2", storage)
    session = storage / "session" / "proj_test" / "ses_s_stage0_large.json"
    messages = storage / "message" / "s_stage0_large"
    held = tmp_path / "held"
    held.mkdir()
    for name in ("msg_0003.json", "msg_0004.json"):  # the second exchange: not written yet
        shutil.move(messages / name, held / name)
    watch = Watch(session)
    assert isinstance(watch.session, RereadSession) and watch.session.reader.name == "opencode"
    first = watch.poll()
    assert first is not None and first.timeline is not None
    assert watch.poll() is None
    for name in ("msg_0003.json", "msg_0004.json"):  # the next exchange arrives
        shutil.move(held / name, messages / name)
    later = watch.poll()
    whole = reader_named("opencode").timeline(ref_for("opencode", session))
    assert later is not None and later.timeline is not None and first.timeline is not None
    assert (_used(later.timeline), later.timeline.notices) == (_used(whole), whole.notices)
    assert later.timeline.notices != first.timeline.notices  # the second exchange was read


def test_an_opencode_database_is_watched_through_its_write_ahead_log(tmp_path: Path) -> None:
    database = tmp_path / "opencode.db"
    shutil.copy(OTHERS / "opencode" / "synthetic-db" / "opencode.db", database)
    assert reader_named("opencode").watched_places(ref_for("opencode", database)) == [str(database), f"{database}-wal"]
    watch = Watch(database)
    assert watch.poll() is not None and watch.poll() is None
    (tmp_path / "opencode.db-wal").write_bytes(b"\0" * 32)  # opencode wrote: read again
    seen = watch.poll()
    assert seen is not None and seen.timeline is not None


def _aged(path: Path, seconds_ago: float) -> None:
    os.utime(path, (time.time() - seconds_ago, time.time() - seconds_ago))


def test_the_newest_session_of_any_agent_is_followed_and_a_newer_one_switched_to(tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude = home / ".claude" / "projects" / "-home-me-app" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    claude.parent.mkdir(parents=True)
    shutil.copy(CLAUDE / claude.name, claude)
    _aged(claude, 120)
    codex = home / ".codex" / "sessions" / "2026" / "12" / "01" / "rollout-a.jsonl"
    codex.parent.mkdir(parents=True)
    shutil.copy(OTHERS / "codex" / "agent-sessions_stage0_small.jsonl", codex)
    _aged(codex, 60)
    watch = Watch(None, newest=True, env={}, home=home)
    assert watch.path == codex
    assert Watch(None, newest=True, agent="claude-code", env={}, home=home).path == claude
    assert isinstance(Watch(claude).session, LiveSession)
    first = watch.poll()
    assert first is not None and first.timeline is not None and first.timeline.agent == "codex"
    pi = home / ".pi" / "agent" / "sessions" / "--home-me-app--" / "session.jsonl"
    pi.parent.mkdir(parents=True)
    shutil.copy(OTHERS / "pi" / "synthetic-branch-compaction.jsonl", pi)
    switched = poll_until_switched(watch)
    assert watch.path == pi
    assert switched.timeline is not None and switched.timeline.agent == "pi"
    assert switched.status.startswith("switched to the newer pi session ")


class _Clock:
    """A monotonic clock moved by hand, for the rest after a slow read: each look at it is a second later,
    so a read (a look before, one after) takes one second, however busy the machine."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now


def test_after_a_slow_read_the_next_waits_a_few_times_as_long(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    monkeypatch.setattr(reread, "time", clock)
    monkeypatch.setattr(reread, "SLOW_READ_SECONDS", 0.5)  # a read of one second is slow
    fixture = OTHERS / "codex" / "agent-sessions_stage0_small.jsonl"
    file, lines = _copy(fixture, tmp_path, 22)
    session = RereadSession(reader_named("codex"), ref_for("codex", file))
    assert session.poll().change.value == "grew"
    assert session.rest_until == clock.now + reread.REST_FACTOR * 1.0  # three times the second it took
    with file.open("ab") as out:
        out.write(b"".join(lines[22:]))
    assert session.poll().change.value == "same"  # resting: the change waits
    clock.now = session.rest_until  # the rest is over
    assert session.poll().change.value == "grew" and len(_used(session.timeline())) == 8


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--agent", "cursor"], "--agent cursor: its transcripts record no token usage"),
        (["--agent", "vim"], "choose one of: claude-code, codex, cursor, gemini-cli, grok-build, opencode, pi"),
        (["--session", "zzz"], "no session 'zzz' found"),
        (["--latest", "--agent", "pi"], "no pi sessions found"),
    ],
)
def test_watch_says_what_it_cannot_follow(
    args: list[str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no agent's folders there
    for variable in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "PI_CODING_AGENT_DIR",
                     "GROK_HOME"):  # fmt: skip
        monkeypatch.delenv(variable, raising=False)
    result = CliRunner().invoke(main, ["watch", *args])
    assert result.exit_code == 1 and said in result.output


def test_in_the_app_the_look_for_a_newer_session_runs_in_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxviz.live import watch_app

    monkeypatch.setattr(watch_app, "LOOK_SECONDS", 0.2)
    home = tmp_path / "home"
    codex = home / ".codex" / "sessions" / "2026" / "12" / "01" / "rollout-a.jsonl"
    codex.parent.mkdir(parents=True)
    shutil.copy(OTHERS / "codex" / "agent-sessions_stage0_small.jsonl", codex)
    _aged(codex, 60)

    async def run() -> None:
        watch = Watch(None, newest=True, env={}, home=home)
        seen = watch.poll()
        assert seen is not None and seen.timeline is not None
        app = WatchApp(watch, seen.timeline)
        async with watching(app, size=(80, 24)) as pilot:
            assert watch.looks_in_background
            pi = home / ".pi" / "agent" / "sessions" / "--home-me-app--" / "session.jsonl"
            pi.parent.mkdir(parents=True)
            shutil.copy(OTHERS / "pi" / "synthetic-branch-compaction.jsonl", pi)
            pi_timeline = reader_named("pi").timeline(ref_for("pi", pi))
            started = time.monotonic()
            while not _showing(app, pi_timeline) and time.monotonic() - started < SETTLE_SECONDS:
                await pilot.pause(0.05)
            assert _screen(app).timeline.agent == "pi" and watch.path == pi
            assert app.status == "switched to the newer pi session 0190aaaa"

    asyncio.run(run())


def test_watch_with_no_session_yet_waits_for_the_first_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviz.cli import live_commands
    from ctxviz.live import watch_app

    monkeypatch.setenv("HOME", str(tmp_path))
    for variable in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "PI_CODING_AGENT_DIR",
                     "GROK_HOME"):  # fmt: skip
        monkeypatch.delenv(variable, raising=False)
    codex = tmp_path / ".codex" / "sessions" / "2026" / "12" / "01" / "rollout-a.jsonl"
    naps: list[float] = []

    def nap(seconds: float) -> None:  # the session starts while watch waits
        naps.append(seconds)
        codex.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(OTHERS / "codex" / "agent-sessions_stage0_small.jsonl", codex)

    shown: list[str] = []
    monkeypatch.setattr(live_commands.time, "sleep", nap)
    monkeypatch.setattr(watch_app, "run_watch", lambda followed, timeline, status, **_: shown.append(status))
    result = CliRunner().invoke(main, ["watch"])
    assert result.exit_code == 0, result.output
    assert "no session of any agent yet; waiting for one to start" in result.output
    assert naps and shown and "codex session" in shown[0]
