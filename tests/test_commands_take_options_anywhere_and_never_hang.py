"""Small CLI defects a newcomer met: an option only accepted in one place, a command that hung, a
column that said a kind instead of a step, a figure cut at 80 columns."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ctxviz.cli import main


def invoke(*args: str, width: int = 80) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), terminal_width=width)
    return result.exit_code, result.stdout, result.stderr


def test_tokenizer_works_after_the_subcommand_too() -> None:
    for args in (["run", "explore-context-window", "--json", "--tokenizer", "chars4"],
                 ["run", "explore-context-window", "--json", "--tokenizer=chars4"],
                 ["--tokenizer", "chars4", "run", "explore-context-window", "--json"]):  # fmt: skip
        code, out, _ = invoke(*args)
        assert code == 0 and json.loads(out)["tokenizer"] == "chars/4 estimate", args


def test_play_without_a_terminal_says_so_instead_of_hanging() -> None:
    code, _, err = invoke("play")  # CliRunner's streams are not terminals
    assert code == 1
    assert "needs a terminal" in err


def test_the_largest_items_say_since_which_step() -> None:
    code, out, _ = invoke("run", "compaction-deep-dive", "--at", "34", width=120)
    assert code == 0
    row = next(line for line in out.splitlines() if "Built-in tool definitions" in line and "tools" in line)
    assert row.rstrip().endswith("step 2")


def test_a_1m_breakdown_at_80_columns_keeps_every_percentage_whole() -> None:
    code, out, _ = invoke("run", "one-million")
    assert code == 0
    assert "Autocompact buffer  533k tokens 53.3%" in out
    assert "…" not in "".join(line for line in out.splitlines() if "tokens" in line and "%" in line)
