"""``bench/solvers/window_counts.py``: exact counts on windows of the factor graph, BP's
messages at their borders, against enumeration."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from factor_graphs import brute_means, small_graphs

from mscsp.estimators.bp import bp_messages

pytest.importorskip("opt_einsum", reason="the windows contract with opt_einsum")

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "solvers" / "window_counts.py"
spec = importlib.util.spec_from_file_location("window_counts", SCRIPT)
window_counts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(window_counts)


def window_means(graph, radius, log_lambda: float) -> np.ndarray:
    """Each group's mean mines in its window, BP's messages at ``log_lambda`` outside."""
    state = bp_messages(graph, iterations=2000, log_lambda=log_lambda)
    windows = window_counts.Windows(graph, radius)
    means = []
    for g in range(len(graph.sizes)):
        p, _ = windows.marginal(g, state)
        means.append(p @ np.arange(len(p)))
    return np.array(means)


@pytest.mark.parametrize("log_lambda", [-1.0, 0.5])
@pytest.mark.parametrize("radius", [None, 50])  # the whole graph; a group's whole part
def test_a_window_of_everything_a_group_meets_is_exact_at_the_density_on_loops(radius, log_lambda):
    for graph in small_graphs(12, tree=False):
        want = brute_means(graph, log_lambda)
        np.testing.assert_allclose(window_means(graph, radius, log_lambda), want, atol=1e-9)


@pytest.mark.parametrize("radius", [0, 1])
def test_small_windows_are_exact_on_trees_where_bp_s_messages_are(radius):
    for graph in small_graphs(12, tree=True):
        want = brute_means(graph, 0.3)
        np.testing.assert_allclose(window_means(graph, radius, 0.3), want, atol=1e-6)


def test_the_density_is_set_until_the_windows_hold_the_mines_left():
    for graph in small_graphs(10, tree=False):
        odds, log_lambda, _ = window_counts.window_odds(graph, 1, outer=12)
        density = 1.0 / (1.0 + np.exp(-log_lambda))
        total = odds @ graph.sizes + graph.n_free * density
        assert total == pytest.approx(graph.left, abs=window_counts.TOTAL_TOLERANCE)


def test_windows_grow_by_the_numbers_that_share_a_group():
    for graph in small_graphs(6, tree=False):
        smallest = window_counts.Windows(graph, 0)
        for g, members in enumerate(smallest.members):
            assert members == {f for f, (groups, _) in enumerate(graph.factors) if g in groups}
        one = window_counts.Windows(graph, 1).members
        for g, members in enumerate(one):
            shared = {h for f in smallest.members[g] for h in graph.factors[f][0]}
            assert members == {
                f for f, (groups, _) in enumerate(graph.factors) if shared & set(groups)
            }
        assert (
            window_counts.Windows(graph, 50).members == window_counts.Windows(graph, None).members
        )
