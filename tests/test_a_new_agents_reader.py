"""Adding an agent is one package and one line in the registry: a toy agent's reader (tests/toy_agent),
put at the head of ``registry.READERS``, is served by ``sessions``, ``context``, ``watch`` and the TUI's
open screen with no other change. The expected figures are the ones the toy session records."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from agent_homes import empty_home
from toy_agent.reader import ToyReader

from ctxviz.transcripts import registry

SESSION = [
    {"toy": "session", "id": "toy-0001", "cwd": "/home/me/app"},
    {"toy": "prompt", "text": "Add a test for the parser"},
    {"toy": "call", "used": 9_000},
    {"toy": "prompt", "text": "Now make it pass"},
    {"toy": "call", "used": 12_500},
]


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


@pytest.fixture
def toy_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A home whose only session is the toy agent's, and the registry with the toy reader's one line."""
    monkeypatch.setattr(registry, "READERS", (ToyReader(), *registry.READERS))
    home = empty_home(tmp_path, monkeypatch)
    return home, _write(home / ".toy" / "app" / "toy-0001.jsonl", SESSION)


def test_sessions_lists_the_new_agents_session(toy_home: tuple[Path, Path], ctxviz_cli) -> None:  # noqa: ANN001
    result = ctxviz_cli("sessions", "--json")
    assert result.exit_code == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert (row["agent"], row["session"], row["project"]) == ("toy", "toy-0001", "/home/me/app")
    assert (row["calls"], row["peak"], row["last"]) == (2, 12_500, 12_500)
    assert "toy" in ctxviz_cli("sessions", "--help").stdout  # its folders are listed by its reader


def test_context_reads_the_new_agents_session(toy_home: tuple[Path, Path], ctxviz_cli) -> None:  # noqa: ANN001
    _, file = toy_home
    for args in ([str(file)], ["--latest"], ["--session", "toy-00"], ["--latest", "--agent", "toy"]):
        result = ctxviz_cli("context", *args, "--json")
        assert result.exit_code == 0, (args, result.stderr)
        report = json.loads(result.stdout)
        assert (report["session"], report["model"], report["used"], report["calls"]) == ("toy-0001", "toy-1", 12_500, 2)
    first = json.loads(ctxviz_cli("context", str(file), "--at", "1", "--json").stdout)
    assert first["used"] == 9_000


def test_watch_follows_the_new_agents_session(toy_home: tuple[Path, Path]) -> None:
    from ctxviz.live.watch import Watch

    home, file = toy_home
    watch = Watch(None, newest=True, env=dict(os.environ), home=home)
    assert watch.path == file
    seen = watch.poll()
    assert seen is not None and seen.timeline is not None and seen.timeline.agent == "toy"
    _write(file, [*SESSION, {"toy": "call", "used": 14_000}])
    os.utime(file, (1e9, 2e9))  # a later time: the change is seen however fast the test runs
    grown = watch.poll()
    assert grown is not None and grown.timeline is not None
    assert grown.timeline.steps[grown.timeline.last].used == 14_000


def test_the_open_screen_lists_and_opens_the_new_agents_session(toy_home: tuple[Path, Path]) -> None:
    from textual.pilot import Pilot
    from tui_driving import drive, press_and_settle, recent_sessions_listed

    from ctxviz.sources import open_timeline
    from ctxviz.tui.app import CtxvizApp
    from ctxviz.tui.screens.timeline_screen import TimelineScreen

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        sessions = await recent_sessions_listed(pilot, app)
        listed = str(sessions.get_option_at_index(0).prompt)
        # the project is not told without reading the session: the agent's name stands for it
        assert listed.startswith("toy  toy · ") and listed.endswith(" · toy-0001")
        sessions.focus()
        sessions.highlighted = 0
        screen = await press_and_settle(pilot, app, "enter")
        assert isinstance(screen, TimelineScreen)
        assert (screen.timeline.agent, screen.timeline.steps[screen.timeline.last].used) == ("toy", 12_500)

    drive(open_timeline(None), script)


def test_the_readmes_worked_example_is_this_reader() -> None:
    """Every line of the README's example reader, but those it elides (``...``), stands in the toy reader
    this test adds, comments aside: the README shows what is tested here."""
    import toy_agent.reader

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    example = readme.split("`ctxviz/transcripts/toy/reader.py`")[1].split("```python")[1].split("```")[0]

    def statement(line: str) -> str:
        return line.split("  #")[0].strip()

    reader = {statement(line) for line in Path(toy_agent.reader.__file__).read_text(encoding="utf-8").splitlines()}
    shown = [statement(line) for line in example.splitlines() if statement(line) and "..." not in line]
    assert len(shown) >= 15 and [line for line in shown if line not in reader] == []
