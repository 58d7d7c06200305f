"""One agent, one place: the generic layers (reports, the CLI, the TUI) reach an agent's reader only through
the registry, never by importing an agent's package of ``ctxviz/transcripts/``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "ctxviz"
GENERIC = ("report", "cli", "tui")


def agent_packages() -> set[str]:
    return {p.name for p in (ROOT / "transcripts").iterdir() if (p / "__init__.py").exists()}


def agent_imports(package: Path, agents: set[str]) -> list[str]:
    """Every import (at any depth of a module) of ``ctxviz.transcripts.<agent>`` in ``package``."""
    found = []
    for file in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                parts = name.split(".")
                if parts[:2] == ["ctxviz", "transcripts"] and len(parts) > 2 and parts[2] in agents:
                    found.append(f"{file.relative_to(package.parent)}:{node.lineno}: {name}")
    return found


def test_generic_layers_import_no_agents_reader() -> None:
    agents = agent_packages()
    assert {"claude_code", "codex", "pi"} <= agents
    assert [hit for layer in GENERIC for hit in agent_imports(ROOT / layer, agents)] == []


def test_the_check_finds_a_lazy_import_of_an_agents_module(tmp_path: Path) -> None:
    module = tmp_path / "report" / "x.py"
    module.parent.mkdir()
    module.write_text("def f():\n    from ctxviz.transcripts.codex.rollout import x\n")
    assert agent_imports(tmp_path / "report", {"codex"}) == ["report/x.py:2: ctxviz.transcripts.codex.rollout"]
