"""Families of generated positions (mscsp.evaluation.families), ``mscsp corpus`` and the published
ladder ``bench/corpora/families.jsonl``."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import mscsp
from mscsp.bigint import from_decimal
from mscsp.cli import main
from mscsp.errors import InvalidInputError, InvalidTypeError, SolverLimitError
from mscsp.evaluation.benchmark import load_entries
from mscsp.evaluation.families import FAMILIES, Setting, generate, sweep
from mscsp.reference import brute_force

ROOT = Path(__file__).resolve().parents[1]
FAMILIES_CORPUS = ROOT / "bench" / "corpora" / "families.jsonl"


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_is_consistent(family: str) -> None:
    # The numbers come from a real layout, so the brute force finds at least one solution.
    rows = FAMILIES[family].rows or 4
    for seed in range(3):
        board = generate(family, rows, 6, 0.3, seed, step=1)
        if board is None:  # a game lost before its step
            continue
        assert board.cells.shape == (rows, 6)
        exact = brute_force(board)
        assert all(0 <= p <= 1 for p in exact.values())
        assert mscsp.solve(board, backend="brute").weight >= 1


def test_seed_and_density_decide_the_position() -> None:
    a, b = generate("lattice", 10, 10, 0.3, 1), generate("lattice", 10, 10, 0.3, 1)
    assert a.to_text() == b.to_text()
    assert generate("lattice", 10, 10, 0.3, 2).to_text() != a.to_text()
    sparse, dense = generate("band", 9, 30, 0.1, 0), generate("band", 9, 30, 0.6, 0)
    assert sparse.mines < dense.mines


@pytest.mark.parametrize(
    ("args", "error", "words"),
    [
        (("nope", 5, 5), InvalidInputError, "unknown family"),
        (("lattice", 0, 5), InvalidInputError, "rows"),
        (("lattice", 5, 2.5), InvalidTypeError, "cols"),
        (("lattice", 20_000, 5), InvalidInputError, "sides"),
        (("lattice", 5, 5, 0.0), InvalidInputError, "density"),
        (("lattice", 5, 5, 1), InvalidInputError, "density"),
        (("lattice", 5, 5, math.nan), InvalidInputError, "density"),
        (("lattice", 5, 5, True), InvalidTypeError, "density"),
        (("lattice", 5, 5, 0.2, -1), InvalidInputError, "seed"),
        (("strip", 4, 20), InvalidInputError, "3 rows"),
        (("game", 1, 1), InvalidInputError, "2 cells"),
    ],
)
def test_bad_arguments_are_refused(args: tuple, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        generate(*args)


def test_sweep_covers_every_combination_in_order() -> None:
    settings = sweep("lattice", [(4, 4), (6, 6)], [0.2, 0.4], range(3))
    assert len(settings) == 12
    assert settings[0] == Setting("lattice", 4, 4, 0.2, 0)
    assert len({s.name for s in settings}) == 12
    # A strip has no density knob; only a game has steps.
    assert len(sweep("strip", [(3, 20)], [0.2, 0.4], range(2), [1, 2])) == 2
    games = sweep("game", [(9, 9)], [0.12], range(2), [1, 2])
    assert [s.name for s in games][:2] == ["game 9x9 d0.12 s0 step 1", "game 9x9 d0.12 s0 step 2"]


def test_sweep_counts_its_settings_before_making_any() -> None:
    # 10**11 seeds: the list could never be held; the count is refused before it is made.
    with pytest.raises(InvalidInputError, match="100000000000 positions asked for; at most 10"):
        sweep("lattice", [(8, 8)], [0.2], range(10**11), limit=10)
    assert len(sweep("strip", [(3, 8)], [0.1, 0.2, 0.3], range(10), [1, 2], limit=10)) == 10
    with pytest.raises(InvalidInputError, match="40 positions"):
        sweep("game", [(9, 9)], [0.1, 0.2], range(10), [1, 2], limit=39)


def test_corpus_command_writes_a_corpus_bench_reads(tmp_path: Path) -> None:
    out = tmp_path / "lattices.jsonl"
    args = ["corpus", "lattice", "--size", "4x4,6x6", "--density", "0.2,0.4", "--count", "2"]
    result = CliRunner().invoke(main, [*args, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["positions"] == 8
    entries = load_entries(out)
    assert [e.name for e in entries] == [
        s.name for s in sweep("lattice", [(4, 4), (6, 6)], [0.2, 0.4], range(2))
    ]
    assert entries[-1].board.to_text() == generate("lattice", 6, 6, 0.4, 1).to_text()
    # Standard output by default: the same lines.
    printed = CliRunner().invoke(main, args)
    assert printed.stdout == out.read_text()
    # An existing file is kept unless --overwrite.
    again = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert again.exit_code == 2 and "--overwrite" in again.output
    replaced = CliRunner().invoke(
        main, ["corpus", "strip", "--size", "3x20", "--out", str(out), "--overwrite"]
    )
    assert replaced.exit_code == 0
    assert [e.family for e in load_entries(out)] == ["strip"]


def test_corpus_command_reports_games_that_end_early() -> None:
    result = CliRunner().invoke(
        main,
        [
            "corpus",
            "game",
            "--size",
            "9x9",
            "--density",
            "0.12",
            "--steps",
            "0,200",
            "--count",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 2  # step 0 of each game; no game lasts 200
    assert result.stderr.count("ended before that step") == 2


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["lattice", "--size", "8x8,"], "empty item"),
        (["lattice", "--size", "8x8", "--density", "1"], "0<x<1"),
        (["lattice", "--size", "8x8", "--count", "0"], "--count"),
        (["strip", "--size", "4x8"], "3 rows"),
        (["lattice", "--size", "100x100", "--count", "200000"], "--count"),
        (["lattice", "--size", "8x8", "--count", "100000000000"], "--count"),
        (["lattice", "--size", "8x8,9x9", "--density", "0.1,0.2", "--count", "30000"], "at most"),
        (["hexagon", "--size", "8x8"], "hexagon"),
    ],
)
def test_corpus_command_refuses_in_one_line(args: list[str], words: str) -> None:
    result = CliRunner().invoke(main, ["corpus", *args])
    assert result.exit_code == 2
    assert words in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_published_ladder_is_reproducible(tmp_path: Path) -> None:
    out = tmp_path / "families.jsonl"
    subprocess.run(
        ["bash", str(ROOT / "bench" / "corpora" / "make_families.sh"), str(out)],
        check=True,
        capture_output=True,
    )
    fields = ("board", "family", "name")
    fresh = [json.loads(line) for line in out.read_text().splitlines()]
    published = [json.loads(line) for line in FAMILIES_CORPUS.read_text().splitlines()]
    assert [{k: p[k] for k in fields} for p in published] == fresh
    assert len(published) >= 200


def test_published_counts_match_the_brute_force() -> None:
    # Every count was found by the fast backends; the brute force checks those it can reach
    # (components of at most 22 cells, within a second), 30 of them.
    entries = load_entries(FAMILIES_CORPUS)
    lines = [json.loads(line) for line in FAMILIES_CORPUS.read_text().splitlines()]
    assert all(bool(line["solved_by"]) == (line["count"] is not None) for line in lines)
    assert any(line["count"] is None for line in lines)  # the ladder reaches past every backend
    checked = 0
    for entry, line in zip(entries, lines, strict=True):
        if line["count"] is None or checked == 30:
            continue
        try:
            weight = mscsp.solve(entry.board, backend="brute", time_limit=1.0).weight
        except SolverLimitError:
            continue
        assert weight == from_decimal(line["count"]), line["name"]
        checked += 1
    assert checked == 30
