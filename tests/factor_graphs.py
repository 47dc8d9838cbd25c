"""Small factor graphs of real-game positions, and their odds by enumeration (for ``bp``
and the windows of ``bench/solvers/window_counts.py``)."""

from __future__ import annotations

import itertools
import math

import numpy as np
from conftest import random_game_position

from mscsp.estimators.bp import factor_graph


def is_tree(graph) -> bool:
    """Whether the group / number graph has no cycle (edges = nodes - connected parts)."""
    n = len(graph.sizes) + len(graph.factors)
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for f, (groups, _) in enumerate(graph.factors):
        for g in groups:
            a, b = find(g), find(len(graph.sizes) + f)
            if a == b:
                return False
            parent[a] = b
    return True


def brute_means(graph, log_lambda: float) -> np.ndarray:
    """Each group's mean mines under weights ``prod C(size, x) lambda^x`` over every
    assignment meeting the numbers (the total left free: the grand canonical ensemble)."""
    sizes = graph.sizes.tolist()
    z, means = 0.0, np.zeros(len(sizes))
    for xs in itertools.product(*(range(s + 1) for s in sizes)):
        if all(sum(xs[g] for g in groups) == t for groups, t in graph.factors):
            w = math.prod(math.comb(s, x) for s, x in zip(sizes, xs, strict=True))
            w *= math.exp(log_lambda * sum(xs))
            z += w
            means += w * np.array(xs)
    return means / z


def small_graphs(count: int, tree: bool = True) -> list:
    """Factor graphs of real-game positions whose frontier is a tree (``tree``) or has a
    loop (not ``tree``), small enough to enumerate."""
    found, seed = [], 0
    while len(found) < count:
        item = random_game_position(seed, max_side=6)
        seed += 1
        if item is None:
            continue
        graph = factor_graph(item[0])
        domains = math.prod(int(s) + 1 for s in graph.sizes)
        if graph.factors and is_tree(graph) == tree and domains <= 20_000:
            found.append(graph)
    return found
