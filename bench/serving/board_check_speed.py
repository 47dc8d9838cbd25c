"""What ``Board``'s checks cost: making a Board with and without them, on expert positions.

Players, solvers and the game engine make a Board every turn, so the checks of
``Board.__post_init__`` (shape, cell codes, numbers against their neighbours, flags and
mines) must stay cheap. The reference is the same frozen dataclass without checks, which is
what ``Board`` was before it checked anything.

    python bench/serving/board_check_speed.py
"""

from __future__ import annotations

import timeit
from dataclasses import dataclass

import numpy as np

from mscsp import Board
from mscsp.evaluation.played_positions import sample_positions


@dataclass(frozen=True, eq=False)
class Unchecked:
    """A Board without checks: the cost of the dataclass alone."""

    cells: np.ndarray
    mines: int


def microseconds(make, cells, mines: int, number: int = 20_000) -> float:
    """Best time of ``make(cells, mines)`` over 7 repeats, in microseconds."""
    return min(timeit.repeat(lambda: make(cells, mines), number=number, repeat=7)) / number * 1e6


def main() -> None:
    """Prints the cost with and without checks per position, then for a list input."""
    positions = sample_positions(16, 30, 99, 12, seed=5, per_game=3)[::3]
    cases = [("all covered", np.full((16, 30), -1, dtype=np.int8), 99)]
    cases += [
        (f"position {i} (max {b.cells.max()})", b.cells, b.mines) for i, b in enumerate(positions)
    ]
    print(f"{'expert 16x30':24} {'unchecked':>10} {'Board':>10}")
    for name, cells, mines in cases:
        print(
            f"{name:24} {microseconds(Unchecked, cells, mines):8.2f}us "
            f"{microseconds(Board, cells, mines):8.2f}us"
        )
    as_list = positions[0].cells.tolist()
    print(f"{'a list of lists':24} {'':10} {microseconds(Board, as_list, 99, 2_000):8.2f}us")


if __name__ == "__main__":
    main()
