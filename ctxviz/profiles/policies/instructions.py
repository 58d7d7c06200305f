"""Instruction files (CLAUDE.md, AGENTS.md, GEMINI.md, …): which the agent loads at startup, in what
order, with which imports and caps, and which load later when a file in their folder is touched."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxviz.profiles.base import Session

if TYPE_CHECKING:
    from ctxviz.scenario.model import FileEntry, RuleEntry


# Instruction-file names some agent reads. A memory file with one of these names loads only in the agents
# that read that name; any other file listed under setup.memory is memory the user chose, loaded by all.
KNOWN_INSTRUCTION_NAMES = frozenset(
    {"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", ".cursorrules", "GROK.md"}
)


def resolve_import(importer: str, target: str) -> str:
    """An ``@import`` path as a scenario path: relative to the importing file unless ``~/`` or ``/``."""
    if target.startswith(("~/", "/")):
        return target
    folder = posixpath.dirname(importer)
    return posixpath.normpath(posixpath.join(folder, target)) if folder else posixpath.normpath(target)


@dataclass(frozen=True, slots=True)
class ImportingMemory:
    """Memory files read whole, in ``load_order`` (``~/…`` = the user's files, ``<rules>`` = unscoped
    rules), each file's ``@imports`` loaded before it up to ``import_max_depth`` levels; files named in
    ``names`` are read, those in ``opt_in_names`` only when the scenario sets ``agents_md``; nested files
    named in ``nested_names`` load when a file in their folder is first touched (Claude Code's CLAUDE.md)."""

    names: tuple[str, ...]
    load_order: tuple[str, ...]
    nested_names: tuple[str, ...]
    config_folder: str  # the agent's own folder in a project (its files there are not "nested")
    opt_in_names: tuple[str, ...]
    import_max_depth: int

    def nested(self, files: Iterable[str]) -> list[tuple[str, str]]:
        return [
            (path.rsplit("/", 1)[0], path)
            for path in files
            if "/" in path and path.rsplit("/", 1)[1] in self.nested_names and not path.startswith(self.config_folder)
        ]

    def startup_files(self, session: Session) -> Iterator[tuple[str, int]]:
        """Lazily, so that the note saying why an imported file loads lands on that file's own step."""
        for path, entry in self._files(session):
            yield path, entry.memory_size.tokens

    def _files(self, session: Session) -> Iterator[tuple[str, FileEntry | RuleEntry]]:
        setup, order = session.scenario.setup, self.load_order
        entries: list[tuple[int, int, str, FileEntry | RuleEntry]] = []
        for n, (path, entry) in enumerate(setup.memory.items()):
            name = path.rsplit("/", 1)[-1]
            if name in self.opt_in_names and not setup.agents_md:
                session.note(f"{path} not loaded: this agent reads it only when asked (set agents_md: true to load it)")
                continue
            if name in KNOWN_INSTRUCTION_NAMES and name not in self.names and name not in self.opt_in_names:
                session.note(f"{path} not loaded: this agent does not read {name}")
                continue
            rank = next((r for r, prefix in enumerate(order) if prefix.endswith("/") and path.startswith(prefix)), None)
            if rank is None:
                rank = order.index(path) if path in order else order.index("<rules>") - 1
            entries.append((rank, n, path, entry))
        for n, (path, rule) in enumerate(setup.rules.items()):
            if not rule.paths:
                entries.append((order.index("<rules>"), n, path, rule))
        known: dict[str, FileEntry] = {**session.scenario.files, **setup.memory}
        seen: set[str] = set()

        def imports_of(path: str, entry: FileEntry | RuleEntry) -> dict[str, str]:
            """Each import's scenario path, with the ``@…`` it is written as."""
            written = {resolve_import(path, t): t for t in entry.written_imports}
            # a written @import of a file the scenario does not list is skipped, as Claude Code skips a
            # missing file; an `imports:` entry was checked when the scenario loaded
            listed: tuple[str, ...] = getattr(entry, "imports", ())
            return {t: t for t in listed} | {target: t for target, t in written.items() if target in known}

        def expand(
            path: str, entry: FileEntry | RuleEntry, depth: int, why: str | None = None
        ) -> Iterator[tuple[str, FileEntry | RuleEntry]]:
            seen.add(path)
            for target, as_written in imports_of(path, entry).items():
                if target in seen:
                    continue
                if depth + 1 > self.import_max_depth:
                    session.note(
                        f"@{target} (imported by {path}) not loaded: "
                        f"deeper than {self.import_max_depth} levels of imports"
                    )
                    continue
                imported = f"{path} imports {target} (@{as_written}): loaded before it"
                yield from expand(target, known[target], depth + 1, imported)
            if why:
                session.note(why)
            yield path, entry

        for _, _, first, top in sorted(entries, key=lambda e: (e[0], e[1])):
            if first not in seen:
                yield from expand(first, top, 0)
