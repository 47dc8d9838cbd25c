"""One vocabulary on the command line: every option documented, the same idea spelt once.

Every command of ``mscsp`` (sub-commands included) is walked and each option checked
against the one table in code, :data:`mscsp.cli.vocabulary.VOCABULARY`, which the user
guide's table mirrors.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from mscsp.backends import get_backend
from mscsp.cli import main
from mscsp.cli.vocabulary import VOCABULARY, describe, markdown_table, shared_options
from mscsp.errors import InvalidInputError

GUIDE = Path(__file__).parents[1] / "docs" / "user-guide.md"

#: Commands that draw something at random (games, positions, layouts, batches, weights).
DRAWS = {
    "play",
    "sample",
    "bench",
    "export",
    "corpus",
    "learn data",
    "learn train",
    "learn eval",
    "learn dagger",
    "learn sweep",
    "learn ablation",
    "learn system",
}

#: Commands that solve boards with a counting backend, and those exempt, with why.
SOLVES = {"probs", "sample", "replay", "bench", "play", "learn data", "learn dagger"}
SOLVES_EXEMPT = {
    "serve": "the page picks a backend per request",
    "export": "the index's counts come from the default backend, the reference of the files",
    "learn eval": "the learner plays; --csp is the reference player",
}

#: Commands that print no result, so take no --json.
NO_RESULT = {"serve": "runs a server until Ctrl-C"}


def commands(group: click.Group = main, prefix: str = ""):
    """``(path, command)`` of every command and sub-command (``"learn data"``)."""
    for name, command in group.commands.items():
        path = f"{prefix} {name}".strip()
        if isinstance(command, click.Group):
            yield from commands(command, path)
        else:
            yield path, command


def options(command: click.Command) -> dict[str, click.Option]:
    """The command's options by every name they answer to."""
    return {
        name: param
        for param in command.params
        if isinstance(param, click.Option)
        for name in param.opts
    }


def default(param: click.Option):
    """The option's default, ``None`` where click has none (its UNSET sentinel)."""
    value = param.default
    return None if type(value).__name__ == "Sentinel" else value


ALL = dict(commands())


def test_every_visible_option_has_help_text():
    missing = [
        f"{where} {param.opts[0]}"
        for where, command in ALL.items()
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden and not param.help
    ]
    assert missing == []


@pytest.mark.parametrize("name", list(VOCABULARY))
def test_a_shared_option_has_the_tables_range_and_default_everywhere(name):
    row = VOCABULARY[name]
    found = {
        path: options(command)[name] for path, command in ALL.items() if name in options(command)
    }
    assert set(found) == set(row.commands), "commands that take it, against the table"
    for path, param in found.items():
        assert describe(param) == row.kind_for(path), path
        assert default(param) == row.default_for(path), path


def test_the_user_guide_holds_the_table():
    assert markdown_table() in GUIDE.read_text(encoding="utf-8")


def test_the_table_names_real_commands_only():
    named = {command for row in VOCABULARY.values() for command in row.commands}
    assert named <= set(ALL)


def test_json_on_every_command_that_prints_results():
    lacking = [path for path, command in ALL.items() if "--json" not in options(command)]
    assert sorted(lacking) == sorted(NO_RESULT)


def test_seed_on_every_command_that_draws():
    assert [path for path in DRAWS if "--seed" not in options(ALL[path])] == []


def test_backend_wherever_a_board_is_solved():
    assert [path for path in SOLVES if "--backend" not in options(ALL[path])] == []
    assert set(SOLVES_EXEMPT) <= set(ALL)


def make_context(command: click.Command, path: str, args: list[str]) -> click.Context:
    """``command``'s context as ``mscsp`` makes it: click caches a command's help option on
    its first context, so a bare one would leave ``mscsp probs -h`` refused afterwards."""
    return command.make_context(path, args, help_option_names=["-h", "--help"])


@pytest.mark.parametrize("path", VOCABULARY["--time-limit"].commands)
def test_time_limit_zero_is_taken_everywhere(path):
    """0 means no limit on every command, the server's included (it used to refuse 0)."""
    command = ALL[path]
    # (each required option given a value: click before 8.3 checks them while parsing)
    required = [
        word
        for param in command.params
        if isinstance(param, click.Option) and param.required
        for word in (param.opts[0], "x")
    ]
    args = ["--time-limit", "0"] + (["x.evf"] if path == "replay" else []) + required
    ctx = make_context(command, path, args)
    assert ctx.params["time_limit"] == 0.0
    with pytest.raises(click.BadParameter):
        make_context(command, path, ["--time-limit", "-1", *args[2:]])


def test_serve_takes_zero_for_every_limit():
    ctx = make_context(ALL["serve"], "serve", ["--memory-limit", "0", "--workers", "0"])
    assert ctx.params["memory_limit"] == 0
    assert 1 <= ctx.params["workers"] <= 64  # one per CPU, at most the server's most


def test_probs_and_sample_solve_with_no_time_limit():
    for command in ("probs", "sample"):
        result = CliRunner().invoke(main, [command, "--time-limit", "0", "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["probabilities"]


def test_a_negative_seed_is_a_usage_error_not_a_traceback():
    result = CliRunner().invoke(main, ["play", "--seed", "-1", "-n", "1"])
    assert result.exit_code == 2 and "--seed" in result.stderr


@pytest.mark.parametrize("path", [("play",), ("learn", "data")])
def test_shared_ideas_have_one_spelling(path):
    command = main
    for name in path:
        command = command.commands[name]
    visible = {o for p in command.params if not getattr(p, "hidden", False) for o in p.opts}
    assert {"--preset", "--size", "--mines", "--first-click", "--seed", "--workers"} <= visible
    assert {"--out"} <= visible
    assert not visible & {"--rows", "--cols", "--rule", "--log"}
    workers = next(p for p in command.params if p.name == "workers")
    assert workers.default == 1


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "abc", "1e7"])
def test_time_limit_must_be_a_finite_number_in_range(value):
    result = CliRunner().invoke(main, ["probs", "--time-limit", value])
    assert result.exit_code == 2 and "--time-limit" in result.output


@pytest.mark.parametrize(
    "options",
    [
        {"time_limit": float("nan")},
        {"time_limit": -1},
        {"time_limit": "5"},
        {"max_solutions": 0},
        {"max_solutions": -5},
        {"max_solutions": "abc"},
        {"max_solutions": 2.5},
    ],
)
def test_backend_limits_are_checked_when_the_backend_is_made(options):
    with pytest.raises(InvalidInputError, match=next(iter(options))):
        get_backend("dss", **options)


def test_valid_backend_limits_are_kept():
    backend = get_backend("dss", time_limit=2, max_solutions=10)
    assert (backend.time_limit, backend.max_solutions) == (2, 10)


# play: --backend and --max-solutions are options of their own; -o still works, warned.


def play(*args: str):
    return CliRunner().invoke(main, ["play", "-n", "3", "--seed", "5", "--json", *args])


def test_play_backend_and_max_solutions_reach_the_strategy():
    result = play("-s", "csp-limited", "--max-solutions", "7")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["config"]["options"] == {"max_solutions": 7}
    result = play("-s", "csp-minprob", "--backend", "mdd")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["config"]["options"] == {"backend": "mdd"}
    assert result.stderr == ""


def test_play_old_option_spellings_still_work_with_one_warning_line():
    new = play("-s", "csp-limited", "--max-solutions", "7")
    old = play("-s", "csp-limited", "-o", "max_solutions=7")
    assert old.exit_code == 0, old.output
    warning = [line for line in old.stderr.splitlines() if line.strip()]
    assert len(warning) == 1 and "deprecated" in warning[0] and "--max-solutions" in warning[0]
    same = ("games", "wins", "cleared", "moves", "guesses")
    assert {k: json.loads(old.stdout)[k] for k in same} == {
        k: json.loads(new.stdout)[k] for k in same
    }
    assert "--backend" in play("-o", "backend=dss").stderr


def test_play_refuses_two_values_and_strategies_that_do_not_take_them():
    both = play("-s", "csp-minprob", "--backend", "dss", "-o", "backend=mdd")
    assert both.exit_code == 2 and "disagree" in both.stderr
    sps = play("-s", "sps", "--backend", "dss")
    assert sps.exit_code == 2 and "backend" in sps.stderr
    assert play("-s", "csp-limited", "--max-solutions", "0").exit_code == 2


# sample: the map of mscsp probs, per-cell half-widths.

#: One revealed zero in the corner: its three neighbours are safe; the one mine is among the
#: twelve other cells, none next to a number, so every layout gives each of them 1/12 exactly.
ZERO_CORNER = "4x4x1\n.???\n????\n????\n????\n"


def sample(*args: str, board: str = ZERO_CORNER):
    return CliRunner().invoke(main, ["sample", "-", "--samples", "50", *args], input=board)


def test_sample_prints_probs_map_with_percent_ruler_and_legend():
    result = sample()
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("APPROXIMATE")
    assert lines[1].split() == ["0", "1", "2", "3"]  # the column ruler
    rows = [line.split() for line in lines[2:6]]
    assert [row[0] for row in rows] == ["0", "1", "2", "3"]  # the row ruler
    twelfth = f"{round(100 / 12)}%"  # one digit: a '%' tells it from a revealed number
    # The zero, then its safe neighbours: sampled, so not shown as certain ('s').
    assert rows[0][1:] == [".", "<1", twelfth, twelfth]
    assert rows[1][1:] == ["<1", "<1", twelfth, twelfth]
    assert rows[3][1:] == [twelfth] * 4
    assert "mine probability in percent" in result.stdout  # the legend of probs


def test_sample_json_half_width_is_per_cell():
    result = sample("--json", board="3x3x1\n1F?\n???\n???\n")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    widths, probs = out["half_width_95"], out["probabilities"]
    assert len(widths) == 3 and all(len(row) == 3 for row in widths)
    assert widths[0][0] is None and probs[0][0] is None  # revealed: no estimate
    assert widths[0][1] == 0 and probs[0][1] == 1.0  # a flag: a mine in every layout
    covered = [widths[r][c] for r in range(3) for c in range(3) if (r, c) not in {(0, 0), (0, 1)}]
    assert all(0 < w < 1 for w in covered)
    text = sample(board="3x3x1\n1F?\n???\n???\n").stdout
    assert f"within {100 * covered[0]:.1f} points" in text


def test_sample_backend_is_the_vocabularys_and_only_mdd_draws():
    assert sample("--backend", "mdd").exit_code == 0
    other = sample("--backend", "dss")
    assert other.exit_code == 2
    assert other.stderr.count("\n") == 1 and "mdd" in other.stderr


# Built from the table: a command names its shared options, the table gives the rest.


def test_a_command_the_table_does_not_list_cannot_take_the_option():
    with pytest.raises(LookupError, match="probs takes no --seed"):
        shared_options("probs")("--seed")


def test_a_shared_option_is_built_with_the_commands_default_and_its_words():
    @click.command()
    @shared_options("serve")("--workers", more=" here")
    def command(workers: int) -> None:
        """A command built as serve's."""

    (param,) = command.params
    assert (param.default, param.opts, param.type.max) == (2, ["--workers", "-w"], 64)
    assert param.help == "Worker processes (0: one per CPU); results do not depend on it here."
