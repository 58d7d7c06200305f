"""``@imports`` written inside memory files (when the scenario gives their text): found outside code,
resolved relative to the importing file, loaded before it, missing ones skipped as Claude Code does."""

from __future__ import annotations

import math

from engine_helpers import blocks_of_kind, timeline

from ctxviz.scenario.model import text_imports


def test_imports_are_found_outside_code() -> None:
    text = "Style: @docs/style.md and @./local.md.\n`@in/a/span`\n```\n@in/a/fence\n```\nmail a@b.com\n"
    assert text_imports(text) == ("docs/style.md", "./local.md")


def test_written_imports_load_before_the_importing_file() -> None:
    claude = "Read @docs/style.md first.\n"
    tl = timeline(
        f"setup:\n  memory: {{CLAUDE.md: {{text: {claude!r}}}}}\nfiles:\n  docs/style.md: 400\n  docs/unused.md: 900\n"
    )
    memory = blocks_of_kind(tl, "memory-file")
    assert [(b.label, b.tokens) for b in memory] == [("docs/style.md", 400), ("CLAUDE.md", math.ceil(len(claude) / 4))]


def test_imports_resolve_relative_to_the_importer_and_skip_missing_files() -> None:
    nested = "See @./conventions.md and @../../gone.md\n"
    tl = timeline(
        "setup:\n"
        "  memory:\n"
        "    CLAUDE.md: {tokens: 100, imports: [src/api/CLAUDE.md]}\n"
        f"    src/api/CLAUDE.md: {{text: {nested!r}}}\n"
        "files:\n"
        "  src/api/conventions.md: 250\n"
    )
    labels = [b.label for b in blocks_of_kind(tl, "memory-file")]
    assert labels == ["src/api/conventions.md", "src/api/CLAUDE.md", "CLAUDE.md"]


def test_each_imported_file_says_which_file_imported_it_on_its_own_step() -> None:
    tl = timeline(
        "setup:\n"
        "  memory:\n"
        "    CLAUDE.md: {text: 'Read @docs/style.md first.'}\n"
        "    src/api/CLAUDE.md: {text: 'See @./conventions.md'}\n"
        "files:\n"
        "  docs/style.md: 400\n"
        "  src/api/conventions.md: 250\n"
    )
    notes = {s.label: s.notes for s in tl.steps if s.kind == "startup"}
    assert notes["docs/style.md"] == ("CLAUDE.md imports docs/style.md (@docs/style.md): loaded before it",)
    assert notes["src/api/conventions.md"] == (
        "src/api/CLAUDE.md imports src/api/conventions.md (@./conventions.md): loaded before it",
    )
    assert notes["CLAUDE.md"] == ()
