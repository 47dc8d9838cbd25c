"""Usage errors in one line with a hint, and numbers in options in ASCII digits only."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from mscsp.cli import main
from mscsp.cli.types import AsciiFloat, AsciiInt

#: (arguments, what the one line must name): each a mistake people make.
MISTAKES = [
    (["probs", "--mines", "abc"], ["'--mines'", "'abc'", "(try 'mscsp probs -h')"]),
    (["probs", "--bogus"], ["'--bogus'", "(try 'mscsp probs -h')"]),
    (["play", "--preset", "huge"], ["'--preset'", "'huge'", "(try 'mscsp play -h')"]),
    (["serve", "--port", "99999"], ["'--port'", "99999", "(try 'mscsp serve -h')"]),
    (["probs", "--mines", "\u0662"], ["'--mines'", "ASCII digits"]),  # Arabic-Indic two
    (["probs", "--mines", "\uff13"], ["'--mines'", "ASCII digits"]),  # fullwidth three
    (["play", "--size", "\u0663x\u0663", "--mines", "1"], ["'--size'", "ROWSxCOLS"]),
    (["probs", "--time-limit", "nan"], ["'--time-limit'", "not a finite number"]),
    (["serve", "--time-limit", "inf"], ["'--time-limit'", "not a finite number"]),
    (["bogus"], ["'bogus'", "(try 'mscsp -h')"]),
    (["--bogus"], ["'--bogus'", "(try 'mscsp -h')"]),
    (["learn", "train", "--steps", "x"], ["'--steps'", "(try 'mscsp learn train -h')"]),
    (["bench", "--repeat", "\u0662"], ["'--repeat'", "ASCII digits"]),
]


def invoke(args: list[str]):
    """Runs ``mscsp ARGS`` in this process, under the name users type."""
    return CliRunner().invoke(main, args, prog_name="mscsp")


@pytest.mark.parametrize(("args", "needles"), MISTAKES, ids=lambda v: " ".join(v))
def test_a_usage_error_is_one_line_with_a_hint_and_exit_2(args, needles):
    result = invoke(args)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert len(lines) == 1 and lines[0].startswith("mscsp: error: "), result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_replay_of_a_folder_is_one_line(tmp_path):
    result = invoke(["replay", str(tmp_path)])
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2
    assert len(lines) == 1 and "no replay files" in lines[0], result.stderr


def test_help_is_still_help():
    for args in (["-h"], ["probs", "-h"], ["learn"]):
        result = invoke(args)
        assert "Usage: mscsp" in result.output, args
        assert "mscsp: error" not in result.output


def test_ascii_numbers_are_read_with_their_ranges():
    assert AsciiInt(min=0).convert(" 12 ", None, None) == 12
    assert AsciiInt().convert("-3", None, None) == -3
    assert AsciiFloat(min=0).convert("2.5", None, None) == 2.5
    assert AsciiFloat(min=0).convert(1, None, None) == 1.0  # defaults arrive as numbers
    for kind, text in [
        (AsciiInt(min=0), "-1"),
        (AsciiInt(0, 250), "251"),
        (AsciiInt(), "\u0663"),
        (AsciiInt(), "1\u0663"),
        (AsciiFloat(min=0, min_open=True), "0"),
        (AsciiFloat(0.0, 1.0), "\uff10.5"),
        (AsciiFloat(), "-inf"),
    ]:
        with pytest.raises(click.BadParameter):
            kind.convert(text, None, None)


def _commands(group: click.Group, path: str = "mscsp"):
    for name, command in group.commands.items():
        yield f"{path} {name}", command
        if isinstance(command, click.Group):
            yield from _commands(command, f"{path} {name}")


def test_every_numeric_option_of_every_command_takes_ascii_digits_only():
    numeric = (click.types.IntParamType, click.types.FloatParamType)
    loose = [
        f"{path} {param.name}"
        for path, command in _commands(main)
        for param in command.params
        if isinstance(param.type, numeric) and not isinstance(param.type, AsciiInt | AsciiFloat)
    ]
    assert loose == []
