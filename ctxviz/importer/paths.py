"""Paths and text from the user's machine, made fit for a shareable scenario: inside the session's folder
a path becomes relative; the home folder becomes ``~`` unless the user keeps paths as they are."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HOME = re.compile(r"^(/home/[^/]+|/Users/[^/]+|/root)(?=/|$)")
# Claude Code names per-project folders by the encoded project path: /home/me/app → -home-me-app
_ENCODED_HOME = re.compile(r"-(home|Users)-[^-/\s]+-")
TEXT_CHARS = 80  # a prompt or command is shown by its start: the size says how big it was


@dataclass(frozen=True)
class PathStyle:
    cwd: str | None
    keep: bool = False

    @property
    def home(self) -> str | None:
        match = _HOME.match(self.cwd or "")
        return match.group(1) if match else None

    def path(self, path: str) -> str:
        if self.keep:
            return path
        if self.cwd and path.startswith(self.cwd.rstrip("/") + "/"):
            return path[len(self.cwd.rstrip("/")) + 1 :]
        home = self.home or (m.group(1) if (m := _HOME.match(path)) else None)
        if home and (path == home or path.startswith(home + "/")):
            return "~" + path[len(home) :]
        return _ENCODED_HOME.sub("-~-", path)

    def text(self, text: str, limit: int = TEXT_CHARS) -> str:
        """The first line of a prompt or command, its paths shortened as above, cut at ``limit``."""
        line = " ".join(text.strip().split("\n", 1)[0].split())
        if not self.keep:
            if self.cwd:
                line = line.replace(self.cwd.rstrip("/") + "/", "").replace(self.cwd.rstrip("/"), ".")
            line = re.sub(r"(/home/[^/\s]+|/Users/[^/\s]+|/root)(?=/|\s|$)", "~", line)
            line = _ENCODED_HOME.sub("-~-", line)
        return line if len(line) <= limit else line[: limit - 1] + "…"
