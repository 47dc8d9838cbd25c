"""Loopy belief propagation (``bp``) and MCMC over layouts (``mcmc``) against exact odds."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import random_game_position
from factor_graphs import brute_means, small_graphs

import mscsp
from mscsp.board import format_board
from mscsp.cli import main
from mscsp.errors import InvalidInputError, InvalidTypeError, SolverLimitError
from mscsp.estimators import estimator_kinds, get_estimator
from mscsp.estimators.bp import bp_messages, factor_graph, run_bp
from mscsp.estimators.mcmc import split_rhat


def lattice(side: int = 12, density: float = 0.25, seed: int = 0) -> mscsp.Board:
    """A lattice: numbers on every other row and column of a random layout, the rest
    covered (many loops in the frontier, no free cells; consistent by construction)."""
    rng = np.random.default_rng(seed)
    mine = rng.random((side, side)) < density
    padded = np.pad(mine, 1).astype(int)
    around = sum(
        padded[1 + dr : 1 + dr + side, 1 + dc : 1 + dc + side]
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if dr or dc
    )
    cells = np.full((side, side), mscsp.COVERED, dtype=np.int8)
    shown = np.zeros_like(mine)
    shown[1::2, 1::2] = True
    shown &= ~mine
    cells[shown] = around[shown]
    return mscsp.Board(cells, int(mine.sum()))


def boards(count: int, first: int = 0) -> list[tuple[mscsp.Board, np.ndarray]]:
    """``count`` small real-game positions with their exact probabilities."""
    found = []
    seed = first
    while len(found) < count:
        item = random_game_position(seed)
        seed += 1
        if item is None:
            continue
        board = item[0]
        found.append((board, mscsp.solve(board).probabilities))
    return found


def covered_error(board: mscsp.Board, p: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|estimate - exact| on the covered cells."""
    return np.abs(p - exact)[board.cells == mscsp.COVERED]


@pytest.mark.parametrize("log_lambda", [-1.5, 0.0, 0.7])
def test_bp_is_exact_on_tree_shaped_frontiers_at_a_given_density(log_lambda):
    for graph in small_graphs(25):
        beliefs, report = run_bp(graph, iterations=2000, log_lambda=log_lambda)
        assert report.converged
        means = beliefs @ np.arange(beliefs.shape[1])
        np.testing.assert_allclose(means, brute_means(graph, log_lambda), atol=1e-6)


def test_bp_density_meets_the_total():
    for board, _ in boards(40):
        graph = factor_graph(board)
        if not len(graph.sizes):
            continue
        beliefs, report = run_bp(graph)
        expected = (beliefs @ np.arange(beliefs.shape[1])).sum() + graph.n_free * report.density
        assert expected == pytest.approx(graph.left, abs=1e-6)


def test_bp_is_close_to_exact_on_small_boards():
    estimator = get_estimator("bp")
    errors = [covered_error(b, estimator.estimate(b), q) for b, q in boards(80)]
    cells = np.concatenate(errors)
    # Loopy frontiers and a binding total make it inexact; on real small games it is near.
    assert cells.mean() < 0.02
    assert np.mean([e.max(initial=0) for e in errors]) < 0.05


def test_mcmc_is_within_its_sampling_error_of_exact():
    estimator = get_estimator("mcmc:200")
    for board, exact in boards(40):
        p = estimator.estimate(board)
        report = estimator.report
        # A tolerance from the draws averaged: 3 / sqrt(n) is six standard errors of a
        # frequency near 1/2 from n independent draws, leaving room for autocorrelation.
        draws = max(report.chains * report.kept, 1)
        assert covered_error(board, p, exact).max(initial=0) <= 3 / math.sqrt(draws)


def test_mcmc_error_falls_as_its_sweeps_grow():
    sample = boards(15, first=300)
    means = []
    for sweeps in (10, 100, 1000):
        estimator = get_estimator(f"mcmc:{sweeps}")
        errors = [covered_error(b, estimator.estimate(b), q) for b, q in sample]
        means.append(float(np.concatenate(errors).mean()))
    assert means[0] > means[1] > means[2]


def test_mcmc_counts_the_free_cells_from_the_total():
    # Boards with a few cells next to no number: the total binds them to the frontier.
    estimator = get_estimator("mcmc:300")
    checked = 0
    for board, exact in boards(120):
        graph = factor_graph(board)
        if not 1 <= graph.n_free <= 6 or not len(graph.sizes):
            continue
        p = estimator.estimate(board)
        draws = estimator.report.chains * estimator.report.kept
        free = graph.free[:, 0], graph.free[:, 1]
        assert np.abs(p[free] - exact[free]).max() <= 3 / math.sqrt(draws)
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("spec", ["bp", "mcmc:30"])
def test_the_same_seed_gives_the_same_estimate(spec):
    board = lattice()
    first = get_estimator(spec).estimate(board)
    again = get_estimator(spec).estimate(board)
    np.testing.assert_array_equal(first, again)


def test_mcmc_seeds_differ():
    from mscsp.estimators.mcmc import McmcEstimator

    board = lattice()
    kind = estimator_kinds()["mcmc"]
    one = McmcEstimator(kind, 30, seed=1).estimate(board)
    two = McmcEstimator(kind, 30, seed=2).estimate(board)
    assert not np.array_equal(one, two)


def test_bp_stops_at_its_time_limit_with_what_it_has():
    board = lattice(100)  # about 5,000 groups: a sweep takes tens of milliseconds
    estimator = get_estimator("bp:1000000", time_limit=0.3)
    try:
        p = estimator.estimate(board)
    except SolverLimitError as error:  # the limit passed while stating the graph
        assert "time limit" in str(error)
        return
    assert estimator.report.iterations < 1_000_000
    assert not estimator.report.converged
    assert np.isfinite(p[board.cells == mscsp.COVERED]).all()


def test_mcmc_stops_at_its_time_limit():
    board = lattice(100)
    estimator = get_estimator("mcmc:1000000", time_limit=0.3)
    try:
        estimator.estimate(board)
    except SolverLimitError as error:  # no start or no sweep in time: said so
        assert "time limit" in str(error)
    else:
        assert not estimator.report.finished
        assert estimator.report.sweeps < 1_000_000


def test_split_rhat_tells_mixed_chains_from_stuck_ones():
    rng = np.random.default_rng(0)
    mixed = rng.random((4, 400, 3))
    assert split_rhat(mixed) < 1.05
    stuck = mixed.copy()
    stuck[0] += 1.0  # one chain elsewhere
    assert split_rhat(stuck) > 1.5


def test_mcmc_reports_rhat_near_one_on_an_easy_board():
    board = mscsp.parse_board("4x4x3\n1???\n????\n????\n????\n")
    estimator = get_estimator("mcmc:400")
    estimator.estimate(board)
    assert estimator.report.rhat < 1.1


@pytest.mark.parametrize("spec", ["bp:0", "bp:x", "bp:-3", "bp:1.5", "mcmc:0", "mcmc:ten", "mcmc:"])
def test_bad_options_are_refused_in_one_line(spec):
    result = CliRunner().invoke(main, ["probs", "--backend", spec], input="")
    if spec == "mcmc:":  # an empty argument is the default
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mscsp: error:")


@pytest.mark.parametrize("spec", ["bp", "mcmc:50"])
def test_probs_shows_the_estimate_as_approximate(spec):
    result = CliRunner().invoke(main, ["probs", "--backend", spec, "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["approximate"] is True and out["exact"] is False
    assert out["safe"] == [] and out["mines_certain"] == []


def test_bench_runs_both_against_an_exact_reference(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    rows = []
    for board, _ in boards(3):
        rows.append(json.dumps({"board": format_board(board), "family": "game"}))
    corpus.write_text("\n".join(rows) + "\n")
    result = CliRunner().invoke(
        main, ["bench", "--corpus", str(corpus), "--backend", "bp,mcmc:50", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "bp" in result.output and "mcmc:50" in result.output


def test_both_are_listed_as_approximate():
    kinds = estimator_kinds()
    for name in ("bp", "mcmc"):
        assert kinds[name].family == "approximate" and not kinds[name].exact


@pytest.mark.parametrize(
    "change, error",
    [
        ({"graph": "3x3x1"}, InvalidTypeError),
        ({"iterations": -1}, InvalidInputError),
        ({"iterations": 2.5}, InvalidInputError),
        ({"iterations": True}, InvalidInputError),
        ({"damping": 1.0}, InvalidInputError),
        ({"damping": -0.1}, InvalidInputError),
        ({"damping": "0.5"}, InvalidInputError),
        ({"log_lambda": math.inf}, InvalidInputError),
        ({"log_lambda": math.nan}, InvalidInputError),
    ],
)
def test_bp_refuses_bad_arguments_in_one_line(change, error):
    [graph] = small_graphs(1)
    arguments = {"graph": graph, **change}
    for function in (bp_messages, run_bp):
        with pytest.raises(error) as raised:
            function(**arguments)
        assert "\n" not in str(raised.value)
