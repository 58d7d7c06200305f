"""One agent, one place: outside an agent's own modules (its reader package ``transcripts/<agent>/``, its
profile ``profiles/<agent>.py``) and the registries that list them, no module compares an agent's name
or writes one as a literal. A caller asks the reader (or the profile) what it needs to know instead."""

from __future__ import annotations

import ast
from pathlib import Path

from ctxviz.kinds import AgentName

PACKAGE = Path(__file__).resolve().parents[1] / "ctxviz"
NAMES = {agent.value for agent in AgentName}
# The places allowed to name agents: the vocabulary, the two registries, and what is one agent's own.
REGISTRIES = {"kinds.py", "transcripts/registry.py", "profiles/__init__.py"}
# Claude Code's importer: a scenario from a Claude Code session, under its rules (its own modules).
CLAUDE_CODE_ONLY = ("importer/",)


def _own(relative: str) -> bool:
    """An agent's own module: ``transcripts/<agent>/…`` or ``profiles/<agent>.py``."""
    parts = relative.split("/")
    if relative.startswith("transcripts/") and len(parts) > 2:
        return parts[1].replace("_", "-") in NAMES
    if relative.startswith("profiles/") and len(parts) == 2:
        return parts[1].removesuffix(".py").replace("_", "-") in NAMES
    return False


def agent_names_in(source: str) -> list[str]:
    """Each ``AgentName.X`` and each string that is exactly an agent's name, with its line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "AgentName":
            found.append(f"{node.lineno}: AgentName.{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in NAMES:
            found.append(f"{node.lineno}: {node.value!r}")
    return found


def test_the_check_finds_a_name_compared_or_written() -> None:
    source = 'if reader.name == AgentName.CURSOR or agent == "grok-build":\n    pass\n'
    assert agent_names_in(source) == ["1: AgentName.CURSOR", "1: 'grok-build'"]
    assert agent_names_in('"""Claude Code\'s sessions (claude-code)."""\nx = "pi-hole"\n') == []


def test_no_module_outside_an_agents_own_names_an_agent() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in REGISTRIES or _own(relative) or relative.startswith(CLAUDE_CODE_ONLY):
            continue
        offenders += [f"{relative}:{hit}" for hit in agent_names_in(path.read_text(encoding="utf-8"))]
    assert offenders == []
