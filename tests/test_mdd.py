"""The ``mdd`` backend's own paths: several residue primes, no solution, the compiled diagram."""

from __future__ import annotations

import math

import pytest

from mscsp import solve
from mscsp.backends import get_backend
from mscsp.backends.mdd import compile_mdd, span_and_magnitude
from mscsp.constraints import Component
from mscsp.evaluation.families import band, lattice


@pytest.mark.parametrize("make, rows, cols, density", [(band, 7, 24, 0.5), (lattice, 12, 16, 0.4)])
def test_counts_beyond_one_prime_equal_dss(make, rows, cols, density) -> None:
    # Components with more than 2**30 solutions need several primes and the CRT.
    widest = 0
    for seed in range(2):
        for component, count in solve(make(rows, cols, density, seed)).components:
            _, _, total = span_and_magnitude(compile_mdd(component))
            widest = max(widest, math.log2(total))
            assert get_backend("mdd").count(component) == count
    assert widest > 31


def test_component_without_solution_counts_zero() -> None:
    # Two groups of one cell, one constraint asks for 3 mines.
    component = Component(sizes=(1, 1), constraints=(((0, 1), 3),))
    assert compile_mdd(component).empty
    count = get_backend("mdd").count(component)
    assert count.total == 0 and not any(map(any, count.cell_counts))


def test_diagram_paths_are_the_group_level_solutions() -> None:
    # 2 + 1 + 2 cells, x0 + x1 = 1 and x1 + x2 = 1: (1,0,1) and (0,1,0) at group level.
    component = Component(sizes=(2, 1, 2), constraints=(((0, 1), 1), ((1, 2), 1)))
    mdd = compile_mdd(component)
    assert not mdd.empty and mdd.levels[-1].n_next == 1
    assert span_and_magnitude(mdd) == (1, 2, 5.0)  # 4 layouts with 2 mines, 1 with 1
    count = get_backend("mdd").count(component)
    assert count.counts == (0, 1, 4, 0, 0, 0)


def test_column_blocks_give_the_same_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    # A tiny memory budget splits the points and primes into many blocks of columns.
    from mscsp.backends import mdd

    monkeypatch.setattr(mdd, "_STORED", 1000)
    monkeypatch.setattr(mdd, "_PER_LEVEL", 500)
    for component, count in solve(band(7, 24, 0.5, 1)).components:
        assert get_backend("mdd").count(component) == count
