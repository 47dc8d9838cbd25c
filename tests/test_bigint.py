"""Counts past Python's 4,300-digit conversion guard: every output keeps them exact."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

import mscsp
from mscsp.bigint import MAX_DIGITS, fraction_text, from_decimal, readable, to_decimal
from mscsp.cli import main
from mscsp.errors import InvalidInputError
from mscsp.evaluation.families import generate
from mscsp.explain import explain_probability


@pytest.fixture(scope="module")
def huge() -> mscsp.Board:
    """An opened 130x130 board at 40 %: about 5,000 digits of layouts."""
    board = generate("game", 130, 130, 0.4, seed=0, step=0)
    assert board is not None
    return board


def test_round_trip_past_the_guard() -> None:
    number = 7**9000 + 1  # 7,606 digits
    with pytest.raises(ValueError):
        str(number)  # the interpreter's guard, which the project must not trip over
    text = to_decimal(number)
    assert len(text) == 7606 and text.endswith(str(7**9000 % 10**6 + 1))
    assert from_decimal(text) == number
    assert sys.get_int_max_str_digits() == 4300  # the guard is back in place
    assert fraction_text(Fraction(number, 3)) == f"{text}/3"
    assert fraction_text(Fraction(6, 3)) == "2"


@pytest.mark.parametrize("text", ["", "12a", "-5", " 7", "1" * (MAX_DIGITS + 1), 12])
def test_from_decimal_refuses_what_no_count_is(text) -> None:
    with pytest.raises(InvalidInputError):
        from_decimal(text)


def test_readable_is_exact_while_short() -> None:
    assert readable(1360) == "1360"
    assert readable(Fraction(3, 7)) == "3/7"
    assert readable(10**20 * 3) == "about 3.00 x 10^20"
    assert readable(Fraction(1, 3 * 10**20)).startswith("3.33333e-21")


def test_bench_records_and_resumes_a_huge_count(huge: mscsp.Board, tmp_path: Path) -> None:
    corpus = tmp_path / "huge.jsonl"
    corpus.write_text(json.dumps({"board": huge.to_text(), "name": "huge"}) + "\n")
    out = tmp_path / "out"
    args = ["bench", "--corpus", str(corpus), "--backend", "dss", "--in-process", "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    weight = mscsp.solve(huge).weight
    assert len(runs[-1]["count"]) > 4300
    assert from_decimal(runs[-1]["count"]) == weight
    resumed = CliRunner().invoke(main, [*args, "--resume", "--json"])
    assert resumed.exit_code == 0, resumed.output


def test_explanations_keep_huge_counts_exact(huge: mscsp.Board) -> None:
    solution = mscsp.solve(huge)
    cell = next(iter(solution.exact))
    info = explain_probability(solution, cell)
    assert from_decimal(info["layouts"]) == solution.weight
    assert Fraction(from_decimal(info["mine_layouts"]), solution.weight) == solution.exact[cell]
    assert "x 10^" in info["steps"][0]  # prose rounds what no one reads in 5,000 digits
