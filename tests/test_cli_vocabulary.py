"""One vocabulary on the command line: every option documented, the same idea spelt once."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from mscsp.backends import get_backend
from mscsp.cli import main
from mscsp.errors import InvalidInputError


def commands(group: click.Group = main, prefix: str = "mscsp"):
    for name, command in group.commands.items():
        yield f"{prefix} {name}", command
        if isinstance(command, click.Group):
            yield from commands(command, f"{prefix} {name}")


def test_every_visible_option_has_help_text():
    missing = [
        f"{where} {param.opts[0]}"
        for where, command in commands()
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden and not param.help
    ]
    assert missing == []


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


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "abc"])
def test_time_limit_must_be_a_finite_number(value):
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
